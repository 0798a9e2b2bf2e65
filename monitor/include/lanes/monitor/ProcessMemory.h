#pragma once
// The memory of one process as Linux accounts it in /proc/PID/smaps_rollup:
// what it has resident (RSS), its proportional share of pages it shares
// with other processes (PSS), and what only it holds (USS). Summing PSS over
// the processes of a job gives the job's memory without counting a page
// shared copy-on-write twice.

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include <sys/types.h>

namespace lanes {

// Immutable value type.
struct ProcessMemory {
  std::uint64_t rssBytes = 0;
  std::uint64_t pssBytes = 0;
  std::uint64_t ussBytes = 0;  // Private_Clean + Private_Dirty

  // Nothing if the process is gone or its smaps_rollup cannot be read.
  static std::optional<ProcessMemory> of(pid_t pid);

  nlohmann::json toJson() const;  // {rss_bytes, pss_bytes, uss_bytes}
};

}  // namespace lanes
