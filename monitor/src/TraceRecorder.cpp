#include "lanes/monitor/TraceRecorder.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "lanes/monitor/AtomicFile.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes {

namespace {

pid_t currentThread() {
  thread_local pid_t const id = ::gettid();
  return id;
}

template <typename Number>
void append(std::string& text, Number number) {
  char digits[32];
  auto const end = std::to_chars(digits, digits + sizeof digits, number).ptr;
  text.append(digits, end);
}

void appendMicroseconds(std::string& text, Clock::duration duration) {
  append(text, std::chrono::duration<double, std::micro>(duration).count());
}

std::string quoted(std::string const& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string metadata(pid_t pid, unsigned tid, char const* name, std::string const& value) {
  return nlohmann::json{{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", {{"name", value}}}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One complete event, formatted by hand: a trace has millions of them.
void appendCall(std::string& line, CallRecord const& call, std::string const& quotedName, Clock::time_point origin,
                pid_t pid, unsigned tid) {
  line += R"({"ph":"X","name":)";
  line += quotedName;
  line += R"(,"cat":")";
  line += toString(call.transition);
  line += R"(","ts":)";
  appendMicroseconds(line, call.begin - origin);
  line += R"(,"dur":)";
  appendMicroseconds(line, call.end - call.begin);
  line += R"(,"pid":)";
  append(line, pid);
  line += R"(,"tid":)";
  append(line, tid);
  line += R"(,"args":{"lane":)";
  append(line, call.lane);
  line += R"(,"event":")";
  append(line, call.event.run);
  line += ':';
  append(line, call.event.luminosityBlock);
  line += ':';
  append(line, call.event.event);
  line += "\"}}";
}

}  // namespace

void TraceRecorder::jobStarted(JobInfo const& info) {
  labels_.clear();
  for (auto const& module : info.modules) labels_.push_back(module.label);
  perThread_.clear();
  start_ = Clock::now();
}

void TraceRecorder::callFinished(CallRecord const& record) { perThread_.local().push_back({record, currentThread()}); }

std::size_t TraceRecorder::size() const {
  std::size_t total = 0;
  for (auto const& buffer : perThread_) total += buffer.size();
  return total;
}

std::vector<TraceRecorder::Entry> TraceRecorder::sortedEntries() const {
  std::vector<Entry> all;
  all.reserve(size());
  for (auto const& buffer : perThread_) all.insert(all.end(), buffer.begin(), buffer.end());
  std::stable_sort(all.begin(), all.end(), [](Entry const& a, Entry const& b) { return a.call.begin < b.call.begin; });
  return all;
}

void TraceRecorder::write(std::string const& path) const {
  auto const entries = sortedEntries();
  std::map<pid_t, unsigned> threads;  // OS thread -> 1, 2, ... in order of first call
  for (auto const& entry : entries) threads.try_emplace(entry.thread, static_cast<unsigned>(threads.size() + 1));
  std::vector<std::string> names;  // JSON strings by module index
  for (auto const& label : labels_) names.push_back(quoted(label));
  auto const source = quoted("source");
  auto const pid = ::getpid();
  writeAtomically(path, [&](std::ostream& out) {
    out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n" << metadata(pid, 0, "process_name", "lanes");
    for (auto const& [osThread, tid] : threads) {
      auto const name = (osThread == pid ? "main thread " : "thread ") + std::to_string(osThread);
      out << ",\n" << metadata(pid, tid, "thread_name", name);
    }
    std::string line;
    for (auto const& [call, osThread] : entries) {
      line.clear();
      appendCall(line, call, call.module == kSourceProducer ? source : names.at(call.module), start_, pid,
                 threads.at(osThread));
      out << ",\n" << line;
    }
    out << "\n]}\n";
  });
}

}  // namespace lanes
