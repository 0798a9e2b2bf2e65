#include "lanes/node/Supervisor.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <iomanip>
#include <list>
#include <set>
#include <sstream>

#include "lanes/core/Exception.h"
#include "lanes/node/Allocator.h"
#include "lanes/node/Pinning.h"
#include "lanes/node/SupervisorUsage.h"

namespace lanes::node {

namespace {

using SteadyClock = std::chrono::steady_clock;

double secondsBetween(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

double seconds(timeval const& time) { return static_cast<double>(time.tv_sec) + time.tv_usec * 1e-6; }

std::string fixed(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

// Blocks SIGCHLD for the supervisor's lifetime, so that sigtimedwait() can
// wait for "a job ended" and "time for the next sample" at once.
class BlockedChildSignal {
 public:
  BlockedChildSignal() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set_, &previous_);
  }
  ~BlockedChildSignal() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }

  void waitAtMost(double seconds) const {
    if (seconds <= 0) return;
    timespec timeout{static_cast<time_t>(seconds), static_cast<long>(std::fmod(seconds, 1.0) * 1e9)};
    sigtimedwait(&set_, nullptr, &timeout);  // a signal, a timeout or an interruption: the caller looks again
  }

 private:
  sigset_t set_;
  sigset_t previous_;
};

struct RunningJob {
  std::size_t outcome;  // index into the outcomes
  SteadyClock::time_point started;
  OveruseDetector detector;
  std::set<pid_t> boundThreads;
  bool overLogged = false;
};

// One supervisor run; the state of Supervisor::run().
class SupervisorRun {
 public:
  SupervisorRun(std::vector<ProcessingUnit> const& pus, SupervisorOptions const& options, Supervisor::Log const& log,
                std::vector<JobSpec> const& jobs)
      : allocator_(pus), options_(options), log_(log) {
    for (auto const& job : jobs) outcomes_.push_back({job, {}, 0, 0, 0, 0, 0, 0, {}, false, 0, 0});
    for (std::size_t i = 0; i < jobs.size(); ++i) pending_.push_back(i);
  }

  std::vector<JobOutcome> run() {
    BlockedChildSignal childSignal;
    auto nextSample = SteadyClock::now();
    startReadyJobs();
    while (!running_.empty()) {
      childSignal.waitAtMost(secondsBetween(SteadyClock::now(), nextSample));
      reapEndedJobs();
      if (SteadyClock::now() >= nextSample) {
        sampleJobs();
        nextSample = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                              std::chrono::duration<double>(options_.intervalSeconds));
      }
      startReadyJobs();
    }
    return outcomes_;
  }

 private:
  std::string nameOf(JobOutcome const& outcome) const { return "job '" + outcome.job.name + "'"; }

  // In file order: a job waits while an earlier one waits for PUs.
  void startReadyJobs() {
    while (!pending_.empty()) {
      auto& outcome = outcomes_[pending_.front()];
      try {
        outcome.pus = allocator_.allocate(options_.strategy, outcome.job.cores);
      } catch (Exception const&) {
        return;  // not enough free PUs yet: checkEachJobFits() made sure that some job ends first
      }
      start(pending_.front());
      pending_.pop_front();
    }
  }

  void start(std::size_t index) {
    auto& outcome = outcomes_[index];
    bool const atStart = options_.confinement == Confinement::AtStart && options_.strategy.binds();
    outcome.startedAt = secondsBetween(begin_, SteadyClock::now());
    try {
      outcome.pid = spawnPinned(outcome.job.argv, atStart ? outcome.pus : CpuSet{});
    } catch (Exception const& error) {
      outcome.error = error.message();
      outcome.exitCode = 127;
      allocator_.release(outcome.pus);
      log_(nameOf(outcome) + " not started: " + outcome.error);
      return;
    }
    outcome.confined = atStart;
    running_.push_back({index, SteadyClock::now(),
                        OveruseDetector(outcome.job.cores, options_.tolerance, options_.graceSeconds), {}, false});
    log_(nameOf(outcome) + " started: pid " + std::to_string(outcome.pid) + ", " + std::to_string(outcome.job.cores) +
         " cores, PUs " + toString(outcome.pus) + (atStart ? " (bound)" : ""));
  }

  void reapEndedJobs() {
    for (auto it = running_.begin(); it != running_.end();) {
      auto& outcome = outcomes_[it->outcome];
      int status = 0;
      rusage usage{};
      if (wait4(outcome.pid, &status, WNOHANG, &usage) != outcome.pid) {
        ++it;
        continue;
      }
      outcome.wallSeconds = secondsBetween(it->started, SteadyClock::now());
      outcome.userSeconds = seconds(usage.ru_utime);
      outcome.systemSeconds = seconds(usage.ru_stime);
      outcome.exitCode = exitCodeOf(status);
      outcome.peakUsage = it->detector.peakUsage();
      allocator_.release(outcome.pus);
      log_(nameOf(outcome) + " ended: exit code " + std::to_string(outcome.exitCode) + " after " +
           fixed(outcome.wallSeconds, 2) + " s (user " + fixed(outcome.userSeconds, 2) + " s, sys " +
           fixed(outcome.systemSeconds, 2) + " s)");
      it = running_.erase(it);
    }
  }

  void sampleJobs() {
    auto const table = ProcessTable::scan();
    for (auto& job : running_) {
      try {
        sample(job, table);
      } catch (Exception const& error) {
        log_(nameOf(outcomes_[job.outcome]) + ": " + error.message());
      }
    }
  }

  void sample(RunningJob& job, ProcessTable const& table) {
    auto& outcome = outcomes_[job.outcome];
    auto const tree = table.treeOf(outcome.pid);
    double const age = secondsBetween(job.started, SteadyClock::now());
    bool const overdue = job.detector.overdue(age, table.cpuSeconds(tree));
    if (outcome.confined) {
      auto const fresh = confineThreads(tree, outcome.pus, job.boundThreads);
      if (fresh > 0 && options_.confinement == Confinement::OnOveruse) {
        log_(nameOf(outcome) + ": bound " + std::to_string(fresh) + " new threads to PUs " + toString(outcome.pus));
      }
      return;
    }
    if (job.detector.over() && !job.overLogged) {
      job.overLogged = true;
      log_(nameOf(outcome) + " uses " + fixed(job.detector.lastUsage(), 2) + " cores of its " +
           std::to_string(outcome.job.cores) + " (grace " + fixed(options_.graceSeconds, 1) + " s)");
    }
    if (!job.detector.over()) job.overLogged = false;
    if (!overdue || !options_.strategy.binds()) return;
    auto const bound = confineThreads(tree, outcome.pus, job.boundThreads);
    outcome.confined = true;
    outcome.confinedAt = age;
    log_(nameOf(outcome) + " confined to PUs " + toString(outcome.pus) + ": " + std::to_string(bound) + " threads in " +
         std::to_string(tree.size()) + " processes, after using " + fixed(job.detector.lastUsage(), 2) +
         " cores for longer than " + fixed(options_.graceSeconds, 1) + " s");
  }

  NodeAllocator allocator_;
  SupervisorOptions const& options_;
  Supervisor::Log const& log_;
  std::vector<JobOutcome> outcomes_;
  std::deque<std::size_t> pending_;
  std::list<RunningJob> running_;
  SteadyClock::time_point const begin_ = SteadyClock::now();
};

char const* toString(Confinement confinement) { return confinement == Confinement::AtStart ? "start" : "overuse"; }

}  // namespace

void checkEachJobFits(std::vector<ProcessingUnit> const& pus, PinStrategy const& strategy,
                      std::vector<JobSpec> const& jobs) {
  for (auto const& job : jobs) {
    try {
      choosePus(pus, strategy, job.cores);
    } catch (Exception const& error) {
      throw Exception("job on line " + std::to_string(job.line) + " can never run: " + error.message());
    }
  }
}

Supervisor::Supervisor(Topology const& topology, SupervisorOptions options, Log log)
    : pus_(topology.pus()), options_(options), log_(std::move(log)) {
  if (!topology.isThisMachine()) throw Exception("the supervisor runs jobs on this machine only, not on " + topology.source());
}

std::vector<JobOutcome> Supervisor::run(std::vector<JobSpec> const& jobs) {
  checkEachJobFits(pus_, options_.strategy, jobs);
  return SupervisorRun(pus_, options_, log_, jobs).run();
}

nlohmann::json toJson(SupervisorOptions const& options, std::vector<JobOutcome> const& outcomes) {
  auto jobs = nlohmann::json::array();
  for (auto const& outcome : outcomes) {
    jobs.push_back({{"line", outcome.job.line},
                    {"name", outcome.job.name},
                    {"command", outcome.job.argv},
                    {"cores", outcome.job.cores},
                    {"pus", outcome.pus},
                    {"pid", outcome.pid},
                    {"started_s", outcome.startedAt},
                    {"wall_s", outcome.wallSeconds},
                    {"user_s", outcome.userSeconds},
                    {"sys_s", outcome.systemSeconds},
                    {"exit_code", outcome.exitCode},
                    {"error", outcome.error},
                    {"confined", outcome.confined},
                    {"confined_after_s", outcome.confined ? nlohmann::json(outcome.confinedAt) : nlohmann::json()},
                    {"peak_usage_cores", outcome.peakUsage}});
  }
  return {{"strategy", options.strategy.name()},
          {"interval_s", options.intervalSeconds},
          {"grace_s", options.graceSeconds},
          {"tolerance", options.tolerance},
          {"confine", toString(options.confinement)},
          {"jobs", jobs}};
}

void printTable(std::ostream& out, std::vector<JobOutcome> const& outcomes) {
  out << std::left << std::setw(20) << "job" << std::right << std::setw(6) << "cores" << "  " << std::left
      << std::setw(12) << "PUs" << std::right << std::setw(9) << "wall s" << std::setw(9) << "user s" << std::setw(9)
      << "sys s" << std::setw(6) << "exit" << "  confined\n";
  for (auto const& outcome : outcomes) {
    out << std::left << std::setw(20) << outcome.job.name << std::right << std::setw(6) << outcome.job.cores << "  "
        << std::left << std::setw(12) << toString(outcome.pus) << std::right << std::setw(9)
        << fixed(outcome.wallSeconds, 2) << std::setw(9) << fixed(outcome.userSeconds, 2) << std::setw(9)
        << fixed(outcome.systemSeconds, 2) << std::setw(6) << outcome.exitCode << "  "
        << (outcome.confined ? "after " + fixed(outcome.confinedAt, 2) + " s" : "no") << "\n";
  }
}

}  // namespace lanes::node
