#pragma once
// The `lumi-work` module: what a lumi costs a job besides its events. A
// per-lumi summary (a luminosity sum, a count) costs end-lumi=SECONDS at each
// lumi's end, and is put as the lumi product LABEL: the events the module saw
// in that lumi, summed over lanes without a lock. With concurrency=one it is a
// module that watches lumis one at a time (a histogramming service that books
// per-lumi histograms, say): the job then holds one lumi in flight, and every
// lumi boundary waits for the lanes to drain.

#include <cstdint>
#include <memory>
#include <string>

#include "lanes/core/Lumi.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "mimicry/WorkMode.h"

namespace lanes::mimicry {

// Immutable after construction: what each transition and event costs.
struct LumiCosts {
  explicit LumiCosts(PluginOptions const& options);
  double event;      // time=SECONDS per event
  double beginLumi;  // begin-lumi=SECONDS
  double endLumi;    // end-lumi=SECONDS
  WorkMode work;     // work=busy|sleep
};

// global: thread-safe; analyze() runs for several lumis at once.
class GlobalLumiWork final : public global::Analyzer {
 public:
  GlobalLumiWork(std::string const& label, LumiCosts costs);
  void analyze(Event const& event) const override;
  void beginLumi(Lumi const& lumi) const override;
  void endLumi(Lumi& lumi) const override;

 private:
  LumiCosts const costs_;
  LumiToken<std::uint64_t> events_;
  LumiSum<std::uint64_t> seen_{*this};
};

// one: never entered concurrently; sees lumis one at a time.
class OneLumiWork final : public one::Analyzer {
 public:
  OneLumiWork(std::string const& label, LumiCosts costs);
  void analyze(Event const& event) override;
  void beginLumi(Lumi const& lumi) override;
  void endLumi(Lumi& lumi) override;

 private:
  LumiCosts const costs_;
  LumiToken<std::uint64_t> events_;
  std::uint64_t seen_ = 0;
};

}  // namespace lanes::mimicry
