// The pinning strategies on synthetic machines: counts, and the cache and
// NUMA constraints each one promises.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "lanes/core/Exception.h"
#include "lanes/node/PinningStrategy.h"
#include "node/topology/NodeTesting.h"

namespace lanes::node::test {
namespace {

std::map<unsigned, ProcessingUnit> byOs(Topology const& topology) {
  std::map<unsigned, ProcessingUnit> pus;
  for (auto const& pu : topology.pus()) pus[pu.os] = pu;
  return pus;
}

std::set<unsigned> numaNodesOf(Topology const& topology, CpuSet const& set) {
  auto const pus = byOs(topology);
  std::set<unsigned> numa;
  for (auto pu : set) numa.insert(pus.at(pu).numa);
  return numa;
}

// No two PUs of the set on one core or under one L2.
bool separateCores(Topology const& topology, CpuSet const& set) {
  auto const pus = byOs(topology);
  std::set<unsigned> cores;
  std::set<int> l2;
  for (auto pu : set) {
    if (!cores.insert(pus.at(pu).core).second) return false;
    if (pus.at(pu).l2 >= 0 && !l2.insert(pus.at(pu).l2).second) return false;
  }
  return true;
}

// How many PUs of the set each core holds.
std::map<unsigned, unsigned> perCore(Topology const& topology, CpuSet const& set) {
  auto const pus = byOs(topology);
  std::map<unsigned, unsigned> count;
  for (auto pu : set) ++count[pus.at(pu).core];
  return count;
}

TEST(PinStrategyTest, ParsesEveryNameAndRandomSeeds) {
  for (auto name : {"none", "numa-compact", "numa-spread", "smt-shared", "random"}) {
    EXPECT_EQ(PinStrategy::parse(name).name(), name);
  }
  EXPECT_EQ(PinStrategy::parse("random:42").seed, 42u);
  EXPECT_EQ(PinStrategy::parse("random:42").name(), "random:42");
  EXPECT_FALSE(PinStrategy::parse("none").binds());
  EXPECT_TRUE(PinStrategy::parse("smt-shared").binds());
}

TEST(PinStrategyTest, RejectsUnknownNamesAndBadSeeds) {
  for (auto text : {"compact", "", "numa-compact:3", "random:", "random:x", "random:-1"}) {
    EXPECT_THROW(PinStrategy::parse(text), Exception) << text;
  }
}

TEST(CpuSetTest, PrintsRangesLikeProc) {
  EXPECT_EQ(toString({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(toString({3}), "3");
  EXPECT_EQ(toString({}), "");
}

// A strategy that promises separate cores, and how many NUMA nodes its set spans.
struct SeparateCoresCase {
  char const* topology;
  char const* strategy;
  unsigned count;
  std::size_t numaNodes;
};

class SeparateCoresTest : public ::testing::TestWithParam<SeparateCoresCase> {};

TEST_P(SeparateCoresTest, GivesTheCountOnSeparateCoresSpanningTheExpectedNumaNodes) {
  auto const [description, strategy, count, numaNodes] = GetParam();
  auto const topology = Topology::load(description);
  auto const set = choosePus(topology.pus(), PinStrategy::parse(strategy), count);
  EXPECT_EQ(set.size(), count);
  EXPECT_EQ(numaNodesOf(topology, set).size(), numaNodes);
  EXPECT_TRUE(separateCores(topology, set));
}

INSTANTIATE_TEST_SUITE_P(
    Strategies, SeparateCoresTest,
    ::testing::Values(SeparateCoresCase{dualSocketSmt, "numa-compact", 64, 1},  // one NUMA node while it fits
                      SeparateCoresCase{dualSocketSmt, "numa-compact", 65, 2},  // spills over only when none fits
                      SeparateCoresCase{fourNuma, "numa-compact", 3, 1},
                      SeparateCoresCase{fourNuma, "numa-spread", 8, 4},  // round-robin over every NUMA node
                      SeparateCoresCase{fourNuma, "numa-spread", 2, 2}));

TEST(ChoosePusTest, SmtSharedTakesSiblingPairs) {
  auto const topology = Topology::load(dualSocketSmt);
  auto const set = choosePus(topology.pus(), PinStrategy::parse("smt-shared"), 6);
  EXPECT_EQ(set.size(), 6u);
  for (auto [core, count] : perCore(topology, set)) EXPECT_EQ(count, 2u) << "core " << core;
}

TEST(ChoosePusTest, SmtSharedRefusesATopologyWithoutSmt) {
  auto const topology = Topology::load(flat);
  EXPECT_THROW(choosePus(topology.pus(), PinStrategy::parse("smt-shared"), 2), Exception);
}

TEST(ChoosePusTest, RandomIsReproducibleAndDependsOnTheSeed) {
  auto const topology = Topology::load(dualSocketSmt);
  auto const a = choosePus(topology.pus(), PinStrategy::parse("random:7"), 16);
  EXPECT_EQ(a, choosePus(topology.pus(), PinStrategy::parse("random:7"), 16));
  EXPECT_NE(a, choosePus(topology.pus(), PinStrategy::parse("random:8"), 16));
  EXPECT_EQ(std::set<unsigned>(a.begin(), a.end()).size(), 16u);
}

TEST(ChoosePusTest, TooManyIsAOneLineErrorSayingWhatIsFree) {
  auto const topology = Topology::load(dualSocketSmt);
  try {
    choosePus(topology.pus(), PinStrategy::parse("numa-compact"), 129);
    FAIL() << "129 PUs on separate cores of a 128-core machine";
  } catch (Exception const& error) {
    std::string const message = error.message();
    EXPECT_NE(message.find("numa-compact: 129 PUs on separate cores"), std::string::npos) << message;
    EXPECT_NE(message.find("128 free"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  EXPECT_THROW(choosePus(topology.pus(), PinStrategy::parse("none"), 257), Exception);
  EXPECT_THROW(choosePus(topology.pus(), PinStrategy::parse("none"), 0), Exception);
}

TEST(ChoosePusTest, TakenPusAreNeverChosen) {
  auto const topology = Topology::load(fourNuma);
  CpuSet const taken{0, 1, 2, 3};
  for (auto name : {"none", "numa-compact", "numa-spread", "smt-shared", "random:3"}) {
    auto const set = choosePus(topology.pus(), PinStrategy::parse(name), 8, taken);
    for (auto pu : taken) EXPECT_EQ(std::count(set.begin(), set.end(), pu), 0) << name;
  }
}

}  // namespace
}  // namespace lanes::node::test
