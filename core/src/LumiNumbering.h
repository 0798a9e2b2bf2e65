#pragma once
// The runs and lumis of a source whose events are numbered by ordinal
// (empty, synthetic, test-products, and any source with repeat=): the job
// numbers them itself, from the options every such SPEC takes:
//   events-per-lumi=N          every lumi N events (default: one lumi for the whole job)
//   events-per-lumi=A:B:C...   lumis of A, B, C, ... events in turn, cycled (0: a lumi without events)
//   events-per-lumi=uniform:A:B  lumis of A to B events, drawn at random (lumi-seed=S, default 1)
//   lumis-per-run=M            M lumis a run (default: one run)
//   first-run=R                the first run's number (default 1); lumis count from 1 in each run

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lanes/core/Options.h"
#include "lanes/core/Source.h"

namespace lanes::detail {

// Thread-safe: stretchAt() may be called by any lane (lengths drawn in turn
// are kept under a lock; fixed lengths need none).
class LumiNumbering {
 public:
  // Takes the options above out of `options` (a SPEC's); nullopt when it has
  // none of them. Throws lanes::Exception naming the option for a bad value.
  static std::optional<LumiNumbering> take(Options& options, std::string const& source);
  // One run, one lumi: what a numbered source without the options has.
  LumiNumbering() = default;

  // The stretch that holds `ordinal` (Source::stretchAt), of an input of
  // `events` events (nullopt: endless).
  LumiStretch stretchAt(std::uint64_t ordinal, std::optional<std::uint64_t> events);
  // The lumi of the k-th lumi (0, 1, 2, ...).
  LumiNumber numberOf(std::uint64_t k) const;

  LumiNumbering(LumiNumbering&& other) noexcept;

 private:
  enum class Lengths { One, Fixed, Cycle, Uniform };
  // Cycle and Uniform, under lock_: the next lumi's length, and where lumi k begins.
  void drawNext();
  std::uint64_t lengthOf(std::uint64_t k);
  std::uint64_t startOf(std::uint64_t k) const { return k ? ends_[k - 1] : 0; }

  Lengths lengths_ = Lengths::One;
  std::vector<std::uint64_t> cycle_;  // Fixed: one length; Cycle: the lengths in turn; Uniform: {A, B}
  std::uint64_t lumisPerRun_ = 0;     // 0: one run
  std::uint32_t firstRun_ = 1;
  std::uint64_t seed_ = 1;
  std::mutex lock_;                  // Cycle and Uniform: ends_ grows under it
  std::vector<std::uint64_t> ends_;  // the end ordinal of each lumi so far
  std::mt19937_64 random_;
};

}  // namespace lanes::detail
