// ROOT's fatal errors inside a ThrowOnRootFatal: an exception on the thread
// that read, never an abort of the process, also with many threads at once.

#include "root/RootSupport.h"

#include <TClass.h>
#include <TError.h>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace lanes::rootio::test
