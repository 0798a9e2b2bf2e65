#pragma once
// Pinning strategies: which processing units (PUs) a job of N threads gets,
// named after what they do. Pure functions of a topology's free PUs.
//
//   numa-compact  one NUMA node (the fullest that fits), one PU per L2 cache
//                 (per core without L2): no two threads share L1 or L2.
//                 Spills over to more NUMA nodes only when none fits.
//   numa-spread   round-robin over the NUMA nodes, one PU per L2 cache.
//   smt-shared    hardware-thread siblings: both PUs of a core before the
//                 next core, so pairs of threads share L1 and L2.
//   random[:SEED] any free PUs, shuffled reproducibly by SEED (default 0).
//   none          any free PUs, lowest first; nothing binds with it (the
//                 commands leave the threads to the operating system).

#include <cstdint>
#include <string>
#include <vector>

#include "lanes/node/Topology.h"

namespace lanes::node {

enum class PinKind { None, NumaCompact, NumaSpread, SmtShared, Random };

// Immutable value type.
struct PinStrategy {
  PinKind kind = PinKind::None;
  std::uint64_t seed = 0;  // random only

  // "numa-compact", "numa-spread", "smt-shared", "random", "random:SEED" or
  // "none"; throws lanes::Exception naming the valid ones otherwise.
  static PinStrategy parse(std::string const& text);
  std::string name() const;
  bool binds() const { return kind != PinKind::None; }
};

// OS indexes of PUs, sorted ascending.
using CpuSet = std::vector<unsigned>;

// "0-3,8,10-11", the form of /proc's Cpus_allowed_list.
std::string toString(CpuSet const& set);

// `count` PUs of `all` (a topology's PUs, in logical order) chosen by
// `strategy`, none of them in `taken` (those other jobs hold). Throws
// lanes::Exception with one line saying what was asked for and what is free
// when there are not enough.
CpuSet choosePus(std::vector<ProcessingUnit> const& all, PinStrategy const& strategy, unsigned count,
                 CpuSet taken = {});

}  // namespace lanes::node
