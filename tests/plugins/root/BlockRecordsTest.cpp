// The records of runs and lumis (BlockRecords.h, InputBlocks.h): a record
// that comes back merges a module's product, keeps a source's once, and
// refuses one that cannot merge; the input's stretches place the lumis
// recorded without events among their run's. Under contention, 1, 2 and 4 threads with four
// lanes each and three lumis in flight end many short lumis (some empty) on
// any thread: root-events holds one record per lumi and run, whose events
// add up to the job's and whose lumi_events is its events, and the file read
// back into pds (its lumis interleaved as the lanes finished them, so that
// they come back) holds the same records.

#include <gtest/gtest.h>

#include <TFile.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "lanes/core/Exception.h"
#include "pds/PdsFormat.h"
#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"
#include "root/BlobReader.h"
#include "root/EventBlobs.h"
#include "root/InputBlocks.h"

namespace lanes::rootio::test {
namespace {

// A set of lumi records of one product, a std::uint64_t that a module put
// (merged) or that the source read (`fromSource`: kept once).
RecordSet numbers(bool fromSource, bool mergeable = true) {
  std::vector<RecordSet::Product> products(1);
  auto& product = products.front();
  product.label = "n";
  product.type = "ULong64_t";
  product.serializer = makeSerializer(SerializationKind::Root, rootTypeOf("n", typeid(std::uint64_t), ""), "n");
  product.merge = mergeable ? mergerOf<std::uint64_t>() : nullptr;
  product.fromSource = fromSource;
  return RecordSet(Level::Lumi, std::move(products));
}

// A record of lumi 1:`lumi` with `events` events whose product is `value` (none: not put).
BlockRecord record(RecordSet const& set, std::uint32_t lumi, std::uint64_t events, std::optional<std::uint64_t> value) {
  BlockRecord made{{1, lumi}, events, {}, {}};
  if (!value) {
    made.sizes.push_back(kNotPut);
    return made;
  }
  set.products().front().serializer->write(&*value, made.blob);
  made.sizes.push_back(static_cast<std::uint32_t>(made.blob.size()));
  return made;
}

std::uint64_t valueOf(RecordSet const& set, BlockRecord const& stored) {
  ProductSlot slot;
  set.products().front().serializer->read(stored.blob.data(), stored.sizes.front(), slot);
  return *static_cast<std::uint64_t const*>(slot.object());
}

TEST(RecordSetTest, ALumiThatComesBackMergesWhatModulesPutAndKeepsWhatTheSourceRead) {
  for (bool const fromSource : {false, true}) {
    auto set = numbers(fromSource);
    set.add(record(set, 2, 3, 30));
    set.add(record(set, 1, 1, std::nullopt));
    set.add(record(set, 2, 4, 40));
    set.add(record(set, 1, 2, 7));
    auto const stored = set.stored();
    ASSERT_EQ(stored.records.size(), 2u);
    EXPECT_EQ(stored.records[0].number.luminosityBlock, 1u);  // in (run, lumi) order
    EXPECT_EQ(stored.records[0].events, 3u);
    EXPECT_EQ(valueOf(set, stored.records[0]), 7u);  // the entry that lacked it takes the other's
    EXPECT_EQ(stored.records[1].events, 7u);
    EXPECT_EQ(valueOf(set, stored.records[1]), fromSource ? 30u : 70u);
  }
}

TEST(RecordSetTest, AProductThatCannotMergeIsNamed) {
  auto set = numbers(false, false);
  set.add(record(set, 5, 1, 1));
  set.add(record(set, 5, 1, std::nullopt));  // one put is no merge
  auto const error = mimicry::test::errorOf([&] { set.add(record(set, 5, 1, 2)); });
  mimicry::test::expectMentions(error, {"lumi product 'n' of lumi 1:5 comes twice", "cannot be merged"});
}

TEST(InputBlocksTest, StretchesComeFromTheIdsAndLumisRecordedWithoutEventsJoinTheirRun) {
  InputBlocks blocks;
  std::uint32_t const runs[] = {1, 1, 1, 2, 2, 1};
  std::uint32_t const lumis[] = {1, 1, 4, 1, 1, 1};
  blocks.addEvents(runs, lumis, 6);
  BlockRecords records{true, {}, {}};
  for (auto const& number :
       {LumiNumber{1, 2}, LumiNumber{1, 3}, LumiNumber{1, 4}, LumiNumber{2, 5}, LumiNumber{3, 1}}) {
    records.lumis.records.push_back({number, 0, {}, {}});
  }
  blocks.addRecords(std::move(records), "in.root", SerializationKind::Root);
  blocks.finish();
  auto const first = blocks.stretchAt(1);
  EXPECT_EQ(first.lumi, (LumiNumber{1, 1}));
  EXPECT_EQ(std::make_pair(first.first, first.end), std::make_pair(std::uint64_t{0}, std::uint64_t{2}));
  EXPECT_TRUE(first.emptyBefore.empty());
  auto const second = blocks.stretchAt(2);  // 1:2 and 1:3 have no events: before 1:4
  EXPECT_EQ(second.emptyBefore, (std::vector<LumiNumber>{{1, 2}, {1, 3}}));
  EXPECT_EQ(second.lumi, (LumiNumber{1, 4}));
  EXPECT_EQ(blocks.stretchAt(4).lumi, (LumiNumber{2, 1}));
  auto const back = blocks.stretchAt(5);  // 1:1 comes back, after 2:5 closes run 2
  EXPECT_EQ(back.lumi, (LumiNumber{1, 1}));
  EXPECT_EQ(back.emptyBefore, (std::vector<LumiNumber>{{2, 5}}));
  auto const end = blocks.stretchAt(6);  // run 3 has no events, and no greater number follows: at the input's end
  EXPECT_EQ(std::make_pair(end.first, end.end), std::make_pair(std::uint64_t{6}, std::uint64_t{6}));
  EXPECT_EQ(end.emptyBefore, (std::vector<LumiNumber>{{3, 1}}));
}

void expectSameRecords(LevelRecords const& actual, LevelRecords const& expected) {
  EXPECT_EQ(actual.products, expected.products);
  ASSERT_EQ(actual.records.size(), expected.records.size());
  for (std::size_t r = 0; r < actual.records.size(); ++r) {
    auto const& a = actual.records[r];
    auto const& e = expected.records[r];
    EXPECT_EQ(a.number, e.number);
    EXPECT_EQ(a.events, e.events);
    EXPECT_EQ(a.sizes, e.sizes);
    EXPECT_EQ(a.blob, e.blob);
  }
}

class BlockRecordsJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(BlockRecordsJobTest, RunAndLumiRecordsAreWrittenOnceEachAndReadBack) {
  auto const threads = GetParam();
  ScratchDirectory scratch;
  auto const path = scratch.path("lumis.root"), copy = scratch.path("lumis.pds");
  auto config = rootJob("test-products:events=301,events-per-lumi=uniform:0:9,lumis-per-run=7",
                        {"root-events:file=" + path + ",batch=5"}, threads, 4 * threads);
  config.concurrentLumis = 3;
  config.modules.push_back({"lumis", PluginSpec::parse("test-lumi-products")});
  auto const written = mimicry::test::runJob(config);
  ASSERT_FALSE(written.failed) << written.error;
  std::unique_ptr<TFile> file(TFile::Open(path.c_str()));
  ASSERT_TRUE(file && !file->IsZombie());
  auto const records = readRecords(*file, path);
  ASSERT_TRUE(records.kept);
  ASSERT_EQ(records.lumis.products.front().first, "lumi_events");
  auto const lumiEvents = storedProduct(path, "lumi_events", "ULong64_t", SerializationKind::Root);
  std::set<LumiNumber> numbers;
  std::uint64_t events = 0, empty = 0;
  for (auto const& record : records.lumis.records) {
    EXPECT_TRUE(numbers.insert(record.number).second);
    events += record.events;
    empty += record.events == 0;
    ProductSlot slot;
    lumiEvents.serializer->read(record.blob.data(), record.sizes.front(), slot);
    EXPECT_EQ(*static_cast<std::uint64_t const*>(slot.object()), record.events);
  }
  EXPECT_EQ(events, 301u);
  EXPECT_EQ(numbers.size(), written.lumis);
  EXPECT_EQ(empty, written.emptyLumis);
  EXPECT_EQ(records.runs.records.size(), written.runs);

  auto const read =
      mimicry::test::runJob(rootJob("root-events:file=" + path, {"pds:file=" + copy}, threads, 4 * threads));
  ASSERT_FALSE(read.failed) << read.error;
  EXPECT_EQ(read.lumis - read.repeatedLumis, written.lumis);
  auto const copied = pds::recordsIn(copy);
  expectSameRecords(copied.lumis, records.lumis);
  expectSameRecords(copied.runs, records.runs);
}

INSTANTIATE_TEST_SUITE_P(Threads, BlockRecordsJobTest, ::testing::Values(1u, 2u, 4u),
                         [](auto const& info) { return std::to_string(info.param) + "threads"; });

}  // namespace
}  // namespace lanes::rootio::test
