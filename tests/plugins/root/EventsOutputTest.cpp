// The root-events output and source under contention: 1, 2 and 4 threads with
// four lanes each write test products (products serialised concurrently,
// batches compressed by tasks) and read them back; every event arrives once
// and check-products finds every value; two files read as one, events of
// the first still in flight when the source moves to the second.

#include <gtest/gtest.h>

#include <TFile.h>
#include <TTree.h>

#include <memory>
#include <utility>

#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"

namespace lanes::rootio::test {
namespace {

class EventsOutputTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(EventsOutputTest, EveryEventIsWrittenOnceAndReadsBackExactly) {
  auto const threads = GetParam();
  ScratchDirectory scratch;
  auto const path = scratch.path("events.root");
  for (auto const* compress : {"product", "both"}) {
    auto const written = mimicry::test::runJob(
        rootJob("test-products:events=301",
                {"root-events:file=" + path + ",compression=zstd,batch=7,compress=" + compress}, threads, 4 * threads));
    ASSERT_FALSE(written.failed) << written.error;
    {
      std::unique_ptr<TFile> file(TFile::Open(path.c_str()));
      ASSERT_TRUE(file && !file->IsZombie());
      EXPECT_EQ(file->Get<TTree>("EventBlobs")->GetEntries(), 43);  // 301 = 43 x 7
    }
    auto const read = mimicry::test::runJob(rootJob("root-events:file=" + path, {"check-products"}, threads, 4 * threads));
    ASSERT_FALSE(read.failed) << read.error;
    EXPECT_EQ(read.eventsProcessed, 301u);
  }
}

// Two files read as one: the source closes the first as soon as it moves to
// the second, while lanes still open and deserialise events of its batches.
TEST_P(EventsOutputTest, SeveralFilesReadAsOneWhileEventsOfTheFirstAreInFlight) {
  auto const threads = GetParam();
  ScratchDirectory scratch;
  auto const first = scratch.path("first.root"), second = scratch.path("second.root");
  for (auto const& [path, settings] : {std::pair{first, ",compression=zstd,compress=batch,batch=5"},
                                       std::pair{second, ",serialization=unrolled,compression=lz4,compress=product"}}) {
    auto const written = mimicry::test::runJob(
        rootJob("test-products:events=97", {"root-events:file=" + path + settings}, threads, 4 * threads));
    ASSERT_FALSE(written.failed) << written.error;
  }
  auto const read = mimicry::test::runJob(
      rootJob("root-events:file=" + first + ",file=" + second, {"check-products"}, threads, 4 * threads));
  ASSERT_FALSE(read.failed) << read.error;
  EXPECT_EQ(read.eventsProcessed, 2 * 97u);
}

INSTANTIATE_TEST_SUITE_P(Threads, EventsOutputTest, ::testing::Values(1u, 2u, 4u),
                         [](auto const& info) { return std::to_string(info.param) + "threads"; });

}  // namespace
}  // namespace lanes::rootio::test
