// What a thread runs now, for the report of a fatal signal: the note's text,
// nested notes, one note per thread under contention, and the notes the
// scheduler sets around each call into a module and the source.

#include "lanes/core/RunningNote.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "TestPlugins.h"

namespace lanes::test {
namespace {

std::string described(RunningNote const* note) {
  char buffer[512] = "";
  appendRunning(note, buffer, sizeof buffer);
  return buffer;
}

std::string described(RunningNote const& note) { return described(&note); }

TEST(RunningNote, NamesTheModuleItsTransitionLaneAndEvent) {
  RunnerName const module{"crash", "crashing", 3};
  RunnerName const source{"source", "root", RunnerName::kSource};
  EventId const id{1, 2, 12345678901234};
  EXPECT_EQ(described(nullptr), "");
  EXPECT_EQ(described({&module, Transition::Event, 1, &id, nullptr}),
            "module 'crash' (plugin 'crashing', event, lane 1, event 1:2:12345678901234)");
  EXPECT_EQ(described({&module, Transition::BeginJob, -1, nullptr, nullptr}), "module 'crash' (plugin 'crashing', beginJob)");
  EXPECT_EQ(described({&source, Transition::SourceNext, 0, nullptr, nullptr}), "source (plugin 'root', source next, lane 0)");
}

TEST(RunningNote, AppendsWhatFits) {
  RunnerName const module{"a-rather-long-label", "p", 0};
  char buffer[20] = "at: ";
  RunningNote const note{&module, Transition::Event, -1, nullptr, nullptr};
  appendRunning(&note, buffer, sizeof buffer);
  EXPECT_EQ(std::string(buffer), "at: module 'a-rathe");
}

TEST(RunningScope, RestoresTheNoteItReplaced) {
  RunnerName const outer{"outer", "p", 0}, inner{"inner", "p", 1};
  EXPECT_EQ(runningNow(), nullptr);
  {
    RunningScope const a(outer, Transition::Event, 0);
    {
      RunningScope const b(inner, Transition::ProductReady, 1);
      EXPECT_EQ(runningNow()->runner, &inner);
      EXPECT_EQ(runningNow()->lane, 1);
      EXPECT_EQ(runningNow()->outer->runner, &outer);
    }
    EXPECT_EQ(runningNow()->runner, &outer);
    EXPECT_EQ(runningNow()->transition, Transition::Event);
  }
  EXPECT_EQ(runningNow(), nullptr);
}

class RunningScopeThreads : public testing::TestWithParam<unsigned> {};

TEST_P(RunningScopeThreads, EachThreadSeesItsOwnNote) {
  auto const threads = GetParam();
  std::vector<RunnerName> names;
  for (unsigned t = 0; t < threads; ++t) names.push_back({"m", "p", static_cast<int>(t)});
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int call = 0; call < 20000; ++call) {
        EventId const id{1, 1, static_cast<std::uint64_t>(call)};
        RunningScope const running(names[t], Transition::Event, static_cast<int>(t), &id);
        auto const* note = runningNow();
        if (note->runner != &names[t] || note->event != &id || note->lane != static_cast<int>(t)) ++wrong;
      }
      if (runningNow() != nullptr) ++wrong;
    });
  }
  for (auto& worker : workers) worker.join();
  EXPECT_EQ(wrong.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, RunningScopeThreads, testing::Range(1u, 5u));

// What the calls of a job saw as their thread's note. Thread-safe.
struct SeenNotes {
  std::mutex mutex;
  std::multiset<std::string> seen;
  void note() {
    std::lock_guard lock(mutex);
    seen.insert(described(runningNow()));
  }
};

// An analyzer that notes what its thread's note says in each of its calls.
class NoteProbe : public global::Analyzer {
 public:
  NoteProbe(std::string const& label, SeenNotes& seen) : Analyzer(label), seen_(seen) {
    consumes<int>("n");
    seen_.note();
  }
  void beginJob(JobContext const&) override { seen_.note(); }
  void analyze(Event const&) const override { seen_.note(); }
  void endJob() override { seen_.note(); }

 private:
  SeenNotes& seen_;
};

class RunningNoteInAJob : public testing::TestWithParam<unsigned> {};

TEST_P(RunningNoteInAJob, EachCallOfAModuleSeesItselfNamed) {
  auto const lanes = GetParam();
  Observations observations;
  SeenNotes seen;
  auto registry = testRegistry(observations);
  registry.addModule({"note-probe", ""}, [&seen](std::string const& label, Options const&) {
    return std::unique_ptr<Module>(new NoteProbe(label, seen));
  });
  auto config = job("count:events=40");
  config.threads = lanes;
  config.lanes = lanes;
  config.modules.push_back({"probe", PluginSpec::parse("note-probe")});
  EventProcessor processor(config, registry);
  auto const summary = processor.run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(runningNow(), nullptr);  // the job's thread runs nothing now
  std::multiset<std::string> expected{"module 'probe' (plugin 'note-probe', construction)",
                                      "module 'probe' (plugin 'note-probe', beginJob)",
                                      "module 'probe' (plugin 'note-probe', endJob)"};
  std::set<std::string> events;
  for (auto const& note : seen.seen) {
    if (expected.count(note)) continue;
    events.insert(note);
  }
  for (auto const& note : expected) EXPECT_EQ(seen.seen.count(note), 1u) << note;
  ASSERT_EQ(events.size(), 40u);  // each event's call named with its lane and event
  for (std::uint64_t e = 1; e <= 40; ++e) {
    auto const suffix = ", event 1:1:" + std::to_string(e) + ")";
    auto const named = std::count_if(events.begin(), events.end(), [&](std::string const& note) {
      return note.rfind("module 'probe' (plugin 'note-probe', event, lane ", 0) == 0 &&
             note.size() > suffix.size() && note.compare(note.size() - suffix.size(), suffix.size(), suffix) == 0;
    });
    EXPECT_EQ(named, 1) << "event " << e;
  }
}

INSTANTIATE_TEST_SUITE_P(Lanes, RunningNoteInAJob, testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::test
