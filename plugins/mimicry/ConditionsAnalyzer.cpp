#include "mimicry/ConditionsAnalyzer.h"

#include <unistd.h>

#include "lanes/core/Event.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {
namespace {

// SplitMix64: cheap, well-mixed values, the same on every run.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The state must fit in the machine's memory.
std::uint64_t physicalBytes() {
  return static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::vector<std::uint64_t> buildState(PluginOptions const& options) {
  if (options.raw().has("record")) {
    if (options.raw().has("bytes")) options.fail("bytes", "and record= exclude each other (the record's payload has its own size)");
    return {};
  }
  if (!options.raw().has("bytes")) options.fail("bytes", "or record= is required");
  auto const words = options.positive("bytes", 1, physicalBytes()) / sizeof(std::uint64_t);
  if (words == 0) options.fail("bytes", "must be at least 8");
  std::vector<std::uint64_t> state(words);
  for (std::uint64_t k = 0; k < words; ++k) state[k] = mix(k);  // every page written, as real initialisation does
  return state;
}

}  // namespace

ConditionsAnalyzer::ConditionsAnalyzer(std::string label, Options const& options)
    : ConditionsAnalyzer(std::move(label), PluginOptions(options, "conditions")) {}

ConditionsAnalyzer::ConditionsAnalyzer(std::string label, PluginOptions const& options)
    : Analyzer(std::move(label)), state_(buildState(options)), reads_(options.positive("reads", 1000)) {
  if (auto record = options.raw().getString("record")) record_ = consumesConditions(*record);
}

std::vector<std::uint64_t> const& ConditionsAnalyzer::valuesOf(Event const& event) const {
  return record_.valid() ? event.conditions(record_).words() : state_;
}

std::uint64_t ConditionsAnalyzer::lookup(std::uint64_t eventNumber, std::vector<std::uint64_t> const& values) const {
  if (values.empty()) return 0;  // a record of 0 bytes
  std::uint64_t sum = 0;
  for (std::uint64_t k = 0; k < reads_; ++k) sum += values[mix(eventNumber * reads_ + k) % values.size()];
  return sum;
}

void ConditionsAnalyzer::analyze(Event const& event) const {
  // The sum must look used, or the reads could be optimised away.
  [[maybe_unused]] auto volatile sum = lookup(event.id().event, valuesOf(event));
}

namespace {
RegisterModule<ConditionsAnalyzer> const registration(
    "conditions",
    "read-only state built once at initialisation (geometry, calibrations) and read by every event: "
    "bytes=N, or record=NAME (a conditions record's payload of the event's interval: --conditions), "
    "reads=K values per event (1000)");
}

}  // namespace lanes::mimicry
