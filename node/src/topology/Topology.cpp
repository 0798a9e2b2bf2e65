#include "lanes/node/Topology.h"

#include <hwloc.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

constexpr char const* syntheticPrefix = "synthetic:";

hwloc_topology* loadTopology(std::string const& spec) {
  hwloc_topology* topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) throw Exception("hwloc: cannot initialise a topology");
  int failed = 0;
  if (spec.rfind(syntheticPrefix, 0) == 0) {
    failed = hwloc_topology_set_synthetic(topology, spec.c_str() + std::strlen(syntheticPrefix));
    if (failed) {
      hwloc_topology_destroy(topology);
      throw Exception("malformed synthetic topology '" + spec.substr(std::strlen(syntheticPrefix)) +
                      "' (hwloc syntax, e.g. 'pack:2 numa:1 l3:1 core:64 pu:2')");
    }
  } else if (!spec.empty()) {
    if (!std::filesystem::is_regular_file(spec)) {
      hwloc_topology_destroy(topology);
      throw Exception("topology file '" + spec + "' does not exist (give an hwloc XML file, or synthetic:DESCRIPTION)");
    }
    failed = hwloc_topology_set_xml(topology, spec.c_str());
  }
  if (failed || hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    throw Exception("cannot load the topology '" + (spec.empty() ? std::string("of this machine") : spec) +
                    "': not a valid hwloc XML file");
  }
  return topology;
}

int ancestorIndex(hwloc_topology* topology, hwloc_obj_type_t type, hwloc_obj_t pu) {
  auto* ancestor = hwloc_get_ancestor_obj_by_type(topology, type, pu);
  return ancestor ? static_cast<int>(ancestor->logical_index) : -1;
}

// NUMA nodes hang off the tree as memory children in hwloc 2: the one a PU
// belongs to is the one whose cpuset holds it.
unsigned numaIndexOf(hwloc_topology* topology, hwloc_obj_t pu) {
  hwloc_obj_t numa = nullptr;
  while ((numa = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, numa)) != nullptr) {
    if (hwloc_bitmap_isset(numa->cpuset, pu->os_index)) return numa->logical_index;
  }
  return 0;
}

std::vector<ProcessingUnit> flatten(hwloc_topology* topology) {
  std::vector<ProcessingUnit> pus;
  hwloc_obj_t pu = nullptr;
  while ((pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu)) != nullptr) {
    int const core = ancestorIndex(topology, HWLOC_OBJ_CORE, pu);
    int const package = ancestorIndex(topology, HWLOC_OBJ_PACKAGE, pu);
    pus.push_back({pu->os_index, core >= 0 ? static_cast<unsigned>(core) : pu->logical_index,
                   ancestorIndex(topology, HWLOC_OBJ_L1CACHE, pu), ancestorIndex(topology, HWLOC_OBJ_L2CACHE, pu),
                   ancestorIndex(topology, HWLOC_OBJ_L3CACHE, pu), numaIndexOf(topology, pu),
                   package >= 0 ? static_cast<unsigned>(package) : 0});
  }
  return pus;
}

std::string typeName(hwloc_obj_t object) {
  char name[64];
  hwloc_obj_type_snprintf(name, sizeof name, object, 0);
  return name;
}

nlohmann::json treeOf(hwloc_obj_t object) {
  nlohmann::json node{{"type", typeName(object)}, {"index", object->logical_index}};
  if (object->type == HWLOC_OBJ_PU || object->type == HWLOC_OBJ_NUMANODE) node["os"] = object->os_index;
  if (hwloc_obj_type_is_cache(object->type)) node["size_bytes"] = object->attr->cache.size;
  auto children = nlohmann::json::array();
  for (auto* child = object->memory_first_child; child; child = child->next_sibling) children.push_back(treeOf(child));
  for (auto* child = object->first_child; child; child = child->next_sibling) children.push_back(treeOf(child));
  if (!children.empty()) node["children"] = std::move(children);
  return node;
}

std::string label(nlohmann::json const& node) {
  auto const type = node["type"].get<std::string>();
  std::string text = type + " L#" + std::to_string(node["index"].get<unsigned>());
  if (node.contains("os")) text += " P#" + std::to_string(node["os"].get<unsigned>());
  if (node.contains("size_bytes")) text += " (" + std::to_string(node["size_bytes"].get<std::uint64_t>() >> 10) + " KiB)";
  return text;
}

bool onlyPuChildren(nlohmann::json const& node) {
  if (!node.contains("children")) return false;
  for (auto const& child : node["children"]) {
    if (child["type"] != "PU") return false;
  }
  return true;
}

void printNode(std::ostream& out, nlohmann::json const& node, int depth) {
  out << std::string(2 * depth, ' ') << label(node);
  if (onlyPuChildren(node)) {
    out << ":";
    for (auto const& pu : node["children"]) out << " PU P#" << pu["os"].get<unsigned>();
    out << "\n";
    return;
  }
  out << "\n";
  if (!node.contains("children")) return;
  for (auto const& child : node["children"]) printNode(out, child, depth + 1);
}

}  // namespace

void Topology::Deleter::operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }

Topology::Topology(hwloc_topology* topology, std::string source, bool thisMachine)
    : topology_(topology), source_(std::move(source)), thisMachine_(thisMachine), pus_(flatten(topology)) {}

Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

Topology Topology::load(std::string const& spec) {
  return Topology(loadTopology(spec), spec.empty() ? "this machine" : spec, spec.empty());
}

nlohmann::json Topology::counts() const {
  auto count = [this](hwloc_obj_type_t type) { return hwloc_get_nbobjs_by_type(topology_.get(), type); };
  return {{"packages", count(HWLOC_OBJ_PACKAGE)}, {"numa_nodes", count(HWLOC_OBJ_NUMANODE)},
          {"l3", count(HWLOC_OBJ_L3CACHE)},       {"l2", count(HWLOC_OBJ_L2CACHE)},
          {"l1", count(HWLOC_OBJ_L1CACHE)},       {"cores", count(HWLOC_OBJ_CORE)},
          {"pus", count(HWLOC_OBJ_PU)}};
}

nlohmann::json Topology::toJson() const {
  auto pus = nlohmann::json::array();
  for (auto const& pu : pus_) {
    pus.push_back({{"os", pu.os}, {"core", pu.core}, {"l1", pu.l1}, {"l2", pu.l2}, {"l3", pu.l3},
                   {"numa", pu.numa}, {"package", pu.package}});
  }
  return {{"source", source_},
          {"this_machine", thisMachine_},
          {"counts", counts()},
          {"tree", treeOf(hwloc_get_root_obj(topology_.get()))},
          {"pus", pus}};
}

void Topology::printTree(std::ostream& out) const { printNode(out, treeOf(hwloc_get_root_obj(topology_.get())), 0); }

void Topology::exportXml(std::string const& path) const {
  if (hwloc_topology_export_xml(topology_.get(), path.c_str(), 0) != 0) {
    throw Exception("cannot write the topology to '" + path + "': " + std::strerror(errno));
  }
}

}  // namespace lanes::node
