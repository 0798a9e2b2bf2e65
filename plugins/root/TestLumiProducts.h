#pragma once
// The `test-lumi-products` module: run and lumi products of types ROOT
// knows, each a known function of the event numbers of its run or lumi, so
// that a test can recompute them after a round trip through a format's run
// and lumi records (root-events, pds, hdf5):
//   lumi_events (std::uint64_t)         the lumi's events
//   lumi_numbers (std::vector<double>)  {the sum of their event numbers, the sum of their squares}
//   lumi_track (TestTrack)              the same as a user class that merges by a mergeInto() of its own
//   run_events, run_numbers             the same for the run
// With unmergeable=true also lumi_name (std::string, "RUN:LUMI"), which
// cannot be merged: a job in which a lumi comes back fails naming it; with
// unstorable=true lumi_opaque (a class without a ROOT dictionary), which no
// format can store: a job that writes records is refused naming it.

#include <cstdint>
#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "root/TestTrack.h"

namespace lanes::rootio {

// What the products are made of: a value type, merged by adding up.
struct EventNumbers {
  std::uint64_t events = 0;
  double sum = 0;
  double squares = 0;
  void add(std::uint64_t number) {
    ++events;
    sum += static_cast<double>(number);
    squares += static_cast<double>(number) * static_cast<double>(number);
  }
};
void mergeInto(EventNumbers& into, EventNumbers const& from);

// lumi_opaque's class: ROOT has no dictionary for it.
struct Unstorable {
  std::uint64_t events = 0;
};
void mergeInto(Unstorable& into, Unstorable const& from);

// lumi_track: charge the events, hits {the events}, pt the sum of their event
// numbers, algorithm "lumi".
TestTrack trackOf(EventNumbers const& numbers);
// Adds up charge, pt, covariance and hits (element by element); keeps the algorithm.
void mergeInto(TestTrack& into, TestTrack const& from);

// Thread-safe: analyze() for any lanes adds to its lane's cells (LumiSum,
// RunSum); endLumi() and endRun() for several blocks at once read only
// their own.
class TestLumiProducts : public global::Analyzer {
 public:
  // Options: unmergeable=true|false, unstorable=true|false (false).
  TestLumiProducts(std::string label, Options const& options);

  void analyze(Event const& event) const override;
  void endLumi(Lumi& lumi) const override;
  void endRun(Run& run) const override;

 private:
  bool unmergeable_;
  bool unstorable_;
  LumiToken<std::uint64_t> lumiEvents_;
  LumiToken<std::vector<double>> lumiNumbers_;
  LumiToken<TestTrack> lumiTrack_;
  LumiToken<std::string> lumiName_;   // unmergeable=true
  LumiToken<Unstorable> lumiOpaque_;  // unstorable=true
  RunToken<std::uint64_t> runEvents_;
  RunToken<std::vector<double>> runNumbers_;
  LumiSum<EventNumbers> lumiSums_{*this};
  RunSum<EventNumbers> runSums_{*this};
};

}  // namespace lanes::rootio
