#pragma once
// The job's conditions service (lanes/core/Conditions.h): its records, each
// with --concurrent-iovs slots that hold the payloads of the intervals the
// lumis in flight need. A lumi takes a slot of every record as it begins
// (acquire), the one that holds its interval or a free one that loads it; a
// record whose slots all hold other intervals in use defers the lumi's begin
// until a lumi's end frees one (release). No thread waits: a deferred begin
// is a task run later, and an event whose payload loads waits in the slot's
// WaitingList.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <oneapi/tbb/task_group.h>

#include "lanes/core/Conditions.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/detail/WaitingList.h"

namespace lanes::detail {

// One interval's payload in a record's slot. The record's lock guards
// interval and users; the payload is written once, by its load, before
// `loaded` is marked done, and only read afterwards.
struct IovSlot {
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  std::uint64_t interval = kNone;
  unsigned users = 0;  // lumis in flight that hold it
  WaitingList loaded;
  ConditionsPayload payload;
};

// Thread-safe: acquire() and release() from any thread of the job; each
// record's slots are under a lock of the record's, held for bookkeeping only
// (a payload loads in a task of its own).
class ConditionsService {
 public:
  // Throws lanes::Exception for a bad record: no name, two of one name, no
  // intervals, a table whose run:lumi do not strictly increase, 0 slots.
  ConditionsService(std::vector<ConditionsRecordSpec> specs, tbb::task_group& group);
  ~ConditionsService();

  bool empty() const { return records_.empty(); }
  std::size_t size() const { return records_.size(); }
  // The record named `name`; throws lanes::Exception naming the module and
  // the records there are, if there is none.
  unsigned index(std::string const& name, std::string const& module) const;

  // For lumi `lumi` as it begins: a slot of each record, into `slots` (by
  // record), then `then()`, at once or as a task once slots are free. A lumi
  // that no interval of a record holds fails: `then` gets the error.
  void acquire(LumiNumber lumi, std::vector<IovSlot*>& slots, std::function<void(std::exception_ptr)> then);
  // The lumi's end: its slots go back.
  void release(std::vector<IovSlot*>& slots);

  // What each record did, for the report (RunSummary::conditions).
  std::vector<ConditionsSummary> summaries() const;
  // A part begins: the counts start again (the loaded payloads stay).
  void startPart();

 private:
  struct Record;
  void acquireFrom(std::size_t record, LumiNumber lumi, std::vector<IovSlot*>& slots,
                   std::function<void(std::exception_ptr)> then, std::chrono::steady_clock::time_point since);
  void load(Record& record, IovSlot& slot);

  tbb::task_group& group_;
  std::vector<std::unique_ptr<Record>> records_;
};

}  // namespace lanes::detail
