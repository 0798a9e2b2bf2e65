#pragma once
// Conditions: calibrations and alignments that hold over an interval of
// validity (IOV) of runs and lumis. A job's conditions service has records,
// each a payload that changes when a lumi of a new interval begins; a module
// declares the records it reads (Module::consumesConditions), and reads the
// payload of its event's interval (Event::conditions). The service loads a
// record's payload as the first lumi of its interval begins, into one of the
// record's --concurrent-iovs slots; an event whose payload is still loading
// waits for it without a thread (the report names the wait: `conditions`).
// The payloads are mimicry: bytes filled from the interval, at a load cost,
// as the `conditions` module's state is.

#include <cstdint>
#include <string>
#include <vector>

#include "lanes/core/Source.h"

namespace lanes {

// The payload of one record over one interval. Immutable once loaded: read
// by any number of lanes at once.
class ConditionsPayload {
 public:
  ConditionsPayload() = default;
  ConditionsPayload(std::string record, std::uint64_t interval, LumiNumber first, std::uint64_t bytes);

  std::string const& record() const { return record_; }
  // Which interval: its position in the record's table (or, for every=N
  // lumis, its run and first lumi), and the first run:lumi it holds for.
  std::uint64_t interval() const { return interval_; }
  LumiNumber first() const { return first_; }
  // The payload's words: bytes / 8 of them, each a function of the interval
  // and its position (value(k)), so a reader can tell whose payload it holds.
  std::vector<std::uint64_t> const& words() const { return words_; }
  static std::uint64_t value(std::uint64_t interval, std::uint64_t k);

 private:
  std::string record_;
  std::uint64_t interval_ = 0;
  LumiNumber first_;
  std::vector<std::uint64_t> words_;
};

// A handle a module obtains from consumesConditions() at construction.
// Immutable value type.
class ConditionsToken {
 public:
  ConditionsToken() = default;
  explicit ConditionsToken(unsigned const* record) : record_(record) {}
  unsigned record() const { return *record_; }
  bool valid() const { return record_ != nullptr; }

 private:
  unsigned const* record_ = nullptr;  // into the module's declarations; resolved once every record is known
};

// One interval of a record's table: from its first run:lumi to the next
// interval's first (the last: to the end of the input).
struct ConditionsInterval {
  LumiNumber first;
  std::uint64_t bytes = 0;  // 0: the record's bytes
};

// A record of the job's conditions service (lanes run --conditions, a menu's [[conditions]]).
struct ConditionsRecordSpec {
  std::string name;
  // Its intervals: a new one every `everyLumis` lumis of a run (and at each
  // run), or the rows of `table` (strictly increasing run:lumi).
  std::uint64_t everyLumis = 0;
  std::vector<ConditionsInterval> table;
  std::uint64_t bytes = 1 << 20;  // each payload's size
  double loadSeconds = 0;         // what loading a payload costs
  bool busy = false;              // burn CPU while loading (else sleep, as a read from a database waits)
  unsigned concurrentIovs = 1;    // intervals of the record in flight at once
};

}  // namespace lanes
