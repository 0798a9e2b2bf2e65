#include "MultiProcessTrace.h"

#include <unistd.h>

#include <filesystem>

#include "lanes/core/Exception.h"
#include "lanes/core/Module.h"
#include "lanes/core/TemporaryName.h"

namespace lanes::cli {

namespace {

std::vector<TracePart> partsOf(std::string const& trace, nlohmann::json const& report) {
  std::vector<TracePart> parts;
  if (report.value("events_before_fork", 0ull) > 0) {
    auto const part = report["prefork"]["part"].get<std::string>();
    parts.push_back({partPath(trace, part), ::getpid(), "prefork"});
  }
  for (auto const& worker : report["workers"]) {
    auto const part = worker["part"].get<std::string>();
    parts.push_back({partPath(trace, part), worker["pid"].get<int>(), part});
  }
  return parts;
}

void removeParts(std::vector<TracePart> const& parts) {
  std::error_code ignored;  // a part that is not there is what removing wants
  for (auto const& part : parts) {
    std::filesystem::remove(part.path, ignored);
    std::filesystem::remove(partialPath(part.path, part.pid), ignored);  // a killed worker's
  }
}

}  // namespace

void finishJobTrace(std::string const& trace, nlohmann::json& report, std::int64_t originNs,
                    std::vector<TraceSlice> const& parentWork) {
  auto const parts = partsOf(trace, report);
  if (!report["aborted"].get<bool>()) {
    try {
      mergeTraces(trace, {originNs, ::getpid(), parts, parentWork});
    } catch (Exception const& error) {
      auto const before = report["error"].get<std::string>();
      report["error"] = before.empty() ? std::string(error.what()) : before + "; " + error.what();
      report["failed"] = true;
    }
  }
  removeParts(parts);
}

}  // namespace lanes::cli
