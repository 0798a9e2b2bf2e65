#pragma once
// Topologies the node tests plan on: synthetic machines like the ones the
// strategies are for, and this machine.

#include <string>

#include "lanes/node/Topology.h"

namespace lanes::node::test {

// Two sockets of 64 cores with SMT, one NUMA node and one L3 each.
inline constexpr char const* dualSocketSmt = "synthetic:pack:2 numa:1 l3:1 l2:64 l1:1 core:1 pu:2";
// Two sockets, two NUMA nodes each, 8 cores with SMT per NUMA node.
inline constexpr char const* fourNuma = "synthetic:pack:2 numa:2 l3:1 l2:8 l1:1 core:1 pu:2";
// One NUMA node, no SMT, no caches.
inline constexpr char const* flat = "synthetic:numa:1 core:4 pu:1";

}  // namespace lanes::node::test
