#pragma once
// The `conditions` module: the read-only state a real job builds once at
// initialisation (detector geometry, calibrations, magnetic field maps) and
// every event reads. It is what makes forking after initialisation pay:
// workers share it copy-on-write instead of each building its own. With
// record=NAME it reads a record of the job's conditions service instead
// (lanes/core/Conditions.h): the payload of each event's interval of
// validity, which changes with the lumis.

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
  // Options: bytes=N (the size of the state) or record=NAME (a conditions
  // record's payload: one of the two is required), reads=K (values read per
  // event, default 1000, at places that depend on the event number).
  ConditionsAnalyzer(std::string label, Options const& options);

  void analyze(Event const& event) const override;

  // The values event `eventNumber` reads of `values`, summed: what analyze() computes.
  std::uint64_t lookup(std::uint64_t eventNumber, std::vector<std::uint64_t> const& values) const;
  std::uint64_t lookup(std::uint64_t eventNumber) const { return lookup(eventNumber, state_); }

 private:
  ConditionsAnalyzer(std::string label, PluginOptions const& options);

  // The event's values: the module's own state, or its record's payload.
  std::vector<std::uint64_t> const& valuesOf(Event const& event) const;

  std::vector<std::uint64_t> state_;
  ConditionsToken record_;
  std::uint64_t reads_;
};

}  // namespace lanes::mimicry
