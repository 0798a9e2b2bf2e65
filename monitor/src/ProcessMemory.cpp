#include "lanes/monitor/ProcessMemory.h"

#include <fstream>
#include <string>

namespace lanes {

std::optional<ProcessMemory> ProcessMemory::of(pid_t pid) {
  std::ifstream rollup("/proc/" + std::to_string(pid) + "/smaps_rollup");
  if (!rollup) return std::nullopt;
  ProcessMemory memory;
  bool found = false;
  std::string key, unit;
  std::uint64_t kilobytes = 0;
  std::getline(rollup, key);  // the header line: address range and "[rollup]"
  while (rollup >> key >> kilobytes >> unit) {
    auto const bytes = kilobytes * 1024;
    if (key == "Rss:") {
      memory.rssBytes = bytes;
      found = true;
    } else if (key == "Pss:") {
      memory.pssBytes = bytes;
    } else if (key == "Private_Clean:" || key == "Private_Dirty:") {
      memory.ussBytes += bytes;
    }
  }
  if (!found) return std::nullopt;
  return memory;
}

nlohmann::json ProcessMemory::toJson() const {
  return {{"rss_bytes", rssBytes}, {"pss_bytes", pssBytes}, {"uss_bytes", ussBytes}};
}

}  // namespace lanes
