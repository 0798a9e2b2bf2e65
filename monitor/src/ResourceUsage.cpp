#include "lanes/monitor/ResourceUsage.h"

#include <fstream>
#include <limits>
#include <optional>
#include <string>

#include <sys/resource.h>

namespace lanes {

namespace {

double seconds(timeval const& time) { return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) * 1e-6; }

// The "VmHWM:  1234 kB" line of /proc/self/status, in bytes.
std::optional<std::uint64_t> peakRssFromProc() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kilobytes = 0;
      if (status >> kilobytes) return kilobytes * 1024;
      return std::nullopt;
    }
    status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

}  // namespace

ResourceUsage ResourceUsage::sample() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {seconds(usage.ru_utime), seconds(usage.ru_stime),
          peakRssFromProc().value_or(static_cast<std::uint64_t>(usage.ru_maxrss) * 1024)};
}

ResourceUsage ResourceUsage::since(ResourceUsage const& earlier) const {
  return {cpuUserSeconds - earlier.cpuUserSeconds, cpuSystemSeconds - earlier.cpuSystemSeconds, peakRssBytes};
}

}  // namespace lanes
