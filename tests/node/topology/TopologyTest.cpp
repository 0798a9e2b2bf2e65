// Loading topologies (this machine, synthetic, XML) and what they say.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "lanes/core/Exception.h"
#include "node/topology/NodeTesting.h"

namespace lanes::node::test {
namespace {

TEST(TopologyTest, SyntheticDualSocketHasEveryLevel) {
  auto const topology = Topology::load(dualSocketSmt);
  EXPECT_FALSE(topology.isThisMachine());
  auto const counts = topology.counts();
  EXPECT_EQ(counts["packages"], 2);
  EXPECT_EQ(counts["numa_nodes"], 2);
  EXPECT_EQ(counts["l3"], 2);
  EXPECT_EQ(counts["l2"], 128);
  EXPECT_EQ(counts["cores"], 128);
  EXPECT_EQ(counts["pus"], 256);
  auto const& pus = topology.pus();
  ASSERT_EQ(pus.size(), 256u);
  // Siblings share core, L1 and L2; the second socket is the second NUMA node.
  EXPECT_EQ(pus[0].core, pus[1].core);
  EXPECT_EQ(pus[0].l2, pus[1].l2);
  EXPECT_NE(pus[0].core, pus[2].core);
  EXPECT_EQ(pus[255].numa, 1u);
  EXPECT_EQ(pus[255].package, 1u);
  EXPECT_EQ(pus[255].l3, 1);
}

TEST(TopologyTest, ThisMachineHasItsHardwareThreads) {
  auto const topology = Topology::load("");
  EXPECT_TRUE(topology.isThisMachine());
  EXPECT_EQ(topology.pus().size(), std::thread::hardware_concurrency());
}

TEST(TopologyTest, TreePrintsCoresWithTheirPus) {
  std::ostringstream out;
  Topology::load(fourNuma).printTree(out);
  EXPECT_NE(out.str().find("NUMANode L#3 P#3"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("Core L#31: PU P#62 PU P#63"), std::string::npos) << out.str();
}

TEST(TopologyTest, XmlExportLoadsBackTheSameProcessingUnits) {
  auto const path = (std::filesystem::temp_directory_path() / "lanes-topology-test.xml").string();
  auto const original = Topology::load(fourNuma);
  original.exportXml(path);
  auto const loaded = Topology::load(path);
  std::filesystem::remove(path);
  EXPECT_FALSE(loaded.isThisMachine());
  EXPECT_EQ(loaded.toJson()["pus"], original.toJson()["pus"]);
}

TEST(TopologyTest, BadDescriptionsAreErrors) {
  EXPECT_THROW(Topology::load("synthetic:pack:two"), Exception);
  EXPECT_THROW(Topology::load("synthetic:"), Exception);
  EXPECT_THROW(Topology::load("/no/such/topology.xml"), Exception);
  auto const path = (std::filesystem::temp_directory_path() / "lanes-not-xml.xml").string();
  { std::ofstream(path) << "not xml at all"; }
  EXPECT_THROW(Topology::load(path), Exception);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace lanes::node::test
