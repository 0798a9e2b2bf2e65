#include "MultiProcessWorker.h"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>

#include "MonotonicClock.h"
#include "WorkerWatchdog.h"
#include "lanes/core/Exception.h"
#include "lanes/core/TemporaryName.h"
#include "lanes/monitor/AtomicFile.h"

namespace lanes::node {

std::string partName(unsigned slot) { return "worker-" + std::to_string(slot); }

std::string workerPart(WorkerRole const& role) { return jobPartName(partName(role.index), role.parent); }

std::string reportPath(std::string const& directory, unsigned slot) {
  return directory + "/" + partName(slot) + ".json";
}

bool parentGone(WorkerRole const& role) { return ::getppid() != role.parent; }

namespace {

// Reads until end-of-file: the parent closes its end to release the workers.
void waitForRelease(int fd) {
  char byte;
  while (::read(fd, &byte, 1) != 0) {
    if (errno != EINTR) break;
  }
}

// The worker's part: its events, by the job's distribution.
std::unique_ptr<EventDispenser> dispenserFor(MultiProcessOptions const& options, WorkerRole const& role,
                                             SharedEventQueue* queue) {
  if (queue) return std::make_unique<QueueDispenser>(*queue, role.index, queue->chunksOf(role.index));
  return std::make_unique<RoundRobinDispenser>(options.eventsBeforeFork, role.residue, options.processes);
}

// Nobody will merge this worker's part, so it goes, with the parent's
// directory of reports.
int abandon(EventProcessor& processor, WorkerRole const& role) {
  processor.discardOutputParts({workerPart(role)});
  std::error_code ignored;
  std::filesystem::remove_all(role.directory, ignored);
  return 1;
}

}  // namespace

int serveAsWorker(EventProcessor& processor, MultiProcessOptions const& options, WorkerRole const& role,
                  SharedEventQueue* queue, BatchRing* ring, WorkerBoard& board, PartRunner const& runner) {
  nlohmann::json report;
  {
    // It beats, and counts its events, until the parent is told it is done.
    WorkerPresence presence(board, role.residue, heartbeatPeriod(options.watchdogSeconds));
    processor.addObserver(&presence);
    auto dispenser = dispenserFor(options, role, queue);
    auto const started = monotonicNanoseconds();
    report = runner(processor, {workerPart(role), dispenser.get(), 0, role.residue, options.processes, ring});
    processor.clearObservers();
    if (parentGone(role)) return abandon(processor, role);
    if (auto* chunks = dynamic_cast<QueueDispenser*>(dispenser.get()); chunks && chunks->exhausted()) {
      report["failed"] = true;
      report["error"] = "the event queue ran out of chunks before the source ended: raise --chunk";
    }
    report["pid"] = ::getpid();
    report["started_ns"] = started;
    report["finished_ns"] = monotonicNanoseconds();
    writeAtomically(reportPath(role.directory, role.index), [&](std::ostream& out) { out << report.dump(); });
    std::uint32_t const index = role.index;
    if (::write(role.doneFd, &index, sizeof index) != sizeof index) return parentGone(role) ? abandon(processor, role) : 1;
  }
  waitForRelease(role.releaseFd);
  // The pipe closes when the parent releases the workers, and when it dies
  // while they wait: then nobody merges the part.
  if (!board.released() || parentGone(role)) return abandon(processor, role);
  processor.endJob();
  return report.value("failed", false) ? 1 : 0;
}

std::string WorkerRole::format() const {
  return std::to_string(index) + ":" + std::to_string(parent) + ":" + std::to_string(residue) + ":" + (replacement ? "1" : "0") + ":" +
         std::to_string(queueFd) + ":" + std::to_string(doneFd) + ":" + std::to_string(releaseFd) + ":" +
         std::to_string(ringFd) + ":" + std::to_string(readyFd) + ":" + std::to_string(boardFd) + ":" + directory;
}

WorkerRole WorkerRole::parse(std::string const& text) {
  WorkerRole role;
  int replacement = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%u:%d:%u:%d:%d:%d:%d:%d:%d:%d:%n", &role.index, &role.parent, &role.residue, &replacement,
                  &role.queueFd, &role.doneFd, &role.releaseFd, &role.ringFd, &role.readyFd, &role.boardFd,
                  &consumed) != 10 ||
      consumed == 0 || role.doneFd < 0 || role.releaseFd < 0 || role.boardFd < 0 || (role.ringFd < 0) != (role.readyFd < 0)) {
    throw Exception("--worker-role '" + text + "' is not one this program wrote (it is for lanes' own use)");
  }
  role.replacement = replacement != 0;
  role.directory = text.substr(static_cast<std::size_t>(consumed));
  return role;
}

int runWorkerProcess(EventProcessor& processor, MultiProcessOptions const& options, WorkerRole const& role,
                     PartRunner const& runner) {
  std::unique_ptr<SharedEventQueue> queue;
  if (role.queueFd >= 0) queue = std::make_unique<SharedEventQueue>(role.queueFd);
  std::unique_ptr<BatchRing> ring;
  if (role.ringFd >= 0) ring = std::make_unique<BatchRing>(BatchRing::Descriptors{role.ringFd, role.readyFd});
  WorkerBoard board(WorkerBoard::Descriptor{role.boardFd});
  processor.beginJob();
  return serveAsWorker(processor, options, role, queue.get(), ring.get(), board, runner);
}

}  // namespace lanes::node
