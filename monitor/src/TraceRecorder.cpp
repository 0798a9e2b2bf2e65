#include "lanes/monitor/TraceRecorder.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "lanes/core/Exception.h"
#include "lanes/core/PathClaim.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/TemporaryName.h"

namespace lanes {

namespace detail {
extern std::atomic<TraceRecorder*> deviceTraceSink;  // DeviceTrace.cpp's
void flushDeviceBacklogs();
}  // namespace detail

namespace {

// Device queue N is thread kDeviceQueueTrack + N of the process's track, far from the recorder's 1, 2, ...
constexpr unsigned kDeviceQueueTrack = 100000;
constexpr std::size_t kDeviceChunkBytes = 1 << 20;

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
  if (record.lane == kNoLane) {
    line += "null";  // a run or lumi transition
  } else {
    append(line, record.lane);
  }
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
    : path_(std::move(path)), temporary_(partialPath(path_, ::getpid())), chunk_(chunk) {}

namespace {
// Stops `recorder` being the device's sink, if it is.
void stopDeviceTrace(TraceRecorder* recorder) {
  detail::deviceTraceSink.compare_exchange_strong(recorder, nullptr, std::memory_order_acq_rel);
}
}  // namespace

TraceRecorder::~TraceRecorder() {
  stopDeviceTrace(this);
  if (file_) discard();  // a job that never closed its trace leaves none
}

void TraceRecorder::jobStarted(JobInfo const& info) {
  names_.clear();
  for (auto const& module : info.modules) names_.push_back(quoted(module.label));
  source_ = quoted("source");
  idle_ = quoted("idle");
  boundary_ = quoted("boundary");
  lanes_ = info.lanes;
  perThread_.clear();
  threads_.store(0);
  if (file_) std::fclose(std::exchange(file_, nullptr));  // a job started again writes its trace anew
  error_ = 0;
  file_ = std::fopen(temporary_.c_str(), "w");
  if (!file_) error_ = errno;
  if (file_) std::setvbuf(file_, nullptr, _IONBF, 0);  // a chunk is one write, and its failure shows at once
  device_.clear();
  queues_.clear();
  blockTracks_.clear();
  clock_ = info.clock;
  start_ = Clock::now();
  // The origin on the monotonic clock, which every process shares: parts of a job merge onto one timeline.
  auto const origin = std::chrono::duration_cast<std::chrono::nanoseconds>(start_.time_since_epoch()).count();
  append("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"clock_origin_ns\": " + std::to_string(origin) +
         "}, \"traceEvents\": [\n" + metadata(::getpid(), 0, "process_name", "lanes"));
  detail::deviceTraceSink.store(this, std::memory_order_release);
}

TraceRecorder::Buffer& TraceRecorder::thisThread() {
  auto& buffer = perThread_.local();
  if (buffer.tid == 0) {
    buffer.tid = threads_.fetch_add(1, std::memory_order_relaxed) + 1;
    buffer.thread = currentThread();
    buffer.calls.reserve(chunk_);
  }
  return buffer;
}

void TraceRecorder::callFinished(CallRecord const& record) {
  if (!record.timed) return;  // a sampled job's trace shows its timed events
  auto& buffer = thisThread();
  buffer.calls.push_back(record);
  if (buffer.calls.size() >= chunk_) flush(buffer);
}

void TraceRecorder::waitFinished(WaitRecord const& record) {
  auto& buffer = thisThread();
  buffer.waits.push_back(record);
  if (buffer.waits.size() >= chunk_) flush(buffer);
}

// A lumi (or run) on its slot's track: rare next to calls, so written at once.
void TraceRecorder::blockFinished(BlockRecord const& record) {
  if (record.ended == kUntimed) return;
  auto const pid = ::getpid();
  bool const run = record.level == Level::Run;
  auto const tid = (run ? kRunTrack : kLumiTrack) + record.slot;
  auto const name = run ? "run " + std::to_string(record.id.run)
                        : "lumi " + std::to_string(record.id.run) + ":" + std::to_string(record.id.luminosityBlock);
  auto const slice = [&](std::string const& label, Clock::time_point begin, Clock::time_point end) {
    return nlohmann::json{{"ph", "X"}, {"name", label}, {"cat", run ? "run" : "lumi"},
                          {"ts", std::chrono::duration<double, std::micro>(begin - start_).count()},
                          {"dur", std::chrono::duration<double, std::micro>(std::max(begin, end) - begin).count()},
                          {"pid", pid}, {"tid", tid}, {"args", {{"events", record.events}, {"entry", record.entry}}}}
        .dump();
  };
  std::string text = ",\n" + slice(name, record.opened, record.ended);
  if (record.begun != kUntimed) text += ",\n" + slice("begin " + name, record.opened, record.begun);
  {
    std::lock_guard lock(blockMutex_);
    blockTracks_.insert(tid);
  }
  append(text);
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
    auto const& name = wait.kind == WaitKind::Idle       ? idle_
                       : wait.kind == WaitKind::Boundary ? boundary_
                                                         : names_.at(wait.module);
    appendSlice(text, wait, name, "wait:", toString(wait.kind), start_, pid, kWaitTrack + wait.lane);
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

namespace {
// A flow event ("s" begins, "f" ends), bound to the slice around it.
std::string flowEvent(bool begins, std::uint64_t flow, pid_t pid, unsigned tid, double ts) {
  std::string text = begins ? R"({"ph":"s")" : R"({"ph":"f","bp":"e")";
  text += R"(,"name":"device","cat":"device","id":)";
  append(text, flow);
  text += R"(,"pid":)";
  append(text, pid);
  text += R"(,"tid":)";
  append(text, tid);
  text += R"(,"ts":)";
  append(text, ts);
  return text + "}";
}

double microsecondsSince(Clock::time_point origin, Clock::time_point time) {
  return std::chrono::duration<double, std::micro>(time - origin).count();
}
}  // namespace

void TraceRecorder::hostFlow(bool begins, std::uint64_t flow) {
  auto const tid = thisThread().tid;
  // On the calls' clock: the arrow's end falls within the call it was made in.
  appendDevice(flowEvent(begins, flow, ::getpid(), tid, microsecondsSince(start_, clock_.now())));
}

void TraceRecorder::deviceWork(unsigned queue, std::string const& name, Clock::time_point begin, Clock::time_point end,
                               std::uint64_t into, std::uint64_t out) {
  auto const pid = ::getpid();
  auto const tid = kDeviceQueueTrack + queue;
  auto const from = microsecondsSince(start_, begin), to = microsecondsSince(start_, end);
  std::string text = R"({"ph":"X","cat":"device","name":)" + quoted(name) + R"(,"pid":)";
  lanes::append(text, pid);
  text += R"(,"tid":)";
  lanes::append(text, tid);
  text += R"(,"ts":)";
  lanes::append(text, from);
  text += R"(,"dur":)";
  lanes::append(text, to - from);
  text += "}";
  if (into) text += ",\n" + flowEvent(false, into, pid, tid, from);
  if (out) text += ",\n" + flowEvent(true, out, pid, tid, std::max(from, to - 1e-3));  // inside the box
  {
    std::lock_guard lock(deviceMutex_);
    if (std::find(queues_.begin(), queues_.end(), queue) == queues_.end()) queues_.push_back(queue);
  }
  appendDevice(text);
}

// Memory stays bounded, as for calls: past a chunk the device's events go to the file.
void TraceRecorder::appendDevice(std::string const& text) {
  std::lock_guard lock(deviceMutex_);
  device_ += ",\n" + text;
  if (device_.size() >= kDeviceChunkBytes) append(std::exchange(device_, {}));
}

std::size_t TraceRecorder::size() const {
  std::size_t total = 0;
  for (auto const& buffer : perThread_) total += buffer.written + buffer.calls.size() + buffer.waits.size();
  return total;
}

void TraceRecorder::close() {
  // Device work done but not yet recorded (deviceTrace::Backlog), while this is still the sink.
  if (detail::deviceTraceSink.load(std::memory_order_acquire) == this) detail::flushDeviceBacklogs();
  stopDeviceTrace(this);
  auto const pid = ::getpid();
  {
    std::lock_guard lock(deviceMutex_);
    append(device_);
    for (auto const queue : queues_) {
      append(",\n" + metadata(pid, kDeviceQueueTrack + queue, "thread_name", "device queue " + std::to_string(queue)));
    }
  }
  for (auto& buffer : perThread_) {
    flush(buffer);
    auto const name = (buffer.thread == pid ? "main thread " : "thread ") + std::to_string(buffer.thread);
    append(",\n" + metadata(pid, buffer.tid, "thread_name", name));
  }
  for (unsigned lane = 0; lane < lanes_; ++lane) {
    append(",\n" + metadata(pid, kWaitTrack + lane, "thread_name", "lane " + std::to_string(lane) + " waits"));
  }
  for (auto const tid : blockTracks_) {
    bool const run = tid >= kRunTrack;
    append(",\n" + metadata(pid, tid, "thread_name",
                            (run ? "run slot " : "lumi slot ") + std::to_string(tid - (run ? kRunTrack : kLumiTrack))));
  }
  append("\n]}\n");
  if (error_ == 0 && std::fflush(file_) != 0) error_ = errno;
  if (error_ == 0 && std::fclose(std::exchange(file_, nullptr)) != 0) error_ = errno;
  if (error_ != 0) {
    discard();
    throw Exception("cannot write '" + path_ + "': " + std::strerror(error_));
  }
  try {
    commitFile(temporary_, path_);
  } catch (Exception const&) {
    discard();
    throw;
  }
}

void TraceRecorder::discard() {
  // The file is removed: what it could not take does not matter.
  if (file_) std::fclose(std::exchange(file_, nullptr));
  std::remove(temporary_.c_str());
}

}  // namespace lanes
