#include "lanes/monitor/TraceMerge.h"

#include <fstream>
#include <ostream>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/monitor/AtomicFile.h"

namespace lanes {

namespace {

// The parent's own work goes on a thread of its track that no recorder uses (they count from 1).
constexpr int kParentWorkThread = 999999;

std::string dump(nlohmann::json const& event) {
  return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json metadata(int pid, int tid, char const* name, char const* key, nlohmann::json value) {
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", {{key, std::move(value)}}}};
}

std::string processName(int pid, std::string const& name) {
  return dump(metadata(pid, 0, "process_name", "name", name + " (pid " + std::to_string(pid) + ")"));
}

std::string sortIndex(int pid, int index) { return dump(metadata(pid, 0, "process_sort_index", "sort_index", index)); }

double microseconds(std::int64_t nanoseconds) { return static_cast<double>(nanoseconds) / 1000.0; }

// Part N's flow ids start at N << 40: each process numbers its own from 1, and a trace's ids are global.
constexpr int kFlowIdBits = 40;

// Writes a part's events (one per line, as TraceRecorder writes them) moved onto the merged timeline, with its
// process's pid and its flows renumbered, its own process_name dropped (the merge names the track).
void copyPart(TracePart const& part, std::int64_t originNs, std::uint64_t flowBase, std::ostream& out) {
  std::ifstream in(part.path);
  std::string line;
  if (!std::getline(in, line)) throw Exception("cannot read the trace part '" + part.path + "'");
  auto const key = line.find("\"clock_origin_ns\": ");
  if (key == std::string::npos) throw Exception("the trace part '" + part.path + "' has no clock origin");
  auto const shift = microseconds(std::stoll(line.substr(key + 19)) + part.clockOffsetNs - originNs);
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == ',' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line == "]}") continue;
    auto event = nlohmann::json::parse(line, nullptr, false);
    if (event.is_discarded() || !event.is_object()) {
      throw Exception("the trace part '" + part.path + "' is not a lanes trace: '" + line.substr(0, 80) + "'");
    }
    if (event.value("ph", "") == "M" && event.value("name", "") == "process_name") continue;
    event["pid"] = part.pid;
    if (event.contains("ts")) event["ts"] = event["ts"].get<double>() + shift;
    if (event.contains("id")) event["id"] = event["id"].get<std::uint64_t>() + flowBase;
    out << ",\n" << dump(event);
  }
  if (in.bad()) throw Exception("cannot read the trace part '" + part.path + "'");
}

}  // namespace

void mergeTraces(std::string const& path, TraceMergeInput const& input) {
  writeAtomically(path, [&](std::ostream& out) {
    out << "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"clock_origin_ns\": " << input.originNs
        << "}, \"traceEvents\": [\n"
        << processName(input.parentPid, input.parentName) << ",\n" << sortIndex(input.parentPid, 0) << ",\n"
        << dump(metadata(input.parentPid, kParentWorkThread, "thread_name", "name", "merge / shared writer"));
    for (auto const& slice : input.parentWork) {
      out << ",\n"
          << dump({{"ph", "X"}, {"name", slice.name}, {"cat", "parent"}, {"pid", input.parentPid},
                   {"tid", kParentWorkThread}, {"ts", microseconds(slice.beginNs - input.originNs)},
                   {"dur", microseconds(slice.endNs - slice.beginNs)}});
    }
    int index = 1;
    std::uint64_t flowBase = 0;
    for (auto const& part : input.parts) {
      flowBase += std::uint64_t{1} << kFlowIdBits;
      if (part.pid != input.parentPid) {
        out << ",\n" << processName(part.pid, part.name) << ",\n" << sortIndex(part.pid, index++);
      }
      if (std::ifstream(part.path).good()) {
        copyPart(part, input.originNs, flowBase, out);
      } else {  // a worker that died wrote none: said on its track
        out << ",\n"
            << dump({{"ph", "i"}, {"s", "p"}, {"name", part.name + " wrote no trace"}, {"pid", part.pid}, {"tid", 0},
                     {"ts", 0.0}});
      }
    }
    out << "\n]}\n";
  });
}

}  // namespace lanes
