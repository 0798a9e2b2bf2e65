// The conditions service end to end: every event sees the payload of its
// own interval of validity, under contention (lumis of random lengths, several
// lumis and intervals in flight, payloads that take time to load), and the bad
// records are refused.

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "lanes/core/Conditions.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/Exception.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::test {
namespace {

// Events numbered by ordinal, for the job to put in runs and lumis.
class Numbered : public Source {
 public:
  explicit Numbered(Options const& options) : events_(static_cast<std::uint64_t>(options.getInt("events", 100))) {}
  bool next(SourceEvent& event) override { return at(next_++, event); }
  bool at(std::uint64_t ordinal, SourceEvent& event) override {
    if (ordinal >= events_) return false;
    event.id = {1, 1, ordinal + 1};
    event.entry = ordinal;
    return true;
  }
  void read(SourceEvent const&, std::size_t, ProductSlot&) override {}
  bool concurrentReads() const override { return true; }
  std::unique_ptr<Source> replicate() const override { return std::make_unique<Numbered>(*this); }
  std::optional<std::uint64_t> eventCount() const override { return events_; }
  bool numbersByOrdinal() const override { return true; }

 private:
  std::uint64_t events_;
  std::uint64_t next_ = 0;
};

// Checks that each event's payload of record "calib" is its interval's: a
// new one every `every` lumis of a run, its words those of that interval.
class IntervalCheck : public global::Analyzer {
 public:
  IntervalCheck(std::string const& label, Options const& options, std::atomic<int>& checked)
      : Analyzer(label), calib_(consumesConditions("calib")), every_(options.getInt("every", 1)), checked_(checked) {}
  void analyze(Event const& event) const override {
    auto const& payload = event.conditions(calib_);
    auto const& id = event.id();
    auto const block = (id.luminosityBlock - 1) / every_;
    auto const interval = (std::uint64_t{id.run} << 32) | block;
    if (payload.interval() != interval || payload.first().run != id.run ||
        payload.first().luminosityBlock != block * every_ + 1 || payload.words().empty() ||
        payload.words().back() != ConditionsPayload::value(interval, payload.words().size() - 1)) {
      throw std::runtime_error("event " + id.str() + " sees the payload of interval " + std::to_string(payload.interval()));
    }
    checked_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  ConditionsToken calib_;
  std::uint64_t every_;
  std::atomic<int>& checked_;
};

struct Job {
  std::atomic<int> checked{0};
  PluginRegistry registry;
  Job() {
    registry.addSource({"numbered", ""}, [](Options const& options) { return std::make_unique<Numbered>(options); });
    registry.addModule({"interval-check", ""}, [this](std::string const& label, Options const& options) {
      return std::unique_ptr<Module>(constructModule<IntervalCheck>(label, options, checked));
    });
  }
  RunSummary run(JobConfig config) {
    EventProcessor processor(std::move(config), registry);
    return processor.run();
  }
};

JobConfig checkedJob(std::string const& source, ConditionsRecordSpec record, unsigned lanes, unsigned lumis) {
  JobConfig config;
  config.source = PluginSpec::parse(source);
  config.threads = 4;
  config.lanes = lanes;
  config.concurrentLumis = lumis;
  config.modules.push_back({"check", PluginSpec::parse("interval-check:every=" + std::to_string(record.everyLumis))});
  config.conditions.push_back(std::move(record));
  return config;
}

struct Contention {
  unsigned lanes;
  unsigned lumis;
  unsigned iovs;
};

class ConditionsContentionTest : public ::testing::TestWithParam<Contention> {};

TEST_P(ConditionsContentionTest, EveryEventSeesThePayloadOfItsOwnInterval) {
  Job job;
  ConditionsRecordSpec calib;
  calib.name = "calib";
  calib.everyLumis = 2;
  calib.bytes = 4096;
  calib.loadSeconds = 0.0005;  // long enough that events arrive while a payload loads
  calib.concurrentIovs = GetParam().iovs;
  auto const summary = job.run(checkedJob("numbered:events=400,events-per-lumi=uniform:1:9,lumi-seed=4,lumis-per-run=7",
                                          calib, GetParam().lanes, GetParam().lumis));
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(job.checked.load(), 400);
  ASSERT_EQ(summary.conditions.size(), 1u);
  auto const& record = summary.conditions[0];
  EXPECT_EQ(record.record, "calib");
  EXPECT_EQ(record.concurrentIovs, GetParam().iovs);
  // Every interval loads at least once; one that comes back after its slot held another loads again.
  EXPECT_GE(record.loads, summary.lumis / 2 / 2);
  EXPECT_LE(record.loads, summary.lumis);
}

INSTANTIATE_TEST_SUITE_P(LanesLumisIovs, ConditionsContentionTest,
                         ::testing::Values(Contention{1, 1, 1}, Contention{8, 1, 1}, Contention{8, 3, 1},
                                           Contention{8, 3, 2}, Contention{16, 4, 3}, Contention{3, 2, 2}),
                         [](auto const& info) {
                           return std::to_string(info.param.lanes) + "lanes_" + std::to_string(info.param.lumis) +
                                  "lumis_" + std::to_string(info.param.iovs) + "iovs";
                         });

TEST(ConditionsTest, ATableGivesEachLumiTheIntervalThatHoldsIt) {
  // Intervals at 1:1, 1:4 and 2:2; lumis of 5 events, 3 a run: 1:1-1:3 see the first, 2:1 the second.
  class TableCheck : public global::Analyzer {
   public:
    TableCheck(std::string const& label, Options const&) : Analyzer(label), calib_(consumesConditions("calib")) {}
    void analyze(Event const& event) const override {
      auto const& id = event.id();
      LumiNumber const lumi{id.run, id.luminosityBlock};
      std::uint64_t const expected = lumi < LumiNumber{1, 4} ? 0 : lumi < LumiNumber{2, 2} ? 1 : 2;
      if (event.conditions(calib_).interval() != expected) throw std::runtime_error("wrong interval at " + id.str());
      if (event.conditions(calib_).words().size() != (expected == 1 ? 2u : 8u)) throw std::runtime_error("wrong size");
    }

   private:
    ConditionsToken calib_;
  };
  Job job;
  job.registry.addModule({"table-check", ""}, [](std::string const& label, Options const& options) {
    return std::unique_ptr<Module>(constructModule<TableCheck>(label, options));
  });
  JobConfig config;
  config.source = PluginSpec::parse("numbered:events=60,events-per-lumi=5,lumis-per-run=3");
  config.threads = 2;
  config.modules.push_back({"check", PluginSpec::parse("table-check")});
  ConditionsRecordSpec calib;
  calib.name = "calib";
  calib.bytes = 64;
  calib.table = {{{1, 1}, 0}, {{1, 4}, 16}, {{2, 2}, 0}};
  config.conditions.push_back(calib);
  auto const summary = job.run(config);
  EXPECT_FALSE(summary.failed) << summary.error;
}

std::string errorOf(Job& job, JobConfig config) {
  try {
    auto const summary = job.run(std::move(config));
    return summary.failed ? summary.error : "";
  } catch (Exception const& error) {
    return error.what();
  }
}

TEST(ConditionsTest, BadRecordsAreRefusedInOneLine) {
  ConditionsRecordSpec calib;
  calib.name = "calib";
  calib.everyLumis = 1;
  {
    Job job;
    auto config = checkedJob("numbered:events=10", calib, 1, 1);
    config.conditions.clear();
    EXPECT_NE(errorOf(job, config).find("module 'check' reads conditions record 'calib', which the job does not have"),
              std::string::npos);
  }
  auto refused = [&](ConditionsRecordSpec record) {
    Job job;
    return errorOf(job, checkedJob("numbered:events=10", std::move(record), 1, 1));
  };
  auto unordered = calib;
  unordered.everyLumis = 0;
  unordered.table = {{{1, 5}, 0}, {{1, 5}, 0}};
  EXPECT_NE(refused(unordered).find("interval 2 begins at 1:5, not after 1:5: intervals must be in order and must not overlap"),
            std::string::npos);
  unordered.table = {{{2, 1}, 0}, {{1, 9}, 0}};
  EXPECT_NE(refused(unordered).find("not after 2:1"), std::string::npos);
  auto none = calib;
  none.everyLumis = 0;
  EXPECT_NE(refused(none).find("give its intervals: every=N lumis, or a table=FILE of them"), std::string::npos);
  auto noSlots = calib;
  noSlots.concurrentIovs = 0;
  EXPECT_NE(refused(noSlots).find("concurrent-iovs must be at least 1"), std::string::npos);
  // A table that holds no lumi of the job: its first lumi fails the job, naming the record and the lumi.
  auto late = calib;
  late.everyLumis = 0;
  late.table = {{{7, 1}, 0}};
  auto const error = refused(late);
  EXPECT_NE(error.find("conditions record 'calib': no interval holds lumi 1:1 (its table begins at 7:1)"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace lanes::test
