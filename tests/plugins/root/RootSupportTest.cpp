// ROOT's fatal errors inside a ThrowOnRootFatal: an exception on the thread
// that read, never an abort of the process, also with many threads at once.
// JobImplicitMT: ROOT's tasks in the arena it was made in, on while held.

#include "root/RootSupport.h"

#include <ROOT/TTaskGroup.hxx>
#include <TClass.h>
#include <TError.h>
#include <TROOT.h>
#include <tbb/task_arena.h>

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lanes/core/Exception.h"

namespace lanes::rootio::test {
namespace {

std::string fatalMessage(std::string const& what) {
  try {
    Fatal("TTest::Read", "%s", what.c_str());
  } catch (Exception const& error) {
    return error.message();
  }
  return "no exception";
}

TEST(ThrowOnRootFatalTest, AFatalErrorThrowsWhatRootSaid) {
  initialiseRoot();
  ThrowOnRootFatal const guard;
  EXPECT_EQ(fatalMessage("capacity too large"), "ROOT fatal error in TTest::Read: capacity too large");
  EXPECT_EQ(takeRootMessage(), "");  // the exception carries it
}

TEST(ThrowOnRootFatalTest, NestedGuardsKeepThrowingUntilTheOutermostEnds) {
  initialiseRoot();
  ThrowOnRootFatal const outer;
  { ThrowOnRootFatal const inner; }
  EXPECT_EQ(fatalMessage("x"), "ROOT fatal error in TTest::Read: x");
}

TEST(ThrowOnRootFatalTest, ErrorsBelowFatalOnlyLeaveAMessage) {
  initialiseRoot();
  ThrowOnRootFatal const guard;
  EXPECT_NO_THROW(Error("TTest::Read", "bad basket"));
  EXPECT_EQ(takeRootMessage(), "TTest::Read: bad basket");
}

// A read during which ROOT reported an error failed, though ROOT carried on.
TEST(RootMessagesTest, ErrorsAreCountedAndKeptOverLaterWarnings) {
  initialiseRoot();
  takeRootMessage();
  auto const before = rootErrorsOnThisThread();
  Warning("TTest::Read", "odd");
  EXPECT_EQ(rootErrorsOnThisThread(), before);
  Error("TBufferFile::CheckByteCount", "read too many bytes");
  Warning("TTest::Read", "later");
  EXPECT_EQ(rootErrorsOnThisThread(), before + 1);
  EXPECT_EQ(takeRootMessage(), "TBufferFile::CheckByteCount: read too many bytes");
  Warning("TTest::Read", "alone");
  EXPECT_EQ(takeRootMessage(), "TTest::Read: alone");
}

// touchArray, which a TTree writer calls on every vector product before Fill().
TEST(FundamentalTest, TouchArrayReadsTheFirstElementOfAnyVector) {
  auto const& bools = *fundamentalByArray(typeid(std::vector<bool>));
  std::vector<bool> const none, yes{true, false}, no{false, true};
  EXPECT_FALSE(bools.touchArray(&none));
  EXPECT_TRUE(bools.touchArray(&yes));
  EXPECT_FALSE(bools.touchArray(&no));
  auto const& floats = *fundamentalByArray(typeid(std::vector<float>));
  std::vector<float> const positive{2.5f}, zero{0.f, 1.f};
  EXPECT_TRUE(floats.touchArray(&positive));
  EXPECT_FALSE(floats.touchArray(&zero));
}

// ROOT emulates a class it has no dictionary for, but aborts on some members
// (a collection of bool: EDataType 18); emulationProblem() says so instead.
TEST(EmulationProblemTest, NamesWhatRootCannotEmulate) {
  initialiseRoot();
  auto* boolList = TClass::GetClass("list<bool>");
  ASSERT_NE(boolList, nullptr);
  ASSERT_FALSE(boolList->HasDictionary());  // emulated here
  EXPECT_EQ(emulationProblem(boolList),
            "ROOT fatal error in TEmulatedCollectionProxy::WithCont: Unsupported value type 18 for value class <unknown>");
  // Elements are made only as a collection is read: the probe makes one of each held class too.
  EXPECT_NE(emulationProblem(TClass::GetClass("vector<list<bool> >")).find("Unsupported value type 18"), std::string::npos);
  EXPECT_EQ(emulationProblem(TClass::GetClass("vector<float>")), "");  // a dictionary
  EXPECT_EQ(emulationProblem(TClass::GetClass("list<short>")), "");   // emulated, and fine
  EXPECT_EQ(emulationProblem(nullptr), "");
}

TEST(ThrowOnRootFatalTest, EachThreadGetsItsOwnFatalError) {
  initialiseRoot();
  constexpr int kThreads = 8;
  constexpr int kRounds = 200;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &wrong] {
      for (int round = 0; round < kRounds; ++round) {
        ThrowOnRootFatal const guard;
        auto const what = std::to_string(t) + "/" + std::to_string(round);
        if (fatalMessage(what) != "ROOT fatal error in TTest::Read: " + what) ++wrong[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(kThreads, 0));
}

// Each case starts with IMT off, whatever ran before it in this process.
class JobImplicitMTTest : public ::testing::Test {
 protected:
  void SetUp() override {
    initialiseRoot();
    if (ROOT::IsImplicitMTEnabled()) ROOT::DisableImplicitMT();
  }
};

TEST_F(JobImplicitMTTest, RootsTasksRunInTheArenaItWasMadeIn) {
  // Three threads, more than this machine's cores: ROOT's own arena would have fewer.
  tbb::task_arena arena(3);
  std::atomic<int> concurrency{0};
  arena.execute([&] {
    JobImplicitMT const imt;
    EXPECT_TRUE(ROOT::IsImplicitMTEnabled());
    EXPECT_EQ(ROOT::GetThreadPoolSize(), 3u);
    ROOT::Experimental::TTaskGroup tasks;
    tasks.Run([&] { concurrency = tbb::this_task_arena::max_concurrency(); });
    tasks.Wait();
  });
  EXPECT_EQ(concurrency.load(), 3);
  EXPECT_FALSE(ROOT::IsImplicitMTEnabled());
}

TEST_F(JobImplicitMTTest, ImtStaysOnUntilTheLastHolderEnds) {
  tbb::task_arena arena(2);
  arena.execute([] {
    std::optional<JobImplicitMT> first(std::in_place), second(std::in_place);
    first.reset();
    EXPECT_TRUE(ROOT::IsImplicitMTEnabled());
    second.reset();
    EXPECT_FALSE(ROOT::IsImplicitMTEnabled());
  });
}

TEST_F(JobImplicitMTTest, ImtTurnedOnBeforeIsLeftOn) {
  tbb::task_arena arena(2);
  arena.execute([] {
    ROOT::EnableImplicitMT(ROOT::EIMTConfig::kExistingTBBArena);  // as a source's imt=true does, before the outputs
    { JobImplicitMT const imt; }
    EXPECT_TRUE(ROOT::IsImplicitMTEnabled());
  });
  ROOT::DisableImplicitMT();
}

TEST_F(JobImplicitMTTest, ManyThreadsHoldingAtOnceKeepItOnWhileAnyHolds) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 50;
  tbb::task_arena arena(kThreads, kThreads);  // a slot for each thread: they all hold at once
  std::atomic<int> offWhileHeld{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      arena.execute([&] {
        for (int round = 0; round < kRounds; ++round) {
          JobImplicitMT const imt;
          if (!ROOT::IsImplicitMTEnabled()) ++offWhileHeld;
        }
      });
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(offWhileHeld.load(), 0);
  EXPECT_FALSE(ROOT::IsImplicitMTEnabled());
}

}  // namespace
}  // namespace lanes::rootio::test
