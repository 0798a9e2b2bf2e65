#include "lanes/node/PinningStrategy.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <utility>

#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

struct Named {
  char const* name;
  PinKind kind;
};
constexpr Named strategies[] = {{"none", PinKind::None},
                                {"numa-compact", PinKind::NumaCompact},
                                {"numa-spread", PinKind::NumaSpread},
                                {"smt-shared", PinKind::SmtShared},
                                {"random", PinKind::Random}};

[[noreturn]] void unknownStrategy(std::string const& text) {
  throw Exception("unknown pinning strategy '" + text +
                  "' (choose numa-compact, numa-spread, smt-shared, random[:SEED] or none)");
}

std::uint64_t parseSeed(std::string const& text, std::string const& whole) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) {
    throw Exception("pinning strategy '" + whole + "': the seed must be a non-negative integer");
  }
  return std::stoull(text);
}

bool isTaken(CpuSet const& taken, ProcessingUnit const& pu) {
  return std::binary_search(taken.begin(), taken.end(), pu.os);
}

std::vector<ProcessingUnit> freePus(std::vector<ProcessingUnit> const& all, CpuSet const& taken) {
  std::vector<ProcessingUnit> free;
  for (auto const& pu : all) {
    if (!isTaken(taken, pu)) free.push_back(pu);
  }
  return free;
}

// The PUs of each group, groups in order of first appearance.
template <typename Key>
std::vector<std::vector<ProcessingUnit>> groupBy(std::vector<ProcessingUnit> const& pus, Key key) {
  std::vector<std::vector<ProcessingUnit>> groups;
  std::map<decltype(key(pus.front())), std::size_t> index;
  for (auto const& pu : pus) {
    auto [it, added] = index.emplace(key(pu), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(pu);
  }
  return groups;
}

// What two threads must not share to have "separate L1 and L2": the L2
// cache, or the core where the topology has no L2.
std::pair<int, unsigned> cacheDomain(ProcessingUnit const& pu) { return {pu.l2, pu.l2 >= 0 ? 0u : pu.core}; }

unsigned coreCount(std::vector<ProcessingUnit> const& all) {
  return static_cast<unsigned>(groupBy(all, [](ProcessingUnit const& pu) { return pu.core; }).size());
}

[[noreturn]] void notEnough(std::vector<ProcessingUnit> const& all, PinStrategy const& strategy, unsigned count,
                            char const* what, std::size_t available) {
  throw Exception(strategy.name() + ": " + std::to_string(count) + " " + what + " asked for, " +
                  std::to_string(available) + " free (the topology has " + std::to_string(all.size()) + " PUs on " +
                  std::to_string(coreCount(all)) + " cores)");
}

// One free PU per cache domain, per NUMA node (NUMA nodes in index order).
// `wholeOnly`: only domains none of whose PUs is taken, so that jobs packed
// on one node do not share cores either while that is possible.
std::vector<CpuSet> domainsByNuma(std::vector<ProcessingUnit> const& all, CpuSet const& taken, bool wholeOnly) {
  std::map<unsigned, CpuSet> byNuma;
  for (auto const& domain : groupBy(all, cacheDomain)) {
    auto const free = freePus(domain, taken);
    if (free.empty() || (wholeOnly && free.size() < domain.size())) continue;
    byNuma[free.front().numa].push_back(free.front().os);
  }
  std::vector<CpuSet> result;
  for (auto& [numa, pus] : byNuma) result.push_back(std::move(pus));
  return result;
}

std::size_t totalSize(std::vector<CpuSet> const& sets) {
  std::size_t total = 0;
  for (auto const& set : sets) total += set.size();
  return total;
}

// The NUMA node with the fewest free domains that still fits (best fit, so
// that later jobs find whole nodes); when none fits, the fullest ones first.
CpuSet packCompact(std::vector<CpuSet> byNuma, unsigned count) {
  std::stable_sort(byNuma.begin(), byNuma.end(), [](CpuSet const& a, CpuSet const& b) { return a.size() > b.size(); });
  auto fits = std::find_if(byNuma.rbegin(), byNuma.rend(), [count](CpuSet const& set) { return set.size() >= count; });
  if (fits != byNuma.rend()) return CpuSet(fits->begin(), fits->begin() + count);
  CpuSet chosen;
  for (auto const& set : byNuma) {
    for (auto pu : set) {
      if (chosen.size() < count) chosen.push_back(pu);
    }
  }
  return chosen;
}

CpuSet spreadRoundRobin(std::vector<CpuSet> const& byNuma, unsigned count) {
  CpuSet chosen;
  for (std::size_t round = 0; chosen.size() < count; ++round) {
    for (auto const& set : byNuma) {
      if (round < set.size() && chosen.size() < count) chosen.push_back(set[round]);
    }
  }
  return chosen;
}

CpuSet separateCaches(std::vector<ProcessingUnit> const& all, CpuSet const& taken, PinStrategy const& strategy,
                      unsigned count) {
  std::size_t available = 0;
  for (bool wholeOnly : {true, false}) {
    auto const byNuma = domainsByNuma(all, taken, wholeOnly);
    available = totalSize(byNuma);
    if (available < count) continue;
    return strategy.kind == PinKind::NumaCompact ? packCompact(byNuma, count) : spreadRoundRobin(byNuma, count);
  }
  notEnough(all, strategy, count, "PUs on separate cores (no shared L1 or L2)", available);
}

// Whole free cores first, both (all) of a core's PUs before the next core.
CpuSet siblings(std::vector<ProcessingUnit> const& all, CpuSet const& taken, PinStrategy const& strategy,
                unsigned count) {
  auto const cores = groupBy(all, [](ProcessingUnit const& pu) { return pu.core; });
  bool const smt = std::any_of(cores.begin(), cores.end(), [](auto const& core) { return core.size() > 1; });
  if (!smt) throw Exception("smt-shared: the topology has one hardware thread per core (no SMT siblings to share)");
  std::vector<CpuSet> wholeFirst;
  std::size_t wholeCores = 0;
  for (auto const& core : cores) {
    auto const free = freePus(core, taken);
    if (free.size() < 2) continue;
    CpuSet pus;
    for (auto const& pu : free) pus.push_back(pu.os);
    bool const whole = free.size() == core.size();
    wholeFirst.insert(wholeFirst.begin() + (whole ? wholeCores++ : wholeFirst.size()), std::move(pus));
  }
  if (totalSize(wholeFirst) < count) notEnough(all, strategy, count, "PUs on cores with 2 free siblings", totalSize(wholeFirst));
  CpuSet chosen;
  for (auto const& core : wholeFirst) {
    for (auto pu : core) {
      if (chosen.size() < count) chosen.push_back(pu);
    }
  }
  return chosen;
}

// A Fisher-Yates shuffle of our own: std::shuffle's sequence differs between
// standard libraries, and a seed must give the same PUs everywhere.
CpuSet shuffled(std::vector<ProcessingUnit> const& free, std::uint64_t seed) {
  CpuSet pus;
  for (auto const& pu : free) pus.push_back(pu.os);
  std::mt19937_64 generator(seed);
  for (std::size_t i = pus.size(); i > 1; --i) std::swap(pus[i - 1], pus[generator() % i]);
  return pus;
}

CpuSet anyFree(std::vector<ProcessingUnit> const& all, CpuSet const& taken, PinStrategy const& strategy, unsigned count) {
  auto const free = freePus(all, taken);
  if (free.size() < count) notEnough(all, strategy, count, "PUs", free.size());
  CpuSet pus;
  if (strategy.kind == PinKind::Random) {
    pus = shuffled(free, strategy.seed);
  } else {
    for (auto const& pu : free) pus.push_back(pu.os);
  }
  pus.resize(count);
  return pus;
}

}  // namespace

PinStrategy PinStrategy::parse(std::string const& text) {
  auto const colon = text.find(':');
  auto const name = text.substr(0, colon);
  for (auto const& strategy : strategies) {
    if (name != strategy.name) continue;
    if (colon == std::string::npos) return {strategy.kind, 0};
    if (strategy.kind != PinKind::Random) unknownStrategy(text);
    return {PinKind::Random, parseSeed(text.substr(colon + 1), text)};
  }
  unknownStrategy(text);
}

std::string PinStrategy::name() const {
  for (auto const& strategy : strategies) {
    if (strategy.kind != kind) continue;
    return kind == PinKind::Random && seed != 0 ? std::string("random:") + std::to_string(seed) : strategy.name;
  }
  return "?";
}

std::string toString(CpuSet const& set) {
  std::string text;
  for (std::size_t i = 0; i < set.size();) {
    std::size_t j = i;
    while (j + 1 < set.size() && set[j + 1] == set[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(set[i]);
    if (j > i) text += '-' + std::to_string(set[j]);
    i = j + 1;
  }
  return text;
}

CpuSet choosePus(std::vector<ProcessingUnit> const& all, PinStrategy const& strategy, unsigned count, CpuSet taken) {
  if (count == 0) throw Exception(strategy.name() + ": a job needs at least 1 PU");
  std::sort(taken.begin(), taken.end());
  CpuSet chosen;
  switch (strategy.kind) {
    case PinKind::NumaCompact:
    case PinKind::NumaSpread:
      chosen = separateCaches(all, taken, strategy, count);
      break;
    case PinKind::SmtShared:
      chosen = siblings(all, taken, strategy, count);
      break;
    case PinKind::Random:
    case PinKind::None:
      chosen = anyFree(all, taken, strategy, count);
      break;
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace lanes::node
