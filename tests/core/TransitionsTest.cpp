// Runs and luminosity blocks end to end, through the public EventProcessor
// API: the order of transitions, the slots in flight, stream modules, per-lumi
// caches and sums, lumi and run products, and the bad inputs refused. Lumis of
// random lengths, at several thread, lane and slot counts (generated).

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/TestPlugins.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/Exception.h"
#include "lanes/core/Lumi.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::test {
namespace {

// What the modules saw, in the order they saw it. Thread-safe.
struct Journal {
  enum Kind { BeginRun, BeginLumi, Event, EndLumi, EndRun, StreamBegin, StreamEnd, WriteLumi, WriteRun };
  struct Entry {
    Kind kind;
    std::uint32_t run;
    std::uint32_t lumi;
    std::uint64_t event;      // Event only
    std::uint64_t entry;      // the lumi's (run's) Block::index()
    unsigned lane;            // Event, StreamBegin, StreamEnd
    std::uint64_t count = 0;  // WriteLumi/WriteRun: events(); products below
    std::uint64_t summed = 0;
    std::uint64_t streamSummed = 0;
  };
  void add(Entry entry) {
    std::lock_guard hold(lock);
    entries.push_back(entry);
  }
  std::vector<Entry> of(Kind kind) const {
    std::vector<Entry> found;
    for (auto const& entry : entries) {
      if (entry.kind == kind) found.push_back(entry);
    }
    return found;
  }
  std::mutex lock;
  std::vector<Entry> entries;
};

// R:L:N/R:L:N/... as (run, lumi, events) stretches.
struct Stretch {
  unsigned run = 0, lumi = 0, events = 0;
};
std::vector<Stretch> stretchesOf(std::string const& spec) {
  std::vector<Stretch> stretches;
  std::istringstream in(spec);
  std::string part;
  while (std::getline(in, part, '/')) {
    Stretch stretch;
    char colon = 0;
    std::istringstream fields(part);
    fields >> stretch.run >> colon >> stretch.lumi >> colon >> stretch.events;
    stretches.push_back(stretch);
  }
  return stretches;
}

// Events whose ids are given stretch by stretch: lumis=R:L:N/R:L:N/... (N
// events of run R, lumi L each); replicable unless shared=true; stretches=false
// leaves the job to read the ids ahead (Source::stretchAt says nullopt).
class IdsSource : public Source {
 public:
  explicit IdsSource(Options const& options)
      : shared_(options.getBool("shared", false)), stretches_(options.getBool("stretches", true)) {
    for (auto const& stretch : stretchesOf(options.getString("lumis", "1:1:10"))) {
      for (unsigned k = 0; k < stretch.events; ++k) ids_.push_back({stretch.run, stretch.lumi, ids_.size() + 1});
    }
    declare<int>("n");
  }
  bool next(SourceEvent& event) override { return at(next_++, event); }
  bool at(std::uint64_t ordinal, SourceEvent& event) override {
    if (ordinal >= ids_.size()) return false;
    event.id = ids_[ordinal];
    event.entry = ordinal;
    return true;
  }
  void read(SourceEvent const& event, std::size_t, ProductSlot& slot) override {
    slot.emplace(static_cast<int>(event.id.event), sizeof(int));
  }
  std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) override {
    if (!stretches_) return std::nullopt;
    if (ordinal >= ids_.size()) return LumiStretch{{}, ids_.size(), ids_.size()};
    auto first = ordinal, end = ordinal + 1;
    auto const same = [&](std::uint64_t k) {
      return ids_[k].run == ids_[ordinal].run && ids_[k].luminosityBlock == ids_[ordinal].luminosityBlock;
    };
    while (first > 0 && same(first - 1)) --first;
    while (end < ids_.size() && same(end)) ++end;
    return LumiStretch{{ids_[ordinal].run, ids_[ordinal].luminosityBlock}, first, end};
  }
  std::unique_ptr<Source> replicate() const override {
    if (shared_) return nullptr;
    auto copy = std::make_unique<IdsSource>(*this);
    copy->next_ = 0;
    return copy;
  }
  std::uint64_t replicaChunk() const override { return 4; }

 private:
  bool shared_;
  bool stretches_;
  std::vector<EventId> ids_;
  std::uint64_t next_ = 0;
};

// Numbered by ordinal: the job numbers its runs and lumis (events-per-lumi= ...).
class NumberedSource : public Source {
 public:
  explicit NumberedSource(Options const& options)
      : events_(static_cast<std::uint64_t>(options.getInt("events", 100))), shared_(options.getBool("shared", false)) {
    declare<int>("n");
  }
  bool next(SourceEvent& event) override { return at(next_++, event); }
  bool at(std::uint64_t ordinal, SourceEvent& event) override {
    if (ordinal >= events_) return false;
    event.id = {1, 1, ordinal + 1};
    event.entry = ordinal;
    return true;
  }
  void read(SourceEvent const& event, std::size_t, ProductSlot& slot) override {
    slot.emplace(static_cast<int>(event.id.event), sizeof(int));
  }
  bool concurrentReads() const override { return true; }
  std::unique_ptr<Source> replicate() const override {
    return shared_ ? nullptr : std::make_unique<NumberedSource>(*this);
  }
  std::optional<std::uint64_t> eventCount() const override { return events_; }
  bool numbersByOrdinal() const override { return true; }

 private:
  std::uint64_t events_;
  bool shared_;
  std::uint64_t next_ = 0;
};

// Logs every transition and event, and counts each lumi's (run's) events
// in a LumiSum (RunSum), put as the lumi (run) product "count".
class Recorder : public global::Analyzer {
 public:
  Recorder(std::string const& label, Options const& options, Journal& journal)
      : Analyzer(label),
        journal_(journal),
        in_(consumes<int>("n")),
        lumiCount_(producesLumi<std::uint64_t>(options.getString("lumi-count", "count"))),
        runCount_(producesRun<std::uint64_t>(options.getString("run-count", "count"))) {}
  void beginRun(Run const& run) const override { journal_.add({Journal::BeginRun, run.run(), 0, 0, run.index(), 0}); }
  void beginLumi(Lumi const& lumi) const override {
    journal_.add({Journal::BeginLumi, lumi.run(), lumi.luminosityBlock(), 0, lumi.index(), 0});
    began_[lumi] = true;
  }
  void analyze(Event const& event) const override {
    auto const& lumi = event.lumi();
    if (!began_[event]) throw std::runtime_error("an event of a lumi whose begin did not run");
    if (lumi.run() != event.id().run || lumi.luminosityBlock() != event.id().luminosityBlock) {
      throw std::runtime_error("event " + event.id().str() + " is in lumi " + std::to_string(lumi.run()) + ":" +
                               std::to_string(lumi.luminosityBlock()));
    }
    if (event.get(in_) <= 0) throw std::runtime_error("no product");
    journal_.add({Journal::Event, lumi.run(), lumi.luminosityBlock(), event.id().event, lumi.index(), event.lane()});
    lumiEvents_[event] += 1;
    runEvents_[event] += 1;
  }
  void endLumi(Lumi& lumi) const override {
    journal_.add({Journal::EndLumi, lumi.run(), lumi.luminosityBlock(), 0, lumi.index(), 0});
    lumi.put(lumiCount_, lumiEvents_.total(lumi));
  }
  void endRun(Run& run) const override {
    journal_.add({Journal::EndRun, run.run(), 0, 0, run.index(), 0});
    run.put(runCount_, runEvents_.total(run));
  }

 private:
  Journal& journal_;
  ProductToken<int> in_;
  LumiToken<std::uint64_t> lumiCount_;
  RunToken<std::uint64_t> runCount_;
  LumiCache<bool> began_{*this};
  LumiSum<std::uint64_t> lumiEvents_{*this};
  RunSum<std::uint64_t> runEvents_{*this};
};

// A lane's own view: its stream begin and end of each lumi, and its part of
// the lumi's count, put at its end and merged with the other lanes'.
class StreamRecorder : public stream::Analyzer {
 public:
  StreamRecorder(std::string const& label, Options const&, Journal& journal)
      : Analyzer(label), journal_(journal), count_(producesLumi<std::uint64_t>("stream-count")) {}
  void beginLumi(Lumi const& lumi) override {
    journal_.add({Journal::StreamBegin, lumi.run(), lumi.luminosityBlock(), 0, lumi.index(), lane_});
    events_ = 0;
  }
  void analyze(Event const& event) override {
    lane_ = event.lane();
    ++events_;
  }
  void endLumi(Lumi& lumi) override {
    journal_.add({Journal::StreamEnd, lumi.run(), lumi.luminosityBlock(), 0, lumi.index(), lane_});
    lumi.put(count_, events_);
  }

 private:
  Journal& journal_;
  LumiToken<std::uint64_t> count_;
  unsigned lane_ = 0;
  std::uint64_t events_ = 0;
};

// A `one` module that watches lumis: the job then holds one lumi in flight.
class OneWatcher : public one::Analyzer {
 public:
  OneWatcher(std::string const& label, Options const&) : Analyzer(label) {}
  void analyze(Event const&) override {}
  void beginLumi(Lumi const&) override { ++open_; }
  void endLumi(Lumi&) override { --open_; }

 private:
  int open_ = 0;
};

// Watches nothing of lumis: counts the events whose lumi() it could read.
class LumiBlind : public global::Analyzer {
 public:
  LumiBlind(std::string const& label, Options const&, std::atomic<int>& seen) : Analyzer(label), seen_(seen) {}
  void analyze(Event const& event) const override {
    try {
      (void)event.lumi();
      ++seen_;
    } catch (Exception const&) {
    }
  }

 private:
  std::atomic<int>& seen_;
};

// Writes each lumi's and run's record: its events and the products put.
class RecordWriter : public global::Output {
 public:
  RecordWriter(std::string const& label, Options const& options, Journal& journal)
      : Output(label), journal_(journal), stream_(options.getBool("stream", false)) {}
  void beginJob(JobContext const& context) override {
    auto const* lumiCount = context.lumiRegistry->find("count");
    auto const* runCount = context.runRegistry->find("count");
    lumiCount_ = LumiToken<std::uint64_t>(lumiCount);
    runCount_ = RunToken<std::uint64_t>(runCount);
    if (stream_) streamCount_ = LumiToken<std::uint64_t>(context.lumiRegistry->find("stream-count"));
  }
  void write(Event const&) const override {}
  void writeLumi(Lumi const& lumi) const override {
    journal_.add({Journal::WriteLumi, lumi.run(), lumi.luminosityBlock(), 0, lumi.index(), 0, lumi.events(),
                  lumi.events() ? lumi.get(lumiCount_) : 0, stream_ && lumi.events() ? lumi.get(streamCount_) : 0});
  }
  void writeRun(Run const& run) const override {
    journal_.add({Journal::WriteRun, run.run(), 0, 0, run.index(), 0, run.events(), run.events() ? run.get(runCount_) : 0});
  }

 private:
  Journal& journal_;
  bool stream_;
  LumiToken<std::uint64_t> lumiCount_;
  RunToken<std::uint64_t> runCount_;
  LumiToken<std::uint64_t> streamCount_;
};

PluginRegistry transitionsRegistry(Journal& journal, std::atomic<int>* lumisSeen = nullptr) {
  PluginRegistry registry;
  registry.addModule({"lumi-blind", ""}, [lumisSeen](std::string const& label, Options const& options) {
    return std::unique_ptr<Module>(constructModule<LumiBlind>(label, options, *lumisSeen));
  });
  registry.addSource({"ids", ""}, [](Options const& options) { return std::make_unique<IdsSource>(options); });
  registry.addSource({"numbered", ""}, [](Options const& options) { return std::make_unique<NumberedSource>(options); });
  registry.addModule({"recorder", ""}, [&journal](std::string const& label, Options const& options) {
    return std::unique_ptr<Module>(constructModule<Recorder>(label, options, journal));
  });
  registry.addModule({"stream-recorder", ""}, [&journal](std::string const& label, Options const& options) {
    return std::unique_ptr<Module>(constructModule<StreamRecorder>(label, options, journal));
  });
  registry.addModule({"one-watcher", ""}, [](std::string const& label, Options const& options) {
    return std::unique_ptr<Module>(constructModule<OneWatcher>(label, options));
  });
  registry.addOutput({"records", ""}, [&journal](std::string const& label, Options const& options) {
    return std::unique_ptr<OutputModule>(constructModule<RecordWriter>(label, options, journal));
  });
  return registry;
}

// Every lumi and run entry begins before its events and ends after them;
// lumis nest in their runs; no more lumis in flight than `slots`.
void expectWellOrdered(Journal const& journal, unsigned slots) {
  std::map<std::uint64_t, int> lumiState;  // entry -> 0 begun, 1 ended
  std::map<std::uint64_t, int> runState;
  std::map<std::uint64_t, std::uint32_t> runOfLumi;
  unsigned inFlight = 0, mostInFlight = 0;
  for (auto const& entry : journal.entries) {
    switch (entry.kind) {
      case Journal::BeginRun:
        ASSERT_EQ(runState.count(entry.entry), 0u) << "run entry " << entry.entry << " begun twice";
        runState[entry.entry] = 0;
        break;
      case Journal::BeginLumi:
        ASSERT_EQ(lumiState.count(entry.entry), 0u) << "lumi entry " << entry.entry << " begun twice";
        lumiState[entry.entry] = 0;
        mostInFlight = std::max(mostInFlight, ++inFlight);
        break;
      case Journal::Event:
      case Journal::StreamBegin:
      case Journal::StreamEnd:
        ASSERT_EQ(lumiState.count(entry.entry), 1u) << "an event or stream call before its lumi " << entry.entry << " began";
        ASSERT_EQ(lumiState[entry.entry], 0) << "an event or stream call after its lumi " << entry.entry << " ended";
        break;
      case Journal::EndLumi:
        ASSERT_EQ(lumiState[entry.entry], 0) << "lumi entry " << entry.entry << " ended twice or before it began";
        lumiState[entry.entry] = 1;
        --inFlight;
        break;
      case Journal::EndRun:
        ASSERT_EQ(runState[entry.entry], 0);
        runState[entry.entry] = 1;
        break;
      default: break;
    }
  }
  for (auto const& [entry, state] : lumiState) EXPECT_EQ(state, 1) << "lumi entry " << entry << " never ended";
  for (auto const& [entry, state] : runState) EXPECT_EQ(state, 1) << "run entry " << entry << " never ended";
  EXPECT_LE(mostInFlight, slots);
  // A lumi's run began before it and ends after it.
  std::map<std::uint32_t, std::vector<std::size_t>> runEvents;  // run number -> positions of its begin/end
  for (std::size_t i = 0; i < journal.entries.size(); ++i) {
    auto const& entry = journal.entries[i];
    if (entry.kind != Journal::BeginLumi && entry.kind != Journal::EndLumi) continue;
    bool beganBefore = false, endsAfter = false;
    for (std::size_t j = 0; j < journal.entries.size(); ++j) {
      auto const& other = journal.entries[j];
      if (other.run != entry.run) continue;
      if (other.kind == Journal::BeginRun && j < i) beganBefore = true;
      if (other.kind == Journal::EndRun && j > i) endsAfter = true;
    }
    EXPECT_TRUE(beganBefore && endsAfter) << "lumi " << entry.run << ":" << entry.lumi << " outside its run";
  }
}

// The lumi each event of `ids` (R:L:N/...) belongs to, entry by entry.
struct Expected {
  std::vector<std::uint64_t> lumiEvents;  // by lumi entry
  std::vector<std::pair<std::uint32_t, std::uint32_t>> lumis;
};
Expected expectedOf(std::string const& spec) {
  Expected expected;
  for (auto const& stretch : stretchesOf(spec)) {
    if (!expected.lumis.empty() && expected.lumis.back() == std::pair{stretch.run, stretch.lumi}) {
      expected.lumiEvents.back() += stretch.events;
    } else {
      expected.lumis.emplace_back(stretch.run, stretch.lumi);
      expected.lumiEvents.push_back(stretch.events);
    }
  }
  return expected;
}

// Lumis of random lengths (1 to 12 events, some runs of several lumis, a lumi that comes back).
std::string randomLumis(unsigned seed, unsigned lumis) {
  std::mt19937 random(seed);
  std::ostringstream spec;
  unsigned run = 1, lumi = 0;
  for (unsigned k = 0; k < lumis; ++k) {
    if (k > 0 && random() % 5 == 0) {
      ++run;
      lumi = 0;
    }
    ++lumi;
    spec << (k ? "/" : "") << run << ":" << lumi << ":" << 1 + random() % 12;
  }
  spec << "/" << run << ":1:3";  // lumi 1 of the last run comes back
  return spec.str();
}

struct Shape {
  unsigned threads;
  unsigned lanes;
  unsigned lumiSlots;
  bool shared;
};

class TransitionsTest : public ::testing::TestWithParam<Shape> {
 protected:
  JobConfig shaped(std::string const& source) {
    JobConfig config;
    config.source = PluginSpec::parse(source + (GetParam().shared ? ",shared=true" : ""));
    config.threads = GetParam().threads;
    config.lanes = GetParam().lanes;
    config.concurrentLumis = GetParam().lumiSlots;
    config.concurrentRuns = 2;
    config.modules.push_back({"recorder", PluginSpec::parse("recorder")});
    config.outputs.push_back({"records", PluginSpec::parse("records"), {}});
    return config;
  }
  RunSummary runJob(JobConfig config) {
    auto registry = transitionsRegistry(journal);
    EventProcessor processor(std::move(config), registry);
    return processor.run();
  }
  Journal journal;
};

TEST_P(TransitionsTest, EveryLumiBeginsBeforeItsEventsAndEndsAfterThemOnce) {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    journal.entries.clear();
    auto const spec = randomLumis(seed, 25);
    auto const summary = runJob(shaped("ids:lumis=" + spec));
    ASSERT_FALSE(summary.failed) << summary.error;
    auto const expected = expectedOf(spec);
    std::uint64_t events = 0;
    for (auto n : expected.lumiEvents) events += n;
    EXPECT_EQ(summary.eventsProcessed, events);
    EXPECT_EQ(summary.lumis, expected.lumis.size());
    EXPECT_EQ(summary.repeatedLumis, 1u);
    expectWellOrdered(journal, GetParam().lumiSlots);
    // Each lumi's record: its (run, lumi), events, and the LumiSum of them.
    auto const writes = journal.of(Journal::WriteLumi);
    ASSERT_EQ(writes.size(), expected.lumis.size());
    for (auto const& write : writes) {
      ASSERT_LT(write.entry, expected.lumis.size());
      EXPECT_EQ(std::pair(write.run, write.lumi), expected.lumis[write.entry]);
      EXPECT_EQ(write.count, expected.lumiEvents[write.entry]) << "lumi entry " << write.entry;
      EXPECT_EQ(write.summed, write.count);
    }
    std::uint64_t runTotal = 0;
    for (auto const& write : journal.of(Journal::WriteRun)) {
      EXPECT_EQ(write.summed, write.count);
      runTotal += write.count;
    }
    EXPECT_EQ(runTotal, events);
  }
}

TEST_P(TransitionsTest, AJobThatReadsTheIdsAheadSeesTheSameLumis) {
  auto const spec = randomLumis(7, 20);
  auto const summary = runJob(shaped("ids:stretches=false,lumis=" + spec));
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.lumis, expectedOf(spec).lumis.size());
  expectWellOrdered(journal, GetParam().lumiSlots);
}

TEST_P(TransitionsTest, ALanesStreamModulesSeeEachLumiItGoesIntoOnce) {
  auto config = shaped("ids:lumis=" + randomLumis(3, 30));
  config.modules.push_back({"stream", PluginSpec::parse("stream-recorder")});
  config.outputs.back().plugin = PluginSpec::parse("records:stream=true");
  auto const summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  expectWellOrdered(journal, GetParam().lumiSlots);
  std::set<std::pair<unsigned, std::uint64_t>> seen;  // (lane, lumi entry)
  std::map<unsigned, std::uint64_t> open;             // lane -> the lumi its stream modules are in
  for (auto const& entry : journal.entries) {
    if (entry.kind == Journal::StreamBegin) {
      // A lane's beginLumi() comes before its first event there, so the lane is not yet known:
      // the StreamEnd entry names it, and pairs are checked there.
      continue;
    }
    if (entry.kind == Journal::StreamEnd) {
      EXPECT_TRUE(seen.insert({entry.lane, entry.entry}).second)
          << "lane " << entry.lane << " left lumi entry " << entry.entry << " twice";
    }
  }
  // The lanes' parts of each lumi's count, merged, are the lumi's events.
  for (auto const& write : journal.of(Journal::WriteLumi)) EXPECT_EQ(write.streamSummed, write.count);
}

std::vector<Shape> shapes() {
  std::vector<Shape> result;
  for (unsigned threads : {1u, 2u, 4u}) {
    for (unsigned lanes : {1u, 3u, 8u}) {
      for (unsigned slots : {1u, 2u, 3u}) result.push_back({threads, lanes, slots, false});
    }
  }
  result.push_back({2, 4, 2, true});
  result.push_back({4, 8, 1, true});
  return result;
}

INSTANTIATE_TEST_SUITE_P(ThreadsLanesAndSlots, TransitionsTest, ::testing::ValuesIn(shapes()), [](auto const& info) {
  auto const& shape = info.param;
  return std::to_string(shape.threads) + "threads_" + std::to_string(shape.lanes) + "lanes_" +
         std::to_string(shape.lumiSlots) + "lumis" + (shape.shared ? "_shared" : "");
});

// ---------------------------------------------------------------- numbered sources

RunSummary runNumbered(Journal& journal, std::string const& source, unsigned lanes = 4, unsigned slots = 2,
                       std::vector<std::string> const& modules = {}, unsigned threads = 2) {
  JobConfig config;
  config.source = PluginSpec::parse(source);
  config.threads = threads;
  config.lanes = lanes;
  config.concurrentLumis = slots;
  config.modules.push_back({"recorder", PluginSpec::parse("recorder")});
  for (auto const& module : modules) config.modules.push_back({module, PluginSpec::parse(module)});
  config.outputs.push_back({"records", PluginSpec::parse("records"), {}});
  auto registry = transitionsRegistry(journal);
  EventProcessor processor(std::move(config), registry);
  return processor.run();
}

TEST(NumberedLumisTest, EventsPerLumiAndLumisPerRunNumberTheEvents) {
  Journal journal;
  auto const summary = runNumbered(journal, "numbered:events=100,events-per-lumi=7,lumis-per-run=3,first-run=5");
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.lumis, 15u);  // 14 of 7 events, then 2
  EXPECT_EQ(summary.runs, 5u);
  expectWellOrdered(journal, 2);
  for (auto const& event : journal.of(Journal::Event)) {
    auto const k = (event.event - 1) / 7;
    EXPECT_EQ(event.run, 5 + k / 3);
    EXPECT_EQ(event.lumi, k % 3 + 1);
  }
}

TEST(NumberedLumisTest, ALumiOfNoEventsStillBeginsAndEnds) {
  Journal journal;
  auto const summary = runNumbered(journal, "numbered:events=20,events-per-lumi=3:0:2");
  ASSERT_FALSE(summary.failed) << summary.error;
  // 3, 0, 2, 3, 0, 2, ... : 20 events in 8 lumis of events (3+2 four times), with 4 empty ones between.
  EXPECT_EQ(summary.emptyLumis, 4u);
  EXPECT_EQ(summary.lumis, 12u);
  expectWellOrdered(journal, 2);
  auto const writes = journal.of(Journal::WriteLumi);
  EXPECT_EQ(std::count_if(writes.begin(), writes.end(), [](auto const& write) { return write.count == 0; }), 4);
}

TEST(NumberedLumisTest, SeededLengthsAreTheSameEveryRun) {
  Journal first, second;
  auto const spec = "numbered:events=500,events-per-lumi=uniform:1:40,lumi-seed=9";
  auto const a = runNumbered(first, spec);
  auto const b = runNumbered(second, spec, 7, 3);
  ASSERT_FALSE(a.failed || b.failed);
  EXPECT_EQ(a.lumis, b.lumis);
  std::map<std::uint64_t, std::uint64_t> countsA, countsB;
  for (auto const& write : first.of(Journal::WriteLumi)) countsA[write.entry] = write.count;
  for (auto const& write : second.of(Journal::WriteLumi)) countsB[write.entry] = write.count;
  EXPECT_EQ(countsA, countsB);
  EXPECT_GT(a.lumis, 12u);
}

TEST(NumberedLumisTest, AOneModuleThatWatchesLumisHoldsTheJobToOneLumi) {
  Journal journal;
  auto const summary = runNumbered(journal, "numbered:events=200,events-per-lumi=5", 8, 4, {"one-watcher"});
  ASSERT_FALSE(summary.failed) << summary.error;
  expectWellOrdered(journal, 1);
}

TEST(NumberedLumisTest, OneEventPerLumiAtManyLanes) {
  Journal journal;
  auto const summary = runNumbered(journal, "numbered:events=300,events-per-lumi=1", 32, 3);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.lumis, 300u);
  expectWellOrdered(journal, 3);
}

// Many lanes racing for the frontier, lumis of 0 to 3 events and one lumi
// slot (lanes park at nearly every boundary): every event is claimed once, and
// every lumi, the empty ones too, begins and is written once. Two races this
// caught: a lane claiming under the lock over a claim made without it (an
// event processed twice), and a lane's late lookup undoing the empty lumis
// another had already opened (an empty lumi and its run transitioned twice).
TEST(NumberedLumisTest, EachEventAndEachEmptyLumiOnceUnderContention) {
  for (int round = 0; round < 40; ++round) {
    Journal journal;
    auto const summary = runNumbered(journal, "numbered:events=300,events-per-lumi=uniform:0:12,lumis-per-run=5", 16,
                                     1 + round % 3, {}, 4);
    ASSERT_FALSE(summary.failed) << summary.error;
    EXPECT_EQ(summary.repeatedLumis, 0u);
    EXPECT_EQ(summary.repeatedRuns, 0u);
    std::set<std::uint64_t> events;
    for (auto const& event : journal.of(Journal::Event)) EXPECT_TRUE(events.insert(event.event).second) << event.event;
    EXPECT_EQ(events.size(), 300u);
    std::set<std::pair<std::uint32_t, std::uint32_t>> lumis;
    std::uint64_t written = 0;
    for (auto const& write : journal.of(Journal::WriteLumi)) {
      EXPECT_TRUE(lumis.insert({write.run, write.lumi}).second) << write.run << ":" << write.lumi;
      written += write.count;
    }
    EXPECT_EQ(lumis.size(), summary.lumis);
    EXPECT_EQ(written, 300u);
  }
}

// A job whose modules and outputs take no interest in lumis, and whose source
// is not numbered into them, tracks none: the input's lumi boundaries cut no
// lane's run, none is counted, and an event has no lumi to give.
TEST(UntrackedLumisTest, AJobThatWatchesNoLumiTracksNone) {
  std::atomic<int> seen{0};
  Journal journal;
  for (auto const& source : {"ids:lumis=1:1:30/1:2:30/2:1:40", "numbered:events=100"}) {
    JobConfig config;
    config.source = PluginSpec::parse(source);
    config.threads = 2;
    config.lanes = 4;
    config.modules.push_back({"blind", PluginSpec::parse("lumi-blind")});
    auto registry = transitionsRegistry(journal, &seen);
    EventProcessor processor(std::move(config), registry);
    EXPECT_FALSE(processor.info().lumisTracked) << source;
    auto const summary = processor.run();
    ASSERT_FALSE(summary.failed) << summary.error;
    EXPECT_EQ(summary.eventsProcessed, 100u) << source;
    EXPECT_EQ(summary.lumis, 0u) << source;
  }
  EXPECT_EQ(seen.load(), 0);
}

// The same blind module beside one that watches lumis: then every event has its lumi.
TEST(UntrackedLumisTest, OneModuleThatWatchesLumisMakesTheJobTrackThem) {
  std::atomic<int> seen{0};
  Journal journal;
  JobConfig config;
  config.source = PluginSpec::parse("ids:lumis=1:1:30/1:2:30/2:1:40");
  config.lanes = 4;
  config.modules.push_back({"blind", PluginSpec::parse("lumi-blind")});
  config.modules.push_back({"recorder", PluginSpec::parse("recorder")});
  auto registry = transitionsRegistry(journal, &seen);
  EventProcessor processor(std::move(config), registry);
  EXPECT_TRUE(processor.info().lumisTracked);
  auto const summary = processor.run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.lumis, 3u);
  EXPECT_EQ(seen.load(), 100);
}

// ---------------------------------------------------------------- bad input

std::string errorOf(std::string const& source, unsigned lumiSlots = 2) {
  Journal journal;
  try {
    JobConfig config;
    config.source = PluginSpec::parse(source);
    config.concurrentLumis = lumiSlots;
    config.modules.push_back({"recorder", PluginSpec::parse("recorder")});
    auto registry = transitionsRegistry(journal);
    EventProcessor processor(std::move(config), registry);
    auto const summary = processor.run();
    return summary.failed ? summary.error : "";
  } catch (Exception const& error) {
    return error.what();
  }
}

TEST(TransitionsBadInputTest, EachIsRefusedInOneLine) {
  EXPECT_NE(errorOf("numbered:events=10", 0).find("--concurrent-lumis must be at least 1"), std::string::npos);
  EXPECT_NE(errorOf("numbered:events=10,first-run=0").find("'first-run': '0' is not a run number from 1"),
            std::string::npos);
  EXPECT_NE(errorOf("numbered:events=10,events-per-lumi=0").find("a length of at least 1 event"), std::string::npos);
  EXPECT_NE(errorOf("numbered:events=10,events-per-lumi=uniform:5:2").find("uniform:A:B with A <= B"),
            std::string::npos);
  EXPECT_NE(errorOf("numbered:events=10,events-per-lumi=ten").find("'events-per-lumi': 'ten' is not a number of events"),
            std::string::npos);
  EXPECT_NE(errorOf("numbered:events=10,lumi-seed=3").find("lumi-seed' applies only to events-per-lumi=uniform"),
            std::string::npos);
  EXPECT_NE(errorOf("ids:lumis=1:1:4,events-per-lumi=2").find("apply to sources whose events are numbered in order"),
            std::string::npos);
  auto const zero = errorOf("ids:lumis=1:1:4/1:0:3");
  EXPECT_NE(zero.find("(the input's event 5) has lumi number 0: runs and lumis count from 1"), std::string::npos) << zero;
  EXPECT_NE(errorOf("ids:lumis=0:1:2,stretches=false").find("has run number 0"), std::string::npos);
  for (auto const& error : {errorOf("numbered:events=10", 0), zero}) EXPECT_EQ(error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace lanes::test
