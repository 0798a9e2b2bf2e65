// Packing jobs onto one node: disjoint sets of the requested size, each
// strategy's constraints kept, clear errors when the node is full; generated
// over strategies and machines.

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "lanes/core/Exception.h"
#include "lanes/node/Allocator.h"
#include "node/topology/NodeTesting.h"

namespace lanes::node::test {
namespace {

class AllocatorTest : public ::testing::TestWithParam<std::tuple<char const*, char const*>> {
 protected:
  Topology topology = Topology::load(std::get<0>(GetParam()));
  PinStrategy strategy = PinStrategy::parse(std::get<1>(GetParam()));
};

TEST_P(AllocatorTest, PacksJobsWithoutOverlapUntilTheNodeIsFull) {
  NodeAllocator allocator(topology.pus());
  std::set<unsigned> held;
  unsigned jobs = 0;
  for (;; ++jobs) {
    CpuSet set;
    try {
      set = allocator.allocate(strategy, 4);
    } catch (Exception const&) {
      break;
    }
    ASSERT_EQ(set.size(), 4u);
    for (auto pu : set) EXPECT_TRUE(held.insert(pu).second) << "PU " << pu << " given twice";
  }
  EXPECT_GE(jobs, 1u);
  EXPECT_EQ(allocator.freeCount(), topology.pus().size() - held.size());  // a failed allocation holds nothing
  EXPECT_EQ(allocator.taken(), CpuSet(held.begin(), held.end()));
}

TEST_P(AllocatorTest, ReleasedPusCanBeAllocatedAgain) {
  NodeAllocator allocator(topology.pus());
  auto const first = allocator.allocate(strategy, 2);
  allocator.release(first);
  EXPECT_EQ(allocator.freeCount(), topology.pus().size());
  EXPECT_EQ(allocator.allocate(strategy, 2), first);
  EXPECT_THROW(allocator.release({first.front(), first.front()}), Exception);
}

INSTANTIATE_TEST_SUITE_P(Machines, AllocatorTest,
                         ::testing::Combine(::testing::Values(dualSocketSmt, fourNuma),
                                            ::testing::Values("none", "numa-compact", "numa-spread", "smt-shared",
                                                              "random:5")));

TEST(NodeAllocatorTest, CompactJobsTakeWholeCoresOfTheirOwnNumaNode) {
  auto const topology = Topology::load(dualSocketSmt);
  NodeAllocator allocator(topology.pus());
  auto const a = allocator.allocate(PinStrategy::parse("numa-compact"), 64);
  auto const b = allocator.allocate(PinStrategy::parse("numa-compact"), 64);
  std::set<unsigned> coresA, coresB, numaA, numaB;
  for (auto const& pu : topology.pus()) {
    if (std::count(a.begin(), a.end(), pu.os)) coresA.insert(pu.core), numaA.insert(pu.numa);
    if (std::count(b.begin(), b.end(), pu.os)) coresB.insert(pu.core), numaB.insert(pu.numa);
  }
  EXPECT_EQ(coresA.size(), 64u);
  EXPECT_EQ(coresB.size(), 64u);
  EXPECT_EQ(numaA.size(), 1u);
  EXPECT_EQ(numaB.size(), 1u);
  EXPECT_NE(*numaA.begin(), *numaB.begin());
  // Both NUMA nodes' cores are now held: a third job shares cores with one
  // of them (the siblings), but still gets 64 separate cores.
  EXPECT_EQ(allocator.allocate(PinStrategy::parse("numa-compact"), 64).size(), 64u);
  EXPECT_THROW(allocator.allocate(PinStrategy::parse("numa-compact"), 65), Exception);
}

TEST(NodeAllocatorTest, OnThisMachineJobsOfOneCoreGetDistinctPus) {
  auto const topology = Topology::load("");
  NodeAllocator allocator(topology.pus());
  std::set<unsigned> held;
  for (std::size_t job = 0; job < topology.pus().size(); ++job) {
    auto const set = allocator.allocate(PinStrategy::parse("none"), 1);
    EXPECT_TRUE(held.insert(set.front()).second);
  }
  EXPECT_THROW(allocator.allocate(PinStrategy::parse("none"), 1), Exception);
}

TEST(AllocateWorkersTest, EachWorkerGetsItsOwnDisjointSet) {
  auto const topology = Topology::load(fourNuma);
  auto const sets = allocateWorkers(topology.pus(), PinStrategy::parse("numa-compact"), 4, 8);
  ASSERT_EQ(sets.size(), 4u);
  std::set<unsigned> held;
  for (auto const& set : sets) {
    EXPECT_EQ(set.size(), 8u);
    for (auto pu : set) EXPECT_TRUE(held.insert(pu).second);
  }
  // Workers 4..7 get the other hardware thread of the first ones' cores.
  EXPECT_EQ(allocateWorkers(topology.pus(), PinStrategy::parse("numa-compact"), 8, 8).size(), 8u);
  try {
    allocateWorkers(topology.pus(), PinStrategy::parse("numa-compact"), 9, 8);
    FAIL() << "9 x 8 PUs on a 64-PU machine";
  } catch (Exception const& error) {
    EXPECT_NE(std::string(error.message()).find("9 workers of 8 PUs do not fit: worker 8"), std::string::npos)
        << error.message();
  }
}

}  // namespace
}  // namespace lanes::node::test
