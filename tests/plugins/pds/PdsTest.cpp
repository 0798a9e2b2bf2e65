// The pds output and source under contention: 1, 2 and 4 threads with four
// lanes each write test products (products serialised concurrently, batches
// compressed by tasks, records written by one task at a time) and read them
// back through one shared handle and a handle per lane; every event arrives
// once and check-products finds every value. And the format itself: a record
// reads back as it was written, and a file's records are found where they lie.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "pds/PdsFormat.h"
#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"

namespace lanes::pds::test {
namespace {

using rootio::test::rootJob;
using rootio::test::ScratchDirectory;

class PdsTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(PdsTest, EveryEventIsWrittenOnceAndReadsBackExactly) {
  auto const threads = GetParam();
  ScratchDirectory scratch;
  auto const path = scratch.path("events.pds");
  for (auto const* compress : {"product", "both"}) {
    auto const written = mimicry::test::runJob(
        rootJob("test-products:events=301", {"pds:file=" + path + ",compression=zstd,batch=7,compress=" + compress},
                threads, 4 * threads));
    ASSERT_FALSE(written.failed) << written.error;
    PdsFile file(path);
    EXPECT_EQ(file.readHeader().products.size(), 10u);
    auto const places = file.scan();
    auto const batches =
        std::count_if(places.begin(), places.end(), [](RecordPlace const& place) { return place.events > 0; });
    EXPECT_EQ(batches, 43);              // 301 = 43 x 7
    EXPECT_EQ(places.size(), 43u + 2u);  // and the records of the job's one lumi and one run
    for (auto const* handles : {"shared", "lane"}) {
      auto const read = mimicry::test::runJob(
          rootJob("pds:file=" + path + ",handles=" + handles, {"check-products"}, threads, 4 * threads));
      ASSERT_FALSE(read.failed) << read.error;
      EXPECT_EQ(read.eventsProcessed, 301u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, PdsTest, ::testing::Values(1u, 2u, 4u),
                         [](auto const& info) { return std::to_string(info.param) + "threads"; });

TEST(PdsFormatTest, ARecordReadsBackAsItWasWritten) {
  rootio::BlobBatch batch;
  batch.run = {1, 2};
  batch.luminosityBlock = {3, 4};
  batch.event = {5, 6ull << 40};
  batch.blob = {'a', 'b', 'c', 'd', 'e'};
  batch.events = {0, 2, 5};
  batch.sizes = {1, 1, 2, 1};
  ScratchDirectory scratch;
  auto const path = scratch.path("one.pds");
  {
    std::vector<char> bytes = encodeHeader({"root", "lz4", "event", {{"x", "Float_t"}, {"y", "Int_t"}}});
    encodeRecord(batch, bytes);
    encodeRecord(batch, bytes);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  PdsFile file(path);
  auto const header = file.readHeader();
  EXPECT_EQ(header.compression, "lz4");
  ASSERT_EQ(header.products.size(), 2u);
  EXPECT_EQ(header.products[1].second, "Int_t");
  auto const places = file.scan();
  ASSERT_EQ(places.size(), 2u);
  EXPECT_EQ(places[1].first, 2u);
  auto const read = file.readRecord(1, places[1], 2);
  EXPECT_EQ(read.event, batch.event);
  EXPECT_EQ(read.luminosityBlock, batch.luminosityBlock);
  EXPECT_EQ(read.events, batch.events);
  EXPECT_EQ(read.sizes, batch.sizes);
  EXPECT_EQ(read.blob, batch.blob);
  EXPECT_EQ(eventsIn(path), 4u);
  EXPECT_EQ(eventsIn(scratch.path("missing.pds")), std::nullopt);
}

}  // namespace
}  // namespace lanes::pds::test
