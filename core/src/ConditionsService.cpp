#include "ConditionsService.h"

#include <algorithm>
#include <set>
#include <thread>

#include "lanes/core/Exception.h"

#include "lanes/core/detail/TbbHandOff.h"

namespace lanes {

ConditionsPayload::ConditionsPayload(std::string record, std::uint64_t interval, LumiNumber first, std::uint64_t bytes)
    : record_(std::move(record)), interval_(interval), first_(first), words_(bytes / sizeof(std::uint64_t)) {
  for (std::uint64_t k = 0; k < words_.size(); ++k) words_[k] = value(interval, k);
}

std::uint64_t ConditionsPayload::value(std::uint64_t interval, std::uint64_t k) {
  // SplitMix64 of the pair: every page written, as a real load does, and each interval's words its own.
  auto x = interval * 0x9e3779b97f4a7c15ull + k + 1;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace detail {

namespace {
using SteadyClock = std::chrono::steady_clock;

std::string text(LumiNumber lumi) { return std::to_string(lumi.run) + ":" + std::to_string(lumi.luminosityBlock); }

// Burns CPU, or sleeps, for `seconds`: what loading a payload costs.
void spend(double seconds, bool busy) {
  if (seconds <= 0) return;
  auto const until = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
  if (!busy) return std::this_thread::sleep_until(until);
  while (SteadyClock::now() < until) {
  }
}
}  // namespace

struct ConditionsService::Record {
  explicit Record(ConditionsRecordSpec spec_) : spec(std::move(spec_)) {
    for (unsigned s = 0; s < spec.concurrentIovs; ++s) slots.push_back(std::make_unique<IovSlot>());
  }
  // The interval that holds `lumi`, and where it begins; throws if none does.
  std::pair<std::uint64_t, LumiNumber> intervalOf(LumiNumber lumi) const {
    if (spec.everyLumis) {
      auto const block = (lumi.luminosityBlock - 1) / spec.everyLumis;
      auto const first = static_cast<std::uint32_t>(block * spec.everyLumis + 1);
      return {(std::uint64_t{lumi.run} << 32) | block, {lumi.run, first}};
    }
    auto const after = std::upper_bound(spec.table.begin(), spec.table.end(), lumi,
                                        [](LumiNumber l, ConditionsInterval const& i) { return l < i.first; });
    if (after == spec.table.begin()) {
      throw Exception("conditions record '" + spec.name + "': no interval holds lumi " + text(lumi) +
                      " (its table begins at " + text(spec.table.front().first) + ")");
    }
    auto const index = static_cast<std::uint64_t>(after - spec.table.begin() - 1);
    return {index, spec.table[index].first};
  }
  std::uint64_t bytesOf(std::uint64_t interval) const {
    if (spec.everyLumis || spec.table[interval].bytes == 0) return spec.bytes;
    return spec.table[interval].bytes;
  }

  ConditionsRecordSpec const spec;
  std::mutex lock;
  std::vector<std::unique_ptr<IovSlot>> slots;
  std::deque<std::function<void()>> deferred;  // lumi begins waiting for a slot
  ConditionsSummary summary;                   // under the lock
};

ConditionsService::ConditionsService(std::vector<ConditionsRecordSpec> specs, tbb::task_group& group) : group_(group) {
  std::set<std::string> names;
  for (auto& spec : specs) {
    auto const where = "conditions record '" + spec.name + "': ";
    if (spec.name.empty()) throw Exception("a conditions record needs a name");
    if (!names.insert(spec.name).second) throw Exception("two conditions records are named '" + spec.name + "'");
    if (spec.concurrentIovs == 0) throw Exception(where + "concurrent-iovs must be at least 1");
    if (spec.everyLumis == 0 && spec.table.empty()) {
      throw Exception(where + "give its intervals: every=N lumis, or a table=FILE of them");
    }
    if (spec.everyLumis && !spec.table.empty()) throw Exception(where + "every= and table= exclude each other");
    for (std::size_t i = 0; i < spec.table.size(); ++i) {
      auto const& first = spec.table[i].first;
      if (first.run == 0 || first.luminosityBlock == 0) {
        throw Exception(where + "interval " + std::to_string(i + 1) + " begins at " + text(first) +
                        ": runs and lumis count from 1");
      }
      if (i > 0 && !(spec.table[i - 1].first < first)) {
        throw Exception(where + "interval " + std::to_string(i + 1) + " begins at " + text(first) + ", not after " +
                        text(spec.table[i - 1].first) + ": intervals must be in order and must not overlap");
      }
    }
    records_.push_back(std::make_unique<Record>(std::move(spec)));
    records_.back()->summary.record = records_.back()->spec.name;
    records_.back()->summary.concurrentIovs = records_.back()->spec.concurrentIovs;
  }
}

ConditionsService::~ConditionsService() = default;

unsigned ConditionsService::index(std::string const& name, std::string const& module) const {
  std::string known;
  for (unsigned r = 0; r < records_.size(); ++r) {
    if (records_[r]->spec.name == name) return r;
    known += (known.empty() ? "" : ", ") + records_[r]->spec.name;
  }
  throw Exception("module '" + module + "' reads conditions record '" + name + "', which the job does not have (" +
                  (known.empty() ? "it has none: give one with --conditions NAME:..." : "it has " + known) + ")");
}

void ConditionsService::acquire(LumiNumber lumi, std::vector<IovSlot*>& slots, std::function<void(std::exception_ptr)> then) {
  slots.assign(records_.size(), nullptr);
  acquireFrom(0, lumi, slots, std::move(then), SteadyClock::time_point{});
}

void ConditionsService::acquireFrom(std::size_t r, LumiNumber lumi, std::vector<IovSlot*>& slots,
                                    std::function<void(std::exception_ptr)> then, SteadyClock::time_point since) {
  for (; r < records_.size(); ++r) {
    auto& record = *records_[r];
    IovSlot* loading = nullptr;
    {
      std::lock_guard const hold(record.lock);
      std::pair<std::uint64_t, LumiNumber> interval;
      try {
        interval = record.intervalOf(lumi);
      } catch (...) {
        return then(std::current_exception());
      }
      auto const holds = [&](auto const& slot) { return slot->interval == interval.first; };
      auto const unused = [](auto const& slot) { return slot->users == 0; };
      auto it = std::find_if(record.slots.begin(), record.slots.end(), holds);
      if (it == record.slots.end()) {
        it = std::find_if(record.slots.begin(), record.slots.end(), unused);
        if (it == record.slots.end()) {
          // Every slot holds another interval in use: the begin goes on once a lumi's end frees one.
          if (since == SteadyClock::time_point{}) since = SteadyClock::now();
          record.deferred.push_back([this, r, lumi, &slots, then = std::move(then), since]() mutable {
            acquireFrom(r, lumi, slots, std::move(then), since);
          });
          return;
        }
        auto& slot = **it;
        slot.interval = interval.first;
        slot.loaded.reset();
        slot.payload = ConditionsPayload(record.spec.name, interval.first, interval.second,
                                         record.bytesOf(interval.first));
        loading = &slot;
        ++record.summary.loads;
      }
      ++(*it)->users;
      slots[r] = it->get();
      if (since != SteadyClock::time_point{}) {
        ++record.summary.deferredBegins;
        record.summary.deferredSeconds += std::chrono::duration<double>(SteadyClock::now() - since).count();
        since = {};
      }
    }
    if (loading) load(record, *loading);
  }
  then(nullptr);
}

// The payload was made as the slot was taken; its load's cost is spent in a task of its own.
void ConditionsService::load(Record& record, IovSlot& slot) {
  group_.run(handedOver([&record, &slot] {
    auto const begin = SteadyClock::now();
    spend(record.spec.loadSeconds, record.spec.busy);
    {
      std::lock_guard const hold(record.lock);
      record.summary.loadSeconds += std::chrono::duration<double>(SteadyClock::now() - begin).count();
    }
    slot.loaded.markDone();
  }, &group_));
}

void ConditionsService::release(std::vector<IovSlot*>& slots) {
  for (std::size_t r = 0; r < slots.size(); ++r) {
    if (!slots[r]) continue;
    auto& record = *records_[r];
    std::function<void()> next;
    {
      std::lock_guard const hold(record.lock);
      if (--slots[r]->users == 0 && !record.deferred.empty()) {
        next = std::move(record.deferred.front());
        record.deferred.pop_front();
      }
    }
    if (next) group_.run(handedOver(std::move(next), &group_));
  }
  slots.clear();
}

std::vector<ConditionsSummary> ConditionsService::summaries() const {
  std::vector<ConditionsSummary> summaries;
  for (auto const& record : records_) {
    std::lock_guard const hold(record->lock);
    summaries.push_back(record->summary);
  }
  return summaries;
}

void ConditionsService::startPart() {
  for (auto const& record : records_) {
    std::lock_guard const hold(record->lock);
    auto const name = record->summary.record;
    record->summary = {name, record->spec.concurrentIovs};
  }
}

}  // namespace detail
}  // namespace lanes
