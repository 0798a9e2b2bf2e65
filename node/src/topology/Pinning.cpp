#include "lanes/node/Pinning.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

cpu_set_t toCpuSet(CpuSet const& pus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (auto pu : pus) {
    if (pu >= CPU_SETSIZE) throw Exception("PU " + std::to_string(pu) + " is beyond what sched_setaffinity can name");
    CPU_SET(pu, &set);
  }
  return set;
}

std::string threadName(pid_t tid) { return tid == 0 ? "this thread" : "thread " + std::to_string(tid); }

}  // namespace

bool setAffinity(pid_t tid, CpuSet const& pus) {
  auto const set = toCpuSet(pus);
  if (sched_setaffinity(tid, sizeof set, &set) != 0) {
    if (errno == ESRCH) return false;
    throw Exception("cannot bind " + threadName(tid) + " to PUs " + toString(pus) + ": " + std::strerror(errno));
  }
  return true;
}

CpuSet affinityOf(pid_t tid) {
  cpu_set_t set;
  if (sched_getaffinity(tid, sizeof set, &set) != 0) {
    throw Exception("cannot read the affinity of " + threadName(tid) + ": " + std::strerror(errno));
  }
  CpuSet pus;
  for (unsigned pu = 0; pu < CPU_SETSIZE; ++pu) {
    if (CPU_ISSET(pu, &set)) pus.push_back(pu);
  }
  return pus;
}

ThreadPinner::ThreadPinner(CpuSet pus) : pus_(std::move(pus)) {
  if (pus_.empty()) throw Exception("no PUs to pin threads to");
}

void ThreadPinner::pinCallingThread() noexcept {
  std::lock_guard lock(mutex_);
  auto [it, added] = assigned_.emplace(gettid(), pus_[assigned_.size() % pus_.size()]);
  try {
    setAffinity(0, {it->second});
  } catch (Exception const& error) {
    if (firstError_.empty()) firstError_ = error.message();
  }
}

std::size_t ThreadPinner::threadsPinned() const {
  std::lock_guard lock(mutex_);
  return assigned_.size();
}

std::string ThreadPinner::firstError() const {
  std::lock_guard lock(mutex_);
  return firstError_;
}

pid_t spawnPinned(std::vector<std::string> const& argv, CpuSet const& pus) {
  if (argv.empty()) throw Exception("no command to run");
  std::vector<char*> args;
  for (auto const& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  auto const affinity = toCpuSet(pus);
  // The child reports a failed exec through a pipe that a successful exec closes.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) throw Exception(std::string("cannot create a pipe: ") + std::strerror(errno));
  pid_t const pid = fork();
  if (pid < 0) {
    auto const reason = std::string(std::strerror(errno));
    close(report[0]);
    close(report[1]);
    throw Exception("cannot fork to run '" + argv[0] + "': " + reason);
  }
  if (pid == 0) {
    // Async-signal-safe calls only between fork and exec.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // the supervisor blocks SIGCHLD; its jobs must not inherit that
    int error = 0;
    if (!pus.empty() && sched_setaffinity(0, sizeof affinity, &affinity) != 0) error = errno;
    if (error == 0) {
      execvp(args[0], args.data());
      error = errno;
    }
    [[maybe_unused]] auto written = write(report[1], &error, sizeof error);
    _exit(127);
  }
  close(report[1]);
  int error = 0;
  ssize_t got = 0;
  while ((got = read(report[0], &error, sizeof error)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (got > 0) {
    waitpid(pid, nullptr, 0);
    throw Exception("cannot run '" + argv[0] + "': " + std::strerror(error));
  }
  return pid;
}

int exitCodeOf(int waitStatus) {
  if (WIFSIGNALED(waitStatus)) return 128 + WTERMSIG(waitStatus);
  return WEXITSTATUS(waitStatus);
}

}  // namespace lanes::node
