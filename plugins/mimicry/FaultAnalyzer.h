#pragma once
// The `fault` module: injects a failure at one event, to test how the
// framework (and the tools around it) handle an exception, a crash, a hang or
// an interruption.

#include <cstdint>
#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

// Immutable after construction; analyze() runs concurrently for all lanes.
class FaultAnalyzer : public global::Analyzer {
 public:
  enum class Action {
    Throw,  // throws lanes::Exception("fault injected at event K")
    Abort,  // std::abort(): the process dies
    Hang,       // never returns
    Interrupt,  // sends SIGINT to its own process, as a Ctrl-C would
    Terminate,  // sends SIGTERM to its own process, as a batch system would
    Sleep,      // sleeps seconds=S, then goes on: a call that is slow, not dead
  };

  // Options: at=K (required: the event whose number, as in run:lumi:event,
  // is K; not the K-th event processed), action=throw|abort|hang|interrupt|terminate|sleep
  // (default throw), seconds=S (sleep's, required), consumes=LABEL (repeatable; to place it after producers),
  // once=PATH (strike only if PATH does not exist, and create it).
  FaultAnalyzer(std::string label, Options const& options);

  // Refuses an at= that no event of the job has (when the job knows its
  // event numbers): a fault that can never strike tests nothing.
  void beginJob(JobContext const& context) override;
  void analyze(Event const& event) const override;

 private:
  FaultAnalyzer(std::string label, PluginOptions const& options);

  bool firstTime() const;

  std::uint64_t at_;
  Action action_;
  double seconds_;  // Sleep's
  std::string once_;
};

}  // namespace lanes::mimicry
