#include "lanes/monitor/TraceRecorder.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "lanes/core/Exception.h"
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
// `Record` is a CallRecord or a WaitRecord; the category is prefix + name.
template <typename Record>
void appendSlice(std::string& line, Record const& record, std::string const& quotedName, char const* categoryPrefix,
                 char const* category, Clock::time_point origin, pid_t pid, unsigned tid) {
  line += R"({"ph":"X","name":)";
  line += quotedName;
  line += R"(,"cat":")";
  line += categoryPrefix;
  line += category;
  line += R"(","ts":)";
  appendMicroseconds(line, record.begin - origin);
  line += R"(,"dur":)";
  appendMicroseconds(line, record.end - record.begin);
  line += R"(,"pid":)";
  append(line, pid);
  line += R"(,"tid":)";
  append(line, tid);
  line += R"(,"args":{"lane":)";
  append(line, record.lane);
  line += R"(,"event":")";
  append(line, record.event.run);
  line += ':';
  append(line, record.event.luminosityBlock);
  line += ':';
  append(line, record.event.event);
  line += "\"}}";
}

}  // namespace

TraceRecorder::TraceRecorder(std::string path, std::size_t chunk)
    : path_(std::move(path)), temporary_(path_ + ".tmp"), chunk_(chunk) {}

TraceRecorder::~TraceRecorder() {
  if (file_) discard();  // a job that never closed its trace leaves none
}

void TraceRecorder::jobStarted(JobInfo const& info) {
  names_.clear();
  for (auto const& module : info.modules) names_.push_back(quoted(module.label));
  source_ = quoted("source");
  idle_ = quoted("idle");
  lanes_ = info.lanes;
  perThread_.clear();
  threads_.store(0);
  if (file_) std::fclose(std::exchange(file_, nullptr));  // a job started again writes its trace anew
  error_ = 0;
  file_ = std::fopen(temporary_.c_str(), "w");
  if (!file_) error_ = errno;
  if (file_) std::setvbuf(file_, nullptr, _IONBF, 0);  // a chunk is one write, and its failure shows at once
  start_ = Clock::now();
  append("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n" + metadata(::getpid(), 0, "process_name", "lanes"));
}

TraceRecorder::Buffer& TraceRecorder::local() {
  auto& buffer = perThread_.local();
  if (buffer.tid == 0) {
    buffer.tid = threads_.fetch_add(1, std::memory_order_relaxed) + 1;
    buffer.thread = currentThread();
    buffer.calls.reserve(chunk_);
  }
  return buffer;
}

void TraceRecorder::callFinished(CallRecord const& record) {
  auto& buffer = local();
  buffer.calls.push_back(record);
  if (buffer.calls.size() >= chunk_) flush(buffer);
}

void TraceRecorder::waitFinished(WaitRecord const& record) {
  auto& buffer = local();
  buffer.waits.push_back(record);
  if (buffer.waits.size() >= chunk_) flush(buffer);
}

// Formats the buffer's calls outside the lock; only appending takes it.
void TraceRecorder::flush(Buffer& buffer) {
  auto const pid = ::getpid();
  std::string text;
  for (auto const& call : buffer.calls) {
    text += ",\n";
    appendSlice(text, call, call.module == kSourceProducer ? source_ : names_.at(call.module), "",
                toString(call.transition), start_, pid, buffer.tid);
  }
  for (auto const& wait : buffer.waits) {
    text += ",\n";
    appendSlice(text, wait, wait.kind == WaitKind::Idle ? idle_ : names_.at(wait.module), "wait:", toString(wait.kind),
                start_, pid, kWaitTrack + wait.lane);
  }
  buffer.written += buffer.calls.size() + buffer.waits.size();
  buffer.calls.clear();
  buffer.waits.clear();
  append(text);
}

void TraceRecorder::append(std::string const& text) {
  std::lock_guard lock(fileMutex_);
  if (error_ != 0) return;  // the trace is lost already: close() says why
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) error_ = errno ? errno : EIO;
}

std::size_t TraceRecorder::size() const {
  std::size_t total = 0;
  for (auto const& buffer : perThread_) total += buffer.written + buffer.calls.size() + buffer.waits.size();
  return total;
}

void TraceRecorder::close() {
  auto const pid = ::getpid();
  for (auto& buffer : perThread_) {
    flush(buffer);
    auto const name = (buffer.thread == pid ? "main thread " : "thread ") + std::to_string(buffer.thread);
    append(",\n" + metadata(pid, buffer.tid, "thread_name", name));
  }
  for (unsigned lane = 0; lane < lanes_; ++lane) {
    append(",\n" + metadata(pid, kWaitTrack + lane, "thread_name", "lane " + std::to_string(lane) + " waits"));
  }
  append("\n]}\n");
  if (error_ == 0 && std::fflush(file_) != 0) error_ = errno;
  if (error_ == 0 && std::fclose(std::exchange(file_, nullptr)) != 0) error_ = errno;
  if (error_ == 0 && std::rename(temporary_.c_str(), path_.c_str()) != 0) error_ = errno;
  if (error_ != 0) {
    discard();
    throw Exception("cannot write '" + path_ + "': " + std::strerror(error_));
  }
}

void TraceRecorder::discard() {
  // The file is removed: what it could not take does not matter.
  if (file_) std::fclose(std::exchange(file_, nullptr));
  std::remove(temporary_.c_str());
}

}  // namespace lanes
