#include "LumiNumbering.h"

#include <algorithm>
#include <limits>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::detail {

namespace {

constexpr auto kEndless = std::numeric_limits<std::uint64_t>::max();
// Run and lumi numbers are 32 bits in every format lanes reads and writes.
constexpr std::uint64_t kMaxNumber = std::numeric_limits<std::uint32_t>::max();

[[noreturn]] void bad(std::string const& source, std::string const& key, std::string const& value,
                      std::string const& expected) {
  throw Exception("source '" + source + "': option '" + key + "': '" + shortened(value) + "' is not " + expected);
}

std::uint64_t wholeNumber(std::string const& source, std::string const& key, std::string const& text,
                          std::string const& expected) {
  if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    bad(source, key, text, expected);
  }
  return std::stoull(text);
}

std::vector<std::string> split(std::string const& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type from = 0;
  for (;;) {
    auto const at = text.find(separator, from);
    parts.push_back(text.substr(from, at - from));
    if (at == std::string::npos) return parts;
    from = at + 1;
  }
}

}  // namespace

std::optional<LumiNumbering> LumiNumbering::take(Options& options, std::string const& source) {
  auto const perLumi = options.take("events-per-lumi");
  auto const perRun = options.take("lumis-per-run");
  auto const firstRun = options.take("first-run");
  auto const seed = options.take("lumi-seed");
  if (!perLumi && !perRun && !firstRun && !seed) return std::nullopt;
  std::optional<LumiNumbering> numbering(std::in_place);
  auto& n = *numbering;
  if (perLumi) {
    auto const parts = split(*perLumi, ':');
    char const* const expected = "a number of events (N), lengths in turn (A:B:...) or uniform:A:B";
    if (parts.front() == "uniform") {
      if (parts.size() != 3) bad(source, "events-per-lumi", *perLumi, expected);
      n.lengths_ = Lengths::Uniform;
      n.cycle_ = {wholeNumber(source, "events-per-lumi", parts[1], expected),
                  wholeNumber(source, "events-per-lumi", parts[2], expected)};
      if (n.cycle_[0] > n.cycle_[1] || n.cycle_[1] == 0) {
        bad(source, "events-per-lumi", *perLumi, "uniform:A:B with A <= B and B >= 1");
      }
    } else {
      for (auto const& part : parts) n.cycle_.push_back(wholeNumber(source, "events-per-lumi", part, expected));
      if (std::all_of(n.cycle_.begin(), n.cycle_.end(), [](auto length) { return length == 0; })) {
        bad(source, "events-per-lumi", *perLumi, "a length of at least 1 event (a lumi of 0 events has none)");
      }
      n.lengths_ = n.cycle_.size() == 1 ? Lengths::Fixed : Lengths::Cycle;
    }
  }
  if (perRun) {
    n.lumisPerRun_ = wholeNumber(source, "lumis-per-run", *perRun, "a number of lumis from 1");
    if (n.lumisPerRun_ == 0 || n.lumisPerRun_ > kMaxNumber) bad(source, "lumis-per-run", *perRun, "a number of lumis from 1");
  }
  if (firstRun) {
    auto const run = wholeNumber(source, "first-run", *firstRun, "a run number from 1 (0 is no run)");
    if (run == 0 || run > kMaxNumber) bad(source, "first-run", *firstRun, "a run number from 1 to 4294967295 (0 is no run)");
    n.firstRun_ = static_cast<std::uint32_t>(run);
  }
  if (seed) {
    if (n.lengths_ != Lengths::Uniform) {
      throw Exception("source '" + source + "': option 'lumi-seed' applies only to events-per-lumi=uniform:A:B");
    }
    n.seed_ = wholeNumber(source, "lumi-seed", *seed, "a whole number");
  }
  n.random_.seed(n.seed_);
  return numbering;
}

LumiNumbering::LumiNumbering(LumiNumbering&& other) noexcept
    : lengths_(other.lengths_),
      cycle_(std::move(other.cycle_)),
      lumisPerRun_(other.lumisPerRun_),
      firstRun_(other.firstRun_),
      seed_(other.seed_),
      ends_(std::move(other.ends_)),
      random_(other.random_) {}

LumiNumber LumiNumbering::numberOf(std::uint64_t k) const {
  auto const runIndex = lumisPerRun_ ? k / lumisPerRun_ : 0;
  auto const lumi = (lumisPerRun_ ? k % lumisPerRun_ : k) + 1;
  auto const run = firstRun_ + runIndex;
  if (run > kMaxNumber || lumi > kMaxNumber) {
    throw Exception("the job's run or lumi numbers pass 4294967295 (lumi " + std::to_string(k + 1) +
                    "): give larger lumis (events-per-lumi=) or more lumis a run (lumis-per-run=)");
  }
  return {static_cast<std::uint32_t>(run), static_cast<std::uint32_t>(lumi)};
}

std::uint64_t LumiNumbering::lengthOf(std::uint64_t k) {
  if (lengths_ == Lengths::Cycle) return cycle_[k % cycle_.size()];
  std::uniform_int_distribution<std::uint64_t> draw(cycle_[0], cycle_[1]);
  return draw(random_);
}

void LumiNumbering::drawNext() { ends_.push_back(startOf(ends_.size()) + lengthOf(ends_.size())); }

LumiStretch LumiNumbering::stretchAt(std::uint64_t ordinal, std::optional<std::uint64_t> events) {
  auto const last = events.value_or(kEndless);
  if (ordinal >= last) return {numberOf(0), last, last};
  LumiStretch stretch;
  std::uint64_t k = 0;
  switch (lengths_) {
    case Lengths::One:
      stretch.first = 0;
      stretch.end = last;
      break;
    case Lengths::Fixed:
      k = ordinal / cycle_[0];
      stretch.first = k * cycle_[0];
      stretch.end = std::min(last, stretch.first + cycle_[0]);
      break;
    case Lengths::Cycle:
    case Lengths::Uniform: {
      std::lock_guard const hold(lock_);
      // The first lumi whose end lies past the ordinal; the lumis of no
      // events just before it come first, empty.
      while (ends_.empty() || ends_.back() <= ordinal) drawNext();
      k = static_cast<std::uint64_t>(std::upper_bound(ends_.begin(), ends_.end(), ordinal) - ends_.begin());
      stretch.first = startOf(k);
      stretch.end = std::min(last, ends_[k]);
      for (auto j = k; j > 0 && ends_[j - 1] == startOf(j - 1); --j) {
        stretch.emptyBefore.insert(stretch.emptyBefore.begin(), numberOf(j - 1));
      }
      break;
    }
  }
  stretch.lumi = numberOf(k);
  return stretch;
}

}  // namespace lanes::detail
