#pragma once
// The machine's CPU topology as hwloc sees it (packages, NUMA nodes, caches,
// cores, hardware threads), or a synthetic or XML one to plan for another
// machine. The pinning strategies work on its flat list of processing units.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct hwloc_topology;

namespace lanes::node {

// Immutable value type: one hardware thread (hwloc's PU) and where it sits.
// Indexes of the levels above it are hwloc's logical indexes; -1 where the
// topology has no such level.
struct ProcessingUnit {
  unsigned os = 0;    // OS index: what sched_setaffinity takes (on this machine)
  unsigned core = 0;  // its core; a topology without cores makes each PU its own
  int l1 = -1;
  int l2 = -1;
  int l3 = -1;
  unsigned numa = 0;  // 0 when the topology has no NUMA node above it
  unsigned package = 0;
};

// Immutable after construction; const methods may be called concurrently.
class Topology {
 public:
  // SPEC: empty for this machine, "synthetic:DESCRIPTION" for an hwloc
  // synthetic description (e.g. "synthetic:pack:2 numa:1 l3:1 core:64 pu:2"),
  // anything else the path of an hwloc XML file (lstopo --of xml, or
  // `lanes topology --export-xml`). Throws lanes::Exception on a malformed
  // description or an unreadable file.
  static Topology load(std::string const& spec);

  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  // Whether its PUs are this machine's, so that binding to them means something.
  bool isThisMachine() const { return thisMachine_; }
  std::string const& source() const { return source_; }  // "this machine", "synthetic:...", or the XML path
  std::vector<ProcessingUnit> const& pus() const { return pus_; }  // in logical order

  // Objects per level: packages, numa_nodes, l3, l2, l1, cores, pus.
  nlohmann::json counts() const;
  // {source, this_machine, counts, tree, pus: [{os, core, l1, l2, l3, numa, package}]}
  nlohmann::json toJson() const;
  // One line per object, indented by depth; a core's PUs on its line.
  void printTree(std::ostream& out) const;
  // Throws lanes::Exception naming the file if it cannot be written.
  void exportXml(std::string const& path) const;

 private:
  Topology(hwloc_topology* topology, std::string source, bool thisMachine);

  struct Deleter {
    void operator()(hwloc_topology* topology) const;
  };
  std::unique_ptr<hwloc_topology, Deleter> topology_;
  std::string source_;
  bool thisMachine_ = false;
  std::vector<ProcessingUnit> pus_;
};

}  // namespace lanes::node
