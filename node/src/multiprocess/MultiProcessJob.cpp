#include "lanes/node/MultiProcessJob.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <memory>
#include <optional>
#include <thread>

#include "lanes/core/Exception.h"
#include "lanes/core/TemporaryName.h"
#include "lanes/monitor/AtomicFile.h"
#include "lanes/monitor/ProcessMemory.h"
#include "lanes/node/BatchRing.h"
#include "MonotonicClock.h"
#include "MultiProcessReport.h"
#include "MultiProcessWorker.h"
#include "OutputParts.h"
#include "PartTiming.h"
#include "SharedMemory.h"
#include "WorkerWatchdog.h"

namespace lanes::node {

namespace {

// Threads of this process now (oneTBB's workers, a plugin's, ...).
unsigned threadsInProcess() {
  unsigned n = 0;
  for ([[maybe_unused]] auto const& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// The threads of this process once those that were just joined are gone: a
// joined thread's pthread_join() returns as the thread exits, and the kernel
// lists it in /proc/self/task a moment longer (the RNTuple reader closed by
// beforeFork() joins its cluster thread so; "2 threads are running" was an
// occasional refusal). Gives them up to a second, then counts what is left.
unsigned threadsAfterJoins() {
  constexpr auto kPause = std::chrono::milliseconds(2);
  constexpr int kLooks = 500;
  auto threads = threadsInProcess();
  for (int look = 0; threads > 1 && look < kLooks; ++look) {
    std::this_thread::sleep_for(kPause);
    threads = threadsInProcess();
  }
  return threads;
}

int pidfdOpen(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

// One process the parent started.
struct WorkerProcess {
  WorkerRole role;
  pid_t pid = -1;
  int pidfd = -1;
  bool done = false;    // wrote its report
  bool exited = false;  // reaped
  int status = 0;       // waitpid()'s
  std::optional<int> replacedBy;  // the slot that took over its events
  unsigned retries = 0;           // how many workers died holding its events before it
  nlohmann::json report;          // its run report, once done
  nlohmann::json memory;          // measured before its release
  std::uint64_t peakPss = 0;      // the most seen while it ran
  nlohmann::json crash;           // what ran as a fatal signal ended it (crashJson), or null
};

// How often the parent samples every process's memory while the workers run.
constexpr std::chrono::milliseconds kMemorySamplePeriod(500);

// The parent's own events before the fork, in a shared-writer job: their
// batches go straight to the outputs' shared files. Confined to the
// parent's thread (the part before the fork runs one thread).
class ParentSink : public BatchSink {
 public:
  explicit ParentSink(EventProcessor& processor) : processor_(processor) {}
  std::size_t maxBatchBytes() const override { return BatchRing::kDefaultSlotBytes; }
  void ship(unsigned output, void const* bytes, std::size_t size) override {
    processor_.mergeOutputBatch(output, bytes, size);
    ++shippedBatches;
    shippedBytes += size;
  }
  std::uint64_t shippedBatches = 0, shippedBytes = 0;

 private:
  EventProcessor& processor_;
};

// The parent: starts the workers, watches them, measures, merges (or, as
// the shared writer, writes the batches the workers ship as they come).
class MultiProcessParent {
 public:
  MultiProcessParent(EventProcessor& processor, MultiProcessOptions const& options, PartRunner const& runner)
      : processor_(processor), options_(options), runner_(runner) {}
  ~MultiProcessParent();

  nlohmann::json run();

 private:
  void runBeforeFork();
  void prepareChannels();
  void spawn(unsigned residue, std::optional<unsigned> replacing = std::nullopt);
  [[noreturn]] void becomeWorker(WorkerRole const& role);
  void watch();
  int untilDue() const;
  void runDue();
  void onDone();
  void onBatches();
  void onExit(WorkerProcess& worker);
  void onSignal();
  std::string heldEvents(WorkerProcess const& worker) const;
  void failJob(std::string error);
  void killAll();
  bool everyLiveWorkerDone() const;
  void measureAndRelease();
  void sampleMemory();
  void finishOutputs();
  void noteParentWork(char const* what, std::int64_t beginNs) const;
  void describeMergedOutputs();
  std::uint64_t eventsWritten() const;
  std::uint64_t eventsCounted() const;
  std::string preForkPart() const { return jobPartName("prefork", ::getpid()); }
  nlohmann::json report() const;

  EventProcessor& processor_;
  MultiProcessOptions const& options_;
  PartRunner const& runner_;
  std::string directory_;
  std::unique_ptr<SharedEventQueue> queue_;
  std::unique_ptr<BatchRing> ring_;  // the shared writer's
  std::unique_ptr<WorkerBoard> board_;
  std::optional<WorkerWatchdog> watchdog_;
  ProgressLine progress_{std::cerr, options_.progress, options_.progressPeriod};
  MonotonicClock::time_point nextSample_;
  std::uint64_t batchesReceived_ = 0, bytesReceived_ = 0;
  int done_[2] = {-1, -1};
  int release_[2] = {-1, -1};
  int signals_ = -1;
  sigset_t previousMask_{};
  std::vector<WorkerProcess> workers_;
  bool released_ = false;
  bool failed_ = false;
  bool configurationError_ = false;  // the first failure was a worker's ConfigurationError: bad input (exit 2)
  bool aborted_ = false;  // by a second stop signal
  int stopSignal_ = 0;    // the first SIGINT, SIGTERM or SIGHUP received
  std::string error_;
  unsigned threadsAtFork_ = 0;
  nlohmann::json preFork_;
  nlohmann::json parentMemory_;
  nlohmann::json outputs_ = nlohmann::json::array();  // the merged files
  std::uint64_t peakTotalPss_ = 0;  // the most the job held at once (sampled)
  std::int64_t started_ = 0, finished_ = 0;
  double mergeSeconds_ = 0;
};

MultiProcessParent::~MultiProcessParent() {
  for (int fd : {done_[0], done_[1], release_[0], release_[1], signals_}) {
    if (fd >= 0) ::close(fd);
  }
  for (auto& worker : workers_) {
    if (worker.pidfd >= 0) ::close(worker.pidfd);
  }
  if (signals_ >= 0) ::sigprocmask(SIG_SETMASK, &previousMask_, nullptr);
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

nlohmann::json MultiProcessParent::run() {
  started_ = monotonicNanoseconds();
  progress_.start(processor_.info().expectedEvents);
  processor_.beginJob();
  if (auto const error = processor_.configurationError(); !error.empty()) {  // bad input: no worker starts
    processor_.endJob();
    throw ConfigurationError(error);
  }
  if (options_.outputMode == OutputMode::SharedWriter) processor_.openSharedOutputs();
  if (options_.eventsBeforeFork) runBeforeFork();
  processor_.beforeFork();
  threadsAtFork_ = threadsAfterJoins();
  if (threadsAtFork_ != 1) {
    throw Exception("multi-process job: " + std::to_string(threadsAtFork_) +
                    " threads are running before the fork; a worker would inherit none of them");
  }
  prepareChannels();
  for (unsigned r = 0; r < options_.processes; ++r) spawn(r);
  watch();
  finished_ = monotonicNanoseconds();
  progress_.draw(eventsCounted(), true);
  finishOutputs();
  processor_.endJob();
  return report();
}

// The first events, in the parent, on the calling thread alone: a oneTBB
// arena of one thread starts no worker thread, so the fork stays safe.
void MultiProcessParent::runBeforeFork() {
  RangeDispenser first(0, options_.eventsBeforeFork);
  ParentSink sink(processor_);
  bool const shared = options_.outputMode == OutputMode::SharedWriter;
  preFork_ = runner_(processor_, {preForkPart(), &first, 1, 0, 0, shared ? &sink : nullptr});
  preFork_["part"] = preForkPart();
  batchesReceived_ += sink.shippedBatches;
  bytesReceived_ += sink.shippedBytes;
  if (preFork_.value("failed", false)) {
    throw Exception("multi-process job: before the fork: " + preFork_.value("error", std::string("failed")));
  }
}

void MultiProcessParent::prepareChannels() {
  char pattern[] = "/tmp/lanes-workers-XXXXXX";
  if (!::mkdtemp(pattern)) systemError("cannot create a directory for the workers' reports");
  directory_ = pattern;
  if (options_.distribution == Distribution::Queue) {
    queue_ = std::make_unique<SharedEventQueue>(options_.eventsBeforeFork, options_.chunk);
  }
  // Two slots per worker: one it fills while the writer merges the other.
  if (options_.outputMode == OutputMode::SharedWriter) {
    ring_ = std::make_unique<BatchRing>(std::min(2 * options_.processes, BatchRing::kMaxSlots), BatchRing::kDefaultSlotBytes);
  }
  board_ = std::make_unique<WorkerBoard>(options_.processes);
  if (options_.watchdogSeconds > 0) watchdog_.emplace(*board_, options_.watchdogSeconds, options_.watchdogAction);
  if (::pipe2(done_, O_CLOEXEC) != 0 || ::pipe2(release_, O_CLOEXEC) != 0) systemError("cannot create pipes");
  // SIGINT, SIGTERM and SIGHUP are forwarded to the workers, which stop
  // gracefully (and take a second one for the same stop: a terminal sends
  // its Ctrl-C to them too); a second one here aborts the job.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stopSignals, signal);
  ::sigprocmask(SIG_BLOCK, &stopSignals, &previousMask_);
  signals_ = ::signalfd(-1, &stopSignals, SFD_CLOEXEC);
  if (signals_ < 0) systemError("cannot take signals");
}

void MultiProcessParent::spawn(unsigned residue, std::optional<unsigned> replacing) {
  WorkerRole role;
  role.index = static_cast<unsigned>(workers_.size());
  role.parent = ::getpid();
  role.residue = residue;
  role.replacement = replacing.has_value();
  role.queueFd = queue_ ? queue_->fd() : -1;
  role.doneFd = done_[1];
  role.releaseFd = release_[0];
  role.ringFd = ring_ ? ring_->memoryFd() : -1;
  role.readyFd = ring_ ? ring_->readyWriteFd() : -1;
  role.boardFd = board_->fd();
  role.directory = directory_;
  if (replacing && queue_) queue_->reassign(*replacing, role.index);
  if (replacing) board_->reset(residue);  // the events its seat counted are done again
  std::fflush(nullptr);
  pid_t const pid = ::fork();
  if (pid < 0) systemError("cannot fork");
  if (pid == 0) becomeWorker(role);
  WorkerProcess worker;
  worker.role = role;
  worker.pid = pid;
  worker.pidfd = pidfdOpen(pid);
  if (replacing) worker.retries = workers_.at(*replacing).retries + 1;
  if (worker.pidfd < 0) systemError("cannot watch worker " + std::to_string(pid));
  workers_.push_back(std::move(worker));
}

[[noreturn]] void MultiProcessParent::becomeWorker(WorkerRole const& role) {
  ::close(done_[0]);
  ::close(release_[1]);
  ::close(signals_);
  for (auto const& sibling : workers_) ::close(sibling.pidfd);
  // A worker outlives its parent only to stop: gracefully, so that it can
  // remove its part; at once in a shared writer's job, where it has no part
  // and would wait for a free slot forever. The death signal survives exec.
  ::prctl(PR_SET_PDEATHSIG, ring_ ? SIGKILL : SIGTERM);
  if (parentGone(role)) ::_exit(1);  // it died before the prctl
  ::signal(SIGPIPE, SIG_IGN);        // a write to a dead parent's pipe fails instead
  if (!options_.fork) {
    // An independent job: the same command, told its role. Its descriptors
    // must survive the exec.
    for (int fd : {role.queueFd, role.doneFd, role.releaseFd, role.ringFd, role.readyFd, role.boardFd}) {
      if (fd >= 0) ::fcntl(fd, F_SETFD, 0);
    }
    std::vector<std::string> arguments = options_.commandLine;
    arguments.push_back("--worker-role");
    arguments.push_back(role.format());
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "lanes: error: cannot start worker: %s\n", std::strerror(errno));
    ::_exit(127);
  }
  int status = 1;
  try {
    processor_.afterFork();
    status = serveAsWorker(processor_, options_, role, queue_.get(), ring_.get(), *board_, runner_);
  } catch (std::exception const& error) {
    std::fprintf(stderr, "lanes: error: worker %u: %s\n", role.index, error.what());
  }
  std::fflush(nullptr);
  ::_exit(status);  // the parent's objects are the parent's to destroy
}

// Until every worker has been reaped: their reports, their deaths, the
// signals to forward, and the batches to write. Blocks in poll(), waking up
// only for what is due now and then (memory samples, the progress line,
// the watchdog).
void MultiProcessParent::watch() {
  nextSample_ = MonotonicClock::now() + kMemorySamplePeriod;
  while (true) {
    std::vector<pollfd> fds{{done_[0], POLLIN, 0}, {signals_, POLLIN, 0}, {ring_ ? ring_->readyReadFd() : -1, POLLIN, 0}};
    std::vector<WorkerProcess*> watched;
    for (auto& worker : workers_) {
      if (worker.exited) continue;
      fds.push_back({worker.pidfd, POLLIN, 0});
      watched.push_back(&worker);
    }
    if (watched.empty()) {
      if (ring_) onBatches();  // announced by workers that have ended since the last poll
      return;
    }
    if (!released_ && everyLiveWorkerDone()) measureAndRelease();
    auto const ready = ::poll(fds.data(), fds.size(), untilDue());
    if (ready < 0) {
      if (errno == EINTR) continue;
      systemError("cannot watch the workers");
    }
    runDue();
    // Batches first: a worker announces its last batch before it is done.
    if (fds[2].revents & POLLIN) onBatches();
    if (fds[0].revents & POLLIN) onDone();
    if (fds[1].revents & POLLIN) onSignal();
    for (std::size_t k = 0; k < watched.size(); ++k) {
      if (fds[k + 3].revents) onExit(*watched[k]);
    }
  }
}

// Milliseconds until the next periodic task, for poll().
int MultiProcessParent::untilDue() const {
  auto due = nextSample_;
  if (progress_.style() != ProgressStyle::Off) due = std::min(due, progress_.nextDue());
  if (watchdog_) due = std::min(due, watchdog_->nextDue());
  auto const wait = std::chrono::ceil<std::chrono::milliseconds>(due - MonotonicClock::now()).count();
  return static_cast<int>(std::max<std::int64_t>(0, wait));
}

void MultiProcessParent::runDue() {
  auto const now = MonotonicClock::now();
  if (now >= nextSample_) {
    sampleMemory();
    nextSample_ = now + kMemorySamplePeriod;
  }
  progress_.drawIfDue(eventsCounted());
  if (!watchdog_ || failed_ || now < watchdog_->nextDue()) return;
  std::vector<WorkerWatchdog::Running> running;
  for (auto const& worker : workers_) {
    if (worker.done || worker.exited) continue;
    running.push_back({worker.role.index, worker.role.residue, worker.pid, partName(worker.role.index), workerPart(worker.role)});
  }
  if (watchdog_->check(running)) failJob("watchdog: " + watchdog_->firstHang() + "; the job was stopped");
}

void MultiProcessParent::onDone() {
  std::uint32_t indices[64];
  auto const n = ::read(done_[0], indices, sizeof indices);
  for (ssize_t k = 0; k < n / static_cast<ssize_t>(sizeof(std::uint32_t)); ++k) {
    auto& worker = workers_.at(indices[k]);
    worker.done = true;
    std::ifstream in(reportPath(directory_, worker.role.index));
    worker.report = nlohmann::json::parse(in, nullptr, false);
    if (worker.report.is_discarded()) failJob(partName(worker.role.index) + " (pid " + std::to_string(worker.pid) + ") wrote no readable report");
    else if (worker.report.value("failed", false)) {
      if (!failed_ && worker.report.value("configuration_error", false)) configurationError_ = true;
      failJob(worker.report.value("error", std::string("failed")));
    }
  }
}

// The shared writer's work: each batch is merged into its output at once and
// its slot freed. Once the job has failed, batches are only freed.
void MultiProcessParent::onBatches() {
  for (auto const& batch : ring_->takeReady()) {
    if (!failed_) {
      try {
        auto const begin = monotonicNanoseconds();
        processor_.mergeOutputBatch(batch.output, batch.bytes, batch.size);
        noteParentWork("merge a batch", begin);
        ++batchesReceived_;
        bytesReceived_ += batch.size;
      } catch (std::exception const& error) {
        failJob("a batch from pid " + std::to_string(batch.sender) + ": " + error.what());
      }
    }
    ring_->release(batch.slot);
  }
}

void MultiProcessParent::onExit(WorkerProcess& worker) {
  if (::waitpid(worker.pid, &worker.status, 0) != worker.pid) systemError("cannot reap worker " + std::to_string(worker.pid));
  worker.exited = true;
  if (worker.done) return;
  // It died holding events: its part of the outputs is lost with them.
  bool const crashed = WIFSIGNALED(worker.status);
  std::string what = crashed ? std::string("killed by signal ") + std::to_string(WTERMSIG(worker.status)) + " (" +
                                   strsignal(WTERMSIG(worker.status)) + ")"
                             : "exited with status " + std::to_string(WEXITSTATUS(worker.status));
  // What it ran, and read, as it died: its last words on the board.
  auto const words = crashed ? board_->lastWords(worker.role.residue) : std::string();
  if (!words.empty()) what += " " + words;
  auto const note = crashed ? board_->crashNote(worker.role.residue) : CrashNote{};
  if (note.noted) worker.crash = crashJson(note, WTERMSIG(worker.status), processor_.info());
  if (failed_ || stopSignal_) return;  // they were told to stop, or killed
  auto const who = partName(worker.role.index) + " (pid " + std::to_string(worker.pid) + ") " + what;
  if (crashed && options_.retryLost && !released_ && worker.retries >= options_.retryLimit) {
    return failJob(who + " holding " + heldEvents(worker) + ", which " + std::to_string(worker.retries + 1) +
                   " workers died holding: --retry-limit " + std::to_string(options_.retryLimit) + " reached");
  }
  if (crashed && options_.retryLost && !released_) {
    std::fprintf(stderr, "lanes: %s; its events go to a new worker\n", who.c_str());
    worker.replacedBy = static_cast<int>(workers_.size());
    auto const dead = worker.role;  // spawn() may move the workers
    spawn(dead.residue, dead.index);
    return;
  }
  // Only a crash can be retried (not one in reading a damaged file, which
  // would kill another worker as well), and a shared writer's job cannot retry.
  bool const retryHelps =
      crashed && !note.reading && !options_.retryLost && options_.outputMode != OutputMode::SharedWriter;
  failJob(who + (retryHelps ? "; rerun with --retry-lost to give its events to another worker" : ""));
}

// What a worker held when it died, for messages: with the queue, its last
// chunk (where it was, most likely); round-robin, its residue class.
std::string MultiProcessParent::heldEvents(WorkerProcess const& worker) const {
  if (!queue_) {
    return "the events of ordinal " + std::to_string(options_.eventsBeforeFork + worker.role.residue) + " + k * " +
           std::to_string(options_.processes);
  }
  auto const chunks = queue_->chunksOf(worker.role.index);
  if (chunks.empty()) return "no events";
  auto const first = queue_->first() + chunks.back() * queue_->chunkSize();
  return "the events of ordinals " + std::to_string(first) + " to " + std::to_string(first + queue_->chunkSize() - 1);
}

void MultiProcessParent::onSignal() {
  signalfd_siginfo info{};
  if (::read(signals_, &info, sizeof info) != sizeof info) return;
  int const signal = static_cast<int>(info.ssi_signo);
  if (stopSignal_) {
    // The second one: at once, and nothing under the final names.
    std::fprintf(stderr, "lanes: %s again: aborting\n", strsignal(signal));
    for (auto const& worker : workers_) {
      if (worker.done || worker.exited) continue;
      std::fprintf(stderr, "lanes: still running: %s (pid %d, part %s), after %llu events\n",
                   partName(worker.role.index).c_str(), worker.pid, workerPart(worker.role).c_str(),
                   static_cast<unsigned long long>(board_->events(worker.role.residue)));
    }
    aborted_ = true;
    failJob(std::string(strsignal(signal)) + " again: aborted");
    return;
  }
  stopSignal_ = signal;
  std::fprintf(stderr, "lanes: %s: the workers finish their events in flight (send it again to abort)\n", strsignal(signal));
  for (auto const& worker : workers_) {
    if (!worker.exited) ::kill(worker.pid, signal);
  }
}

void MultiProcessParent::failJob(std::string error) {
  if (!failed_) error_ = std::move(error);
  failed_ = true;
  killAll();
}

void MultiProcessParent::killAll() {
  for (auto const& worker : workers_) {
    if (!worker.exited) ::kill(worker.pid, SIGKILL);
  }
}

bool MultiProcessParent::everyLiveWorkerDone() const {
  for (auto const& worker : workers_) {
    if (!worker.exited && !worker.done) return false;
  }
  return true;
}

// Every worker is alive and finished: the moment their memory is comparable
// (a page's PSS share depends on how many processes still map it).
void MultiProcessParent::measureAndRelease() {
  sampleMemory();
  if (options_.fork) {
    if (auto memory = ProcessMemory::of(::getpid())) parentMemory_ = memory->toJson();
  }
  for (auto& worker : workers_) {
    if (worker.exited) continue;
    if (auto memory = ProcessMemory::of(worker.pid)) worker.memory = memory->toJson();
  }
  board_->release();
  ::close(release_[1]);
  release_[1] = -1;
  released_ = true;
}

// The total PSS of the job now: the parent (which holds the shared state;
// not for --no-fork, where it is only a launcher) and every live worker.
void MultiProcessParent::sampleMemory() {
  std::uint64_t total = 0;
  if (options_.fork) {
    if (auto memory = ProcessMemory::of(::getpid())) total += memory->pssBytes;
  }
  for (auto& worker : workers_) {
    if (worker.exited) continue;
    if (auto memory = ProcessMemory::of(worker.pid)) {
      total += memory->pssBytes;
      worker.peakPss = std::max(worker.peakPss, memory->pssBytes);
    }
  }
  peakTotalPss_ = std::max(peakTotalPss_, total);
}

// The parts of the workers that finished are merged; those of the workers
// that died (or of every worker, when the job failed) are removed.
void MultiProcessParent::finishOutputs() {
  if (options_.outputMode == OutputMode::SharedWriter) {
    // The batches are in the files already: what is left is to close them.
    if (failed_) return processor_.abandonSharedOutputs();
    auto const begin = MonotonicClock::now();
    auto const beginNs = monotonicNanoseconds();
    try {
      processor_.commitSharedOutputs();
    } catch (Exception const& error) {
      failJob(error.what());
      processor_.abandonSharedOutputs();
    }
    mergeSeconds_ = std::chrono::duration<double>(MonotonicClock::now() - begin).count();
    noteParentWork("close the outputs", beginNs);
    return describeMergedOutputs();
  }
  std::vector<std::string> written, lost;
  if (options_.eventsBeforeFork) written.push_back(preForkPart());
  for (auto const& worker : workers_) (worker.done ? written : lost).push_back(workerPart(worker.role));
  auto const begin = monotonicNanoseconds();
  auto const merge = finishOutputParts(processor_, written, lost, failed_);
  noteParentWork(failed_ ? "discard the parts" : "merge the parts", begin);
  if (failed_) return;
  if (!merge.error.empty()) failJob(merge.error);
  mergeSeconds_ = merge.seconds;
  describeMergedOutputs();
}

void MultiProcessParent::noteParentWork(char const* what, std::int64_t beginNs) const {
  if (options_.onParentWork) options_.onParentWork(what, beginNs, monotonicNanoseconds());
}

void MultiProcessParent::describeMergedOutputs() {
  std::vector<nlohmann::json const*> parts{&preFork_};
  for (auto const& worker : workers_) parts.push_back(&worker.report);
  outputs_ = node::describeMergedOutputs(processor_, parts);
}

// The events of the parts written: the parent's before the fork, and those
// of every worker that finished.
std::uint64_t MultiProcessParent::eventsWritten() const {
  std::uint64_t events = eventsOf(preFork_);
  for (auto const& worker : workers_) {
    if (worker.done) events += eventsOf(worker.report);
  }
  return events;
}

// The events finished so far, as the workers count them on the board (a
// worker that died holding events loses its seat's count to its replacement).
std::uint64_t MultiProcessParent::eventsCounted() const {
  std::uint64_t events = eventsOf(preFork_);
  for (unsigned seat = 0; seat < board_->seats(); ++seat) events += board_->events(seat);
  return events;
}

}  // namespace

nlohmann::json MultiProcessParent::report() const {
  nlohmann::json workers = nlohmann::json::array();
  nlohmann::json memory{{"parent", parentMemory_}};
  std::uint64_t totalPss = parentMemory_.is_object() ? parentMemory_.value("pss_bytes", 0ull) : 0;
  std::uint64_t totalRss = parentMemory_.is_object() ? parentMemory_.value("rss_bytes", 0ull) : 0;
  FinishSpread spread;
  for (auto const& worker : workers_) {
    nlohmann::json entry{{"index", worker.role.index}, {"pid", worker.pid}, {"part", workerPart(worker.role)},
                         {"replacement", worker.role.replacement}, {"memory", worker.memory},
                         {"peak_pss_bytes", worker.peakPss}};
    if (WIFSIGNALED(worker.status)) entry["signal"] = WTERMSIG(worker.status);
    else entry["exit_code"] = WEXITSTATUS(worker.status);
    entry["status"] = worker.done ? (worker.report.value("failed", false) ? "failed" : "ok") : "died";
    if (worker.replacedBy) entry["replaced_by"] = *worker.replacedBy;
    if (!worker.crash.is_null()) entry["crash"] = worker.crash;
    if (!worker.done) {
      // The events it held, lost with its part of the outputs.
      if (queue_) {
        auto const chunks = queue_->chunksOf(worker.replacedBy ? static_cast<unsigned>(*worker.replacedBy) : worker.role.index);
        nlohmann::json ranges = nlohmann::json::array();
        if (!worker.replacedBy) {
          for (auto chunk : chunks) {
            auto const first = queue_->first() + chunk * queue_->chunkSize();
            ranges.push_back({first, first + queue_->chunkSize()});
          }
        }
        entry["lost_event_ordinals"] = ranges;
      } else {
        entry["lost_event_ordinals"] = {{"first", options_.eventsBeforeFork + worker.role.residue},
                                        {"every", options_.processes}};
      }
    }
    if (worker.done) {
      spread.addRow(entry, worker.report, started_);
      entry["report"] = worker.report;
    }
    if (worker.memory.is_object()) {
      totalPss += worker.memory.value("pss_bytes", 0ull);
      totalRss += worker.memory.value("rss_bytes", 0ull);
    }
    workers.push_back(std::move(entry));
  }
  memory["total_pss_bytes"] = totalPss;
  memory["total_rss_bytes"] = totalRss;
  memory["peak_total_pss_bytes"] = std::max(peakTotalPss_, totalPss);  // the end is a sample too
  auto const wall = secondsBetween(started_, finished_);
  nlohmann::json writer;  // null unless shared
  if (ring_) {
    writer = {{"batches", batchesReceived_}, {"bytes", bytesReceived_}, {"slots", ring_->slots()},
              {"slot_bytes", ring_->maxBatchBytes()}};
  }
  nlohmann::json json{{"mode", options_.fork ? "fork" : "no-fork"},
                      {"pid", ::getpid()},
                      {"output_mode", toString(options_.outputMode)},
                      {"writer", writer},
                      {"processes", options_.processes},
                      {"distribution", toString(options_.distribution)},
                      {"chunk", options_.chunk},
                      {"events_before_fork", options_.eventsBeforeFork},
                      {"threads_at_fork", threadsAtFork_},
                      {"events", eventsWritten()},
                      {"wall_s", wall},
                      {"events_per_s", wall > 0 ? static_cast<double>(eventsWritten()) / wall : 0.0},
                      {"finish_spread_s", spread.seconds()},
                      {"merge_s", mergeSeconds_},
                      {"prefork", preFork_},
                      {"workers", workers},
                      {"outputs", outputs_},
                      {"watchdog", watchdog_ ? watchdog_->toJson() : nlohmann::json()},
                      {"memory", memory},
                      {"failed", failed_},
                      {"error", error_},
                      {"configuration_error", configurationError_},
                      {"stop_requested", stopSignal_ != 0},
                      {"aborted", aborted_},
                      {"signal", stopSignal_}};
  addMergedFigures(json);
  listCrashesUnderTheirModules(json, processor_.info());
  return json;
}

// ---------------------------------------------------------------- public

nlohmann::json runMultiProcess(EventProcessor& processor, MultiProcessOptions const& options, PartRunner const& runner) {
  validate(options, processor);
  MultiProcessParent supervisor(processor, options, runner);
  return supervisor.run();
}

}  // namespace lanes::node
