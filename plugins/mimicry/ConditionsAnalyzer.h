#pragma once
// The `conditions` module: the read-only state a real job builds once at
// initialisation (detector geometry, calibrations, magnetic field maps) and
// every event reads. It is what makes forking after initialisation pay:
// workers share it copy-on-write instead of each building its own.

#include <cstdint>
#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

// Immutable after construction; analyze() runs concurrently for all lanes
// and only reads.
class ConditionsAnalyzer : public global::Analyzer {
 public:
  // Options: bytes=N (required: the size of the state), reads=K (values read
  // per event, default 1000, at places that depend on the event number).
  ConditionsAnalyzer(std::string label, Options const& options);

  void analyze(Event const& event) const override;

  // The values event `eventNumber` reads, summed: what analyze() computes.
  std::uint64_t lookup(std::uint64_t eventNumber) const;

 private:
  ConditionsAnalyzer(std::string label, PluginOptions const& options);

  std::vector<std::uint64_t> state_;
  std::uint64_t reads_;
};

}  // namespace lanes::mimicry
