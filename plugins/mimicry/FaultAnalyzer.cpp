#include "mimicry/FaultAnalyzer.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {
namespace {

FaultAnalyzer::Action readAction(PluginOptions const& options) {
  auto const action =
      options.choice("action", "throw", {"throw", "abort", "hang", "interrupt", "terminate", "sleep", "wait"});
  if (action == "abort") return FaultAnalyzer::Action::Abort;
  if (action == "hang") return FaultAnalyzer::Action::Hang;
  if (action == "interrupt") return FaultAnalyzer::Action::Interrupt;
  if (action == "terminate") return FaultAnalyzer::Action::Terminate;
  if (action == "sleep") return FaultAnalyzer::Action::Sleep;
  if (action == "wait") return FaultAnalyzer::Action::Wait;
  return FaultAnalyzer::Action::Throw;
}

std::uint64_t readEventNumber(PluginOptions const& options) {
  options.required("at");
  return options.positive("at", 1);
}

double readSeconds(PluginOptions const& options) {
  options.required("seconds");
  return options.nonNegative("seconds", 0);
}

[[noreturn]] void hang() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

void waitFor(std::string const& path) {
  while (::access(path.c_str(), F_OK) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

FaultAnalyzer::FaultAnalyzer(std::string label, Options const& options)
    : FaultAnalyzer(std::move(label), PluginOptions(options, "fault")) {}

FaultAnalyzer::FaultAnalyzer(std::string label, PluginOptions const& options)
    : Analyzer(std::move(label)),
      at_(readEventNumber(options)),
      action_(readAction(options)),
      seconds_(action_ == Action::Sleep ? readSeconds(options) : 0),
      until_(action_ == Action::Wait ? options.required("until") : ""),
      once_(options.raw().getString("once").value_or("")) {
  for (auto const& product : options.raw().getAll("consumes")) consumesAny(product);
}

void FaultAnalyzer::beginJob(JobContext const& context) {
  seen_.store(false);
  ranWholeJob_ = context.ranWholeJob;
  if (context.lastEventNumber != 0 && at_ > context.lastEventNumber) {
    throw ConfigurationError("option 'at': no event is numbered " + std::to_string(at_) + ": this job's events are 1 to " +
                             std::to_string(context.lastEventNumber) + " (at= is an event number, not an ordinal)");
  }
  if (context.lastEventNumber == 0 && context.hasEventNumber && context.hasEventNumber(at_) == false) {
    throw ConfigurationError("option 'at': no event of this job is numbered " + std::to_string(at_) +
                             " (at= is an event number, as in run:lumi:event, not an ordinal)");
  }
}

void FaultAnalyzer::endJob() {
  if (seen_.load() || !ranWholeJob_ || !ranWholeJob_()) return;
  throw Exception("option 'at': the job ended without an event numbered " + std::to_string(at_) +
                  ": the fault never fired (at= is an event number, as in run:lumi:event, not an ordinal)");
}

void FaultAnalyzer::analyze(Event const& event) const {
  if (event.id().event != at_) return;
  seen_.store(true);
  if (!firstTime()) return;
  switch (action_) {
    case Action::Throw: throw Exception("fault injected at event " + std::to_string(at_));
    case Action::Abort: std::abort();
    case Action::Hang: hang();
    case Action::Interrupt: ::kill(::getpid(), SIGINT); return;  // to the process, not this thread
    case Action::Terminate: ::kill(::getpid(), SIGTERM); return;
    case Action::Sleep: std::this_thread::sleep_for(std::chrono::duration<double>(seconds_)); return;
    case Action::Wait: waitFor(until_); return;
  }
}

// With once=PATH the fault strikes only if PATH does not exist yet, and
// creates it: a transient failure, which a rerun of the event survives.
bool FaultAnalyzer::firstTime() const {
  if (once_.empty()) return true;
  int const fd = ::open(once_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

namespace {
RegisterModule<FaultAnalyzer> const registration(
    "fault", "injects a failure at the event numbered at=K (its event number, as in run:lumi:event, not its ordinal; "
    "refused when the job has no such event; a job that ends without it fails): "
    "action=throw|abort|hang|interrupt|terminate|sleep (seconds=S)|wait (until=PATH exists), consumes=LABEL, "
    "once=PATH (only if PATH does not exist; creates it: a transient fault)");
}

}  // namespace lanes::mimicry
