#pragma once
// The `fault` module: injects a failure at one event, to test how the
// framework (and the tools around it) handle an exception, a crash, a hang or
// an interruption.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

// Thread-safe: analyze() runs concurrently for all lanes; it only marks,
// atomically, that the event numbered at= came. The job transitions run on
// the job's thread.
class FaultAnalyzer : public global::Analyzer {
 public:
  enum class Action {
    Throw,  // throws lanes::Exception("fault injected at event K")
    Abort,  // std::abort(): the process dies
    Hang,       // never returns
    Interrupt,  // sends SIGINT to its own process, as a Ctrl-C would
    Terminate,  // sends SIGTERM to its own process, as a batch system would
    Sleep,      // sleeps seconds=S, then goes on: a call that is slow, not dead
    Wait,       // waits until the file until=PATH exists, then goes on: a job held where a test wants it
  };

  // Options: at=K (required: the event whose number, as in run:lumi:event,
  // is K; not the K-th event processed), action=throw|abort|hang|interrupt|terminate|sleep|wait
  // (default throw), seconds=S (sleep's, required), until=PATH (wait's, required), consumes=LABEL
  // (repeatable; to place it after producers), once=PATH (strike only if PATH does not exist, and create it).
  FaultAnalyzer(std::string label, Options const& options);

  // Refuses an at= that no event of the job has (when the job knows its
  // event numbers, or the source can read them ahead): a fault that can
  // never strike tests nothing.
  void beginJob(JobContext const& context) override;
  void analyze(Event const& event) const override;
  // Where the source could not tell: a job that ran to its end without the
  // event numbered at= fails, naming the fault that never fired. (In a
  // multi-process or MPI job's part, which sees only some events, it cannot
  // know: there only the check of beginJob() applies.)
  void endJob() override;

 private:
  FaultAnalyzer(std::string label, PluginOptions const& options);

  bool firstTime() const;

  std::uint64_t at_;
  Action action_;
  double seconds_;     // Sleep's
  std::string until_;  // Wait's
  std::string once_;
  mutable std::atomic<bool> seen_{false};  // the event numbered at_ came
  std::function<bool()> ranWholeJob_;
};

}  // namespace lanes::mimicry
