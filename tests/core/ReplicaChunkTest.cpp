// A replicated source that asks for chunks (Source::replicaChunk) gets runs
// of consecutive ordinals per lane, and still every event exactly once: when
// one lane finds the input's end, the others finish the runs they claimed
// below it, and a lane that has finished takes the back half of another's
// run (ClaimedRuns::steal); a stop ends the runs at once.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

#include "TestPlugins.h"

namespace lanes::test {
namespace {

JobConfig chunkedJob(int events, int chunk, unsigned threads, unsigned lanes) {
  auto config = job("count:events=" + std::to_string(events) + ",chunk=" + std::to_string(chunk));
  config.threads = threads;
  config.lanes = lanes;
  config.modules.push_back({"probe", PluginSpec::parse("global-probe")});
  config.paths.push_back({"p", {"probe"}});
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  return config;
}

long sumUpTo(long n) { return n * (n + 1) / 2; }

// Reads the source's "blob" product, so that a lane has two modules reading
// two products of its source copy at once (the other reads "n").
class BlobReader : public global::Analyzer {
 public:
  explicit BlobReader(std::string const& label) : Analyzer(label), blob_(consumes<SyntheticBytes>("blob")) {}
  void analyze(Event const& event) const override { (void)event.get(blob_); }

 private:
  ProductToken<SyntheticBytes> blob_;
};

TEST(ReplicaChunkTest, ALanesModulesReadItsSourceCopyOneAtATime) {
  // A lane's copy of a file source is one file handle: its two modules run
  // on two threads, and must not be inside read() together.
  Observations observations;
  auto registry = testRegistry(observations);
  registry.addModule({"blob-reader", ""}, [](std::string const& label, Options const&) {
    return std::unique_ptr<Module>(new BlobReader(label));
  });
  auto config = job("count:events=3000");
  config.threads = 2;
  config.lanes = 1;
  config.modules.push_back({"sum", PluginSpec::parse("add:in=n")});
  config.modules.push_back({"bytes", PluginSpec::parse("blob-reader")});
  config.paths.push_back({"p1", {"sum"}});  // two paths run side by side
  config.paths.push_back({"p2", {"bytes"}});
  auto const summary = EventProcessor(config, registry).run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 3000u);
  EXPECT_EQ(observations.overlappingReads.load(), 0);
}

// The first claim shorter than a chunk: a lumi's last events are shared out
// among the lanes (Boundaries::share), fewer than a chunk each once fewer
// than lanes x chunk are left, so the claims from there on are not aligned.
std::uint64_t firstSharedOutClaim(JobConfig const& config, std::uint64_t chunkSize) {
  auto const lumiEvents = static_cast<std::uint64_t>(config.source.options.getInt("events", 0));  // one lumi
  std::uint64_t first = 0;
  while (first < lumiEvents && (lumiEvents - first + config.lanes - 1) / config.lanes >= chunkSize) first += chunkSize;
  return first;
}

// Every ordinal was positioned once, and the lanes began the aligned chunks
// in order, each lane going forwards: a stolen half never begins at a chunk's
// start, and a lane steals only once no chunk is left to claim. Checked for
// the chunks up to the first claim that is not one (firstSharedOutClaim):
// past it, a stolen half may begin at a multiple of the chunk.
void expectAlignedRuns(Observations const& observations, std::uint64_t events, std::uint64_t chunkSize,
                       std::uint64_t alignedUpTo) {
  ASSERT_EQ(observations.positions.size(), events);
  std::map<void const*, std::uint64_t> lastOfReplica;
  std::set<std::uint64_t> seen;
  for (auto const& [replica, ordinal] : observations.positions) {
    EXPECT_TRUE(seen.insert(ordinal).second) << "ordinal " << ordinal << " positioned twice";
    auto [last, none] = lastOfReplica.try_emplace(replica, ordinal);
    if (ordinal % chunkSize == 0 && ordinal <= alignedUpTo) {
      EXPECT_TRUE(none || last->second < ordinal) << "a lane went back to begin chunk " << ordinal / chunkSize;
    }
    last->second = ordinal;
  }
}

// Runs `config` (of `events` events): every event once, in runs of `run`.
void expectRunsOf(JobConfig const& config, std::uint64_t events, std::uint64_t run) {
  Observations observations;
  auto const summary = EventProcessor(config, testRegistry(observations)).run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, events);
  EXPECT_EQ(observations.checksum.load(), sumUpTo(static_cast<long>(events)));
  EXPECT_EQ(observations.replicaChunk.load(), run);
  expectAlignedRuns(observations, events, run, firstSharedOutClaim(config, run));
}

TEST(ReplicaChunkTest, TheLanesBeginTheAlignedChunksInOrder) { expectRunsOf(chunkedJob(1000, 100, 2, 4), 1000, 100); }

// Which lanes held and released (Holder); guarded by `mutex`.
struct HoldState {
  std::mutex mutex;
  std::condition_variable wake;
  bool released = false;
  unsigned heldOn = 0, releasedOn = 0;
};

// Holds event `hold` until event `release` has been analysed: the lane of
// the held event goes no further until another lane takes `release` from
// its run. Gives up after a minute (a failed event, not a hung test).
class Holder : public global::Analyzer {
 public:
  Holder(std::string const& label, Options const& options, HoldState& state)
      : Analyzer(label),
        n_(consumes<int>("n")),
        hold_(options.getInt("hold", 0)),
        release_(options.getInt("release", 0)),
        state_(&state) {}
  void analyze(Event const& event) const override {
    auto const number = event.get(n_);
    std::unique_lock lock(state_->mutex);
    if (number == release_) {
      state_->released = true;
      state_->releasedOn = event.lane();
      state_->wake.notify_all();
    }
    if (number != hold_) return;
    state_->heldOn = event.lane();
    if (!state_->wake.wait_for(lock, std::chrono::minutes(1), [this] { return state_->released; })) {
      throw std::runtime_error("event " + std::to_string(release_) + " never came: no lane took the held lane's run");
    }
  }

 private:
  ProductToken<int> n_;
  int hold_, release_;
  HoldState* state_;
};

TEST(ReplicaChunkTest, ALaneThatHasFinishedTakesTheBackHalfOfAnothersRun) {
  // Two lanes, two runs of 1000: the first lane stops at its second event
  // until the last event of its run is done, which only the other lane,
  // once through its own run, can take from it.
  Observations observations;
  HoldState state;
  auto registry = testRegistry(observations);
  registry.addModule({"hold", ""}, [&state](std::string const& label, Options const& options) {
    return std::unique_ptr<Module>(new Holder(label, options, state));
  });
  auto config = chunkedJob(2000, 1000, 2, 2);
  config.modules.push_back({"holder", PluginSpec::parse("hold:hold=2,release=1000")});
  config.paths.push_back({"q", {"holder"}});
  auto const summary = EventProcessor(config, registry).run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 2000u);
  EXPECT_EQ(observations.checksum.load(), sumUpTo(2000));
  EXPECT_NE(state.heldOn, state.releasedOn);
  EXPECT_GE(summary.runsStolen, 1u);
  expectAlignedRuns(observations, 2000, 1000, firstSharedOutClaim(config, 1000));
}

TEST(ReplicaChunkTest, AShortJobsEventsAreSharedOutAmongTheLanes) {
  // A chunk of 1000 (a file's whole cluster) would give all of a 100-event
  // job to one lane; each of the 4 lanes claims at most 25 at a time.
  auto config = chunkedJob(1000, 1000, 2, 4);
  config.maxEvents = 100;
  expectRunsOf(config, 100, 25);
}

TEST(ReplicaChunkTest, ASourceWithoutAChunkOfItsOwnIsClaimedAFewEventsAtATime) {
  // One claim per event would bounce the claims' counter between the threads'
  // caches at top speed: such a source gets runs of 16 (Schedule::kLeastRun),
  // each read by one lane in order, here with more lanes than threads.
  expectRunsOf(chunkedJob(1000, 1, 4, 8), 1000, 16);
}

TEST(ReplicaChunkTest, LanesFinishTheirRunsWhenAnotherFindsTheEnd) {
  // The input ends inside a chunk, so the lane holding that chunk finds the
  // end while others still hold runs below it. Repeated, because which lane
  // finds it first depends on the threads.
  for (int attempt = 0; attempt < 20; ++attempt) {
    Observations observations;
    auto const summary = EventProcessor(chunkedJob(1050, 40, 2, 4), testRegistry(observations)).run();
    ASSERT_FALSE(summary.failed) << summary.error;
    ASSERT_EQ(summary.eventsProcessed, 1050u) << "attempt " << attempt;
    ASSERT_EQ(observations.checksum.load(), sumUpTo(1050)) << "attempt " << attempt;
  }
}

TEST(ReplicaChunkTest, MaxEventsCutsTheLastRun) {
  Observations observations;
  auto config = chunkedJob(1000, 100, 2, 2);
  config.maxEvents = 250;
  auto const summary = EventProcessor(config, testRegistry(observations)).run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 250u);
  EXPECT_EQ(observations.checksum.load(), sumUpTo(250));
}

TEST(ReplicaChunkTest, AStopEndsTheClaimedRuns) {
  Observations observations;
  auto const summary = runStoppingAfter(chunkedJob(100000, 1000, 2, 2), testRegistry(observations), 3);
  EXPECT_TRUE(summary.stopRequested);
  EXPECT_GE(summary.eventsProcessed, 3u);
  EXPECT_LE(summary.eventsProcessed, 3u + 2u);  // at most one more per lane in flight
}

TEST(ReplicaChunkTest, AFailureEndsTheClaimedRun) {
  Observations observations;
  auto config = chunkedJob(1000, 1000, 1, 1);
  config.modules.push_back({"boom", PluginSpec::parse("throw:at=5")});
  config.paths.push_back({"q", {"boom"}});
  auto const summary = EventProcessor(config, testRegistry(observations)).run();
  EXPECT_TRUE(summary.failed);
  EXPECT_EQ(observations.outputWrites.load(), 4);  // events 1-4; the run of 1000 ends at event 5
}

}  // namespace
}  // namespace lanes::test
