#include "Boundaries.h"

#include <algorithm>
#include <set>
#include <utility>

#include "Schedule.h"
#include "Worker.h"
#include "lanes/core/Exception.h"

#include "lanes/core/detail/TbbHandOff.h"

namespace lanes::detail {

namespace {
// A scan of ids through at() (a source that cannot say its stretches) looks
// this far ahead at a time; the frontier joins what goes on.
constexpr std::uint64_t kScanAhead = 4096;

bool covers(LumiStretch const& stretch, std::uint64_t ordinal) {
  if (stretch.first == stretch.end) return ordinal >= stretch.first;  // the input's end
  return ordinal >= stretch.first && ordinal < stretch.end;
}

}  // namespace

// ---------------------------------------------------------------- slots

BlockState::BlockState(ProductRegistry const& registry_, std::size_t fromSource_)
    : registry(registry_),
      fromSourceCount(fromSource_),
      fromSource(std::make_unique<ProductSlot[]>(fromSource_)),
      put(registry_.size() - fromSource_) {}

void BlockState::clear() {
  for (std::size_t p = 0; p < fromSourceCount; ++p) fromSource[p].reset();
  for (auto& slot : put) slot.reset();
  events.store(0, std::memory_order_relaxed);
}

BlockSlot::BlockSlot(Level level_, unsigned index_, ProductRegistry const& registry, std::size_t fromSource)
    : level(level_), index(index_), state(registry, fromSource) {
  if (level == Level::Run) {
    runView.reset(new Run(index, state));
  } else {
    lumiView.reset(new Lumi(index, state));
  }
}

// What a lumi waits for before its begin: its run's.
struct Boundaries::RunBegun final : Waiter {
  Boundaries* boundaries;
  BlockSlot* lumi;
  void notify() override {
    auto& group = boundaries->schedule_.group;
    group.run(handedOver([b = boundaries, l = lumi] { b->beginCalls(*l); }, &group));
  }
};

struct Boundaries::Frontier {
  std::mutex lock;
  // The lumi the frontier is in, and the end of its ordinals (capped by the
  // event limit): read without the lock by a lane that claims in the lumi
  // it is in. Stored lumi first, end second (release), read end first
  // (acquire): a lane that reads a new end reads the new lumi too.
  std::atomic<BlockSlot*> lumi{nullptr};
  std::atomic<std::uint64_t> end{0};
  alignas(128) std::atomic<std::uint64_t> next{0};  // the next ordinal to claim (without a dispenser)
  // Under the lock.
  alignas(128) BlockSlot* run = nullptr;  // the frontier's run
  std::optional<LumiStretch> known;       // the stretch that holds the next ordinal, once looked up
  std::optional<std::uint64_t> pending;   // a dispenser's ordinal, not claimed yet
  bool closed = false;
  std::uint64_t generation = 0;  // slots freed so far
  std::vector<std::function<void()>> parked;
  BoundaryCounts counts;
  std::set<LumiNumber> seenLumis;
  std::set<std::uint32_t> seenRuns;
  std::vector<std::unique_ptr<RunBegun>> runBegun;  // by lumi slot
};

// ---------------------------------------------------------------- building

Boundaries::Boundaries(Schedule& schedule, std::optional<LumiNumbering> numbering)
    : schedule_(schedule),
      numbering_(std::move(numbering)),
      lumiOptions_(numbering_.has_value()),
      frontier_(std::make_unique<Frontier>()) {}

Boundaries::~Boundaries() = default;

void Boundaries::build() {
  auto const& config = schedule_.config;
  auto const& workers = schedule_.workers;
  for (unsigned w = 0; w < workers.size(); ++w) {
    auto& worker = *workers[w];
    auto const& module = worker.module();
    auto const bits = module.transitions();
    bool const stream = module.concurrency() == Concurrency::Stream;
    auto add = [&](unsigned bit, std::vector<unsigned>& list) {
      if (bits & bit) list.push_back(w);
    };
    if (stream) {
      add(kBeginLumi, streamBeginLumi_);
      add(kEndLumi, streamEndLumi_);
      add(kBeginRun, streamBeginRun_);
      add(kEndRun, streamEndRun_);
    } else {
      add(kBeginRun, beginRun_);
      add(kEndRun, endRun_);
      add(kBeginLumi, beginLumi_);
      add(kEndLumi, endLumi_);
      if (worker.output()) {
        add(kWriteLumi, writeLumi_);
        add(kWriteRun, writeRun_);
      }
    }
    if (module.concurrency() == Concurrency::One) {
      if (bits & (kBeginLumi | kEndLumi)) lumisSerialisedBy_.push_back(module.label());
      if (bits & (kBeginRun | kEndRun)) runsSerialisedBy_.push_back(module.label());
    }
  }
  lumiSlots_ = lumisSerialisedBy_.empty() ? config.concurrentLumis : 1;
  runSlots_ = runsSerialisedBy_.empty() ? config.concurrentRuns : 1;
  auto& lumiRegistry = schedule_.lumiRegistry;
  auto& runRegistry = schedule_.runRegistry;
  auto const fromSource = [&](Level level) {
    return level == Level::Lumi ? schedule_.source->lumiProducts().size() : schedule_.source->runProducts().size();
  };
  for (unsigned s = 0; s < runSlots_; ++s) {
    runs_.push_back(std::make_unique<BlockSlot>(Level::Run, s, runRegistry, fromSource(Level::Run)));
  }
  for (unsigned s = 0; s < lumiSlots_; ++s) {
    lumis_.push_back(std::make_unique<BlockSlot>(Level::Lumi, s, lumiRegistry, fromSource(Level::Lumi)));
    auto waiter = std::make_unique<RunBegun>();
    waiter->boundaries = this;
    waiter->lumi = lumis_.back().get();
    frontier_->runBegun.push_back(std::move(waiter));
  }
  for (auto const& worker : workers) {
    for (auto& instance : worker->instances()) {
      for (auto* cache : instance->blockCaches()) {
        cache->resize(cache->level() == Level::Lumi ? lumiSlots_ : runSlots_, schedule_.lanes);
        caches_.push_back(cache);
      }
    }
  }
  if (numbering_ || schedule_.source->numbersByOrdinal()) {
    if (!numbering_) numbering_.emplace();
    inputEvents_ = schedule_.source->eventCount();
  }
  auto const& source = *schedule_.source;
  tracking_ = watched();
  if (!source.runProducts().empty() || !source.lumiProducts().empty()) {
    blockReader_ = source.lookAhead();
    if (!blockReader_) {
      throw Exception("source '" + schedule_.config.source.name +
                      "' offers run or lumi products but no copy to read them with (lookAhead())");
    }
  }
}

bool Boundaries::watched() const {
  bool const modules = !beginRun_.empty() || !endRun_.empty() || !beginLumi_.empty() || !endLumi_.empty() ||
                       !writeLumi_.empty() || !writeRun_.empty() || !streamBeginRun_.empty() ||
                       !streamEndRun_.empty() || !streamBeginLumi_.empty() || !streamEndLumi_.empty();
  bool const products = schedule_.lumiRegistry.size() > 0 || schedule_.runRegistry.size() > 0;
  return modules || products || !caches_.empty() || !schedule_.conditions->empty() || lumiOptions_;
}

// ---------------------------------------------------------------- the frontier

void Boundaries::start() {
  auto& f = *frontier_;
  std::lock_guard const hold(f.lock);
  f.lumi.store(nullptr, std::memory_order_relaxed);
  f.end.store(0, std::memory_order_relaxed);
  f.next.store(0, std::memory_order_relaxed);
  f.run = nullptr;
  f.known.reset();
  f.pending.reset();
  f.closed = false;
  f.parked.clear();
  f.counts = {};
  f.seenLumis.clear();
  f.seenRuns.clear();
}

BoundaryCounts Boundaries::finish() {
  auto& f = *frontier_;
  std::lock_guard const hold(f.lock);
  for (auto const* slots : {&lumis_, &runs_}) {
    for (auto const& slot : *slots) {
      if (slot->busy) throw std::logic_error("a run or lumi is still in flight after the part ended");
    }
  }
  return f.counts;
}

std::uint64_t Boundaries::capped(std::uint64_t end) const {
  auto const limit = schedule_.config.maxEvents;
  return limit ? std::min(end, limit) : end;
}

std::uint64_t Boundaries::share(std::uint64_t next, std::uint64_t end, std::uint64_t count) const {
  // A lumi's last ordinals are shared out among the lanes, so that a lumi of
  // fewer events than lanes x runs keeps every lane busy until its end.
  auto const fair = (end - next + schedule_.lanes - 1) / schedule_.lanes;
  return std::min(end, next + std::max<std::uint64_t>(1, std::min(count, fair)));
}

Boundaries::Status Boundaries::claimUntracked(std::uint64_t count, Claim& claim) {
  auto& f = *frontier_;
  auto* const dispenser = schedule_.dispenser();
  auto const limit = schedule_.config.maxEvents;
  if (schedule_.halted.load(std::memory_order_acquire)) return Status::End;
  if (dispenser) count = 1;
  auto const first = dispenser ? dispenser->next() : f.next.fetch_add(count, std::memory_order_relaxed);
  if (!first || (limit && *first >= limit)) {
    schedule_.halted.store(true, std::memory_order_release);
    return Status::End;
  }
  claim = {*first, limit ? std::min(*first + count, limit) : *first + count, nullptr};
  return Status::Claimed;
}

Boundaries::Status Boundaries::claim(BlockSlot* in, Source& source, std::uint64_t count, Claim& claim,
                                     std::uint64_t& generation) {
  if (!tracking_) return claimUntracked(count, claim);
  auto& f = *frontier_;
  bool const dispensed = schedule_.dispenser() != nullptr;
  // More of the lumi the lane is in, without the lock.
  if (in && !dispensed && !schedule_.halted.load(std::memory_order_acquire)) {
    auto const end = f.end.load(std::memory_order_acquire);
    if (f.lumi.load(std::memory_order_acquire) == in) {
      auto next = f.next.load(std::memory_order_relaxed);
      while (next < end) {
        auto const take = share(next, end, count);
        if (f.next.compare_exchange_weak(next, take, std::memory_order_relaxed)) {
          claim = {next, take, nullptr};
          return Status::Claimed;
        }
      }
    }
  }
  for (;;) {
    std::uint64_t lookupAt = 0;
    {
      std::lock_guard const hold(f.lock);
      auto const step = advance(in, count, claim, lookupAt);
      generation = f.generation;
      if (step == Step::Claimed) return Status::Claimed;
      if (step == Step::Park) return Status::Park;
      if (step == Step::End) return Status::End;
    }
    auto stretch = lookup(source, lookupAt);  // outside the lock: it may open a file
    std::lock_guard const hold(f.lock);
    // Another lane may have learnt it and moved on meanwhile, or be part way
    // through its empty lumis (parked for a slot): what it knows stays.
    auto const at = f.pending ? *f.pending : f.next.load(std::memory_order_relaxed);
    bool const known = f.known && covers(*f.known, at);
    if (!inFrontierLumi(at) && !known && covers(stretch, at)) f.known = std::move(stretch);
  }
}

Boundaries::Step Boundaries::advance(BlockSlot* in, std::uint64_t count, Claim& claim, std::uint64_t& lookupAt) {
  auto& f = *frontier_;
  auto* const dispenser = schedule_.dispenser();
  for (;;) {
    if (f.closed || schedule_.halted.load(std::memory_order_acquire)) {
      closeFrontier();
      return Step::End;
    }
    std::uint64_t ordinal = 0;
    if (dispenser) {
      if (!f.pending) f.pending = dispenser->next();
      if (!f.pending) {
        closeFrontier();
        return Step::End;
      }
      ordinal = *f.pending;
    } else {
      ordinal = f.next.load(std::memory_order_relaxed);
    }
    if (schedule_.config.maxEvents && ordinal >= schedule_.config.maxEvents) {
      closeFrontier();
      return Step::End;
    }
    auto* const lumi = f.lumi.load(std::memory_order_relaxed);
    if (inFrontierLumi(ordinal)) {
      auto const take = dispenser ? ordinal + 1 : share(ordinal, f.end.load(std::memory_order_relaxed), count);
      if (dispenser) {
        f.pending.reset();
      } else if (!f.next.compare_exchange_strong(ordinal, take, std::memory_order_relaxed)) {
        continue;  // a lane in this lumi claimed without the lock meanwhile (claim())
      }
      claim = {ordinal, take, lumi != in ? lumi : nullptr};
      if (lumi != in) hold(*lumi);
      return Step::Claimed;
    }
    if (!f.known || !covers(*f.known, ordinal)) {
      lookupAt = ordinal;
      return Step::Lookup;
    }
    auto& next = *f.known;
    bool const endOfInput = next.first == next.end;
    // The frontier's lumi goes on past a file's end.
    if (lumi && !endOfInput && next.emptyBefore.empty() && next.lumi == lumi->number && next.first <= lumi->end) {
      lumi->end = next.end;
      f.end.store(capped(next.end), std::memory_order_release);
      f.known.reset();
      continue;
    }
    if (lumi) leaveFrontierLumi();
    if (endOfInput && next.emptyBefore.empty()) {
      closeFrontier();
      return Step::End;
    }
    auto const number = next.emptyBefore.empty() ? next.lumi : next.emptyBefore.front();
    bool const newRun = !f.run || f.run->number.run != number.run;
    if (newRun && f.run) release(*std::exchange(f.run, nullptr));
    auto* const lumiSlot = freeSlot(lumis_);
    auto* const runSlot = newRun ? freeSlot(runs_) : f.run;
    if (!lumiSlot || !runSlot) return Step::Park;
    if (newRun) openRun(*runSlot, number.run);
    if (!next.emptyBefore.empty()) {
      openLumi(*lumiSlot, number, next.first, next.first);
      next.emptyBefore.erase(next.emptyBefore.begin());
      ++f.counts.emptyLumis;
      release(*lumiSlot);  // the frontier leaves it at once: it has no events
      continue;
    }
    openLumi(*lumiSlot, number, next.first, next.end);
    f.lumi.store(lumiSlot, std::memory_order_relaxed);
    f.end.store(capped(next.end), std::memory_order_release);
    f.known.reset();
  }
}

bool Boundaries::inFrontierLumi(std::uint64_t ordinal) const {
  auto const& f = *frontier_;
  auto const* const lumi = f.lumi.load(std::memory_order_relaxed);
  return lumi && ordinal >= lumi->first && ordinal < f.end.load(std::memory_order_relaxed);
}

BlockSlot* Boundaries::freeSlot(std::vector<std::unique_ptr<BlockSlot>>& slots) const {
  for (auto& slot : slots) {
    if (!slot->busy) return slot.get();
  }
  return nullptr;
}

void Boundaries::openRun(BlockSlot& run, std::uint32_t number) {
  auto& f = *frontier_;
  run.busy = true;
  run.number = {number, 0};
  run.entry = f.counts.runs++;
  if (!f.seenRuns.insert(number).second) ++f.counts.repeatedRuns;
  run.runView->run_ = number;
  run.runView->index_ = run.entry;
  run.begun.reset();
  run.openedAt = timeNow();
  run.holds.store(2, std::memory_order_relaxed);  // the frontier's and the begin's
  f.run = &run;
  beginRun(run);
}

void Boundaries::openLumi(BlockSlot& lumi, LumiNumber number, std::uint64_t first, std::uint64_t end) {
  auto& f = *frontier_;
  lumi.busy = true;
  lumi.number = number;
  lumi.first = first;
  lumi.end = end;
  lumi.run = f.run;
  lumi.entry = f.counts.lumis++;
  if (!f.seenLumis.insert(number).second) ++f.counts.repeatedLumis;
  auto& view = *lumi.lumiView;
  view.run_ = number.run;
  view.index_ = lumi.entry;
  view.luminosityBlock_ = number.luminosityBlock;
  view.runBlock_ = f.run->runView.get();
  lumi.begun.reset();
  lumi.openedAt = timeNow();
  lumi.holds.store(2, std::memory_order_relaxed);  // the frontier's and the begin's
  hold(*f.run);                                    // a lumi in flight in it
  beginLumi(lumi);
}

void Boundaries::leaveFrontierLumi() {
  auto& f = *frontier_;
  auto* const lumi = f.lumi.load(std::memory_order_relaxed);
  f.lumi.store(nullptr, std::memory_order_relaxed);
  f.end.store(0, std::memory_order_release);
  release(*lumi);
}

void Boundaries::closeFrontier() {
  auto& f = *frontier_;
  if (f.closed) return;
  f.closed = true;
  if (f.lumi.load(std::memory_order_relaxed)) leaveFrontierLumi();
  if (f.run) release(*std::exchange(f.run, nullptr));
}

void Boundaries::close() {
  std::lock_guard const hold(frontier_->lock);
  closeFrontier();
}

bool Boundaries::park(std::function<void()> wake, std::uint64_t generation) {
  auto& f = *frontier_;
  std::lock_guard const hold(f.lock);
  if (f.generation != generation) return false;
  f.parked.push_back(std::move(wake));
  return true;
}

LumiStretch Boundaries::lookup(Source& source, std::uint64_t ordinal) {
  if (numbering_) return numbering_->stretchAt(ordinal, inputEvents_);
  auto stretch = source.stretchAt(ordinal);
  if (!stretch) return schedule_.replicatedSource ? scan(source, ordinal) : peek(source, ordinal);
  auto const& number = stretch->lumi;
  if (stretch->first != stretch->end && (number.run == 0 || number.luminosityBlock == 0)) {
    throw Exception("lumi " + std::to_string(number.run) + ":" + std::to_string(number.luminosityBlock) +
                    " (the input's event " + std::to_string(ordinal + 1) + ") has " +
                    (number.run == 0 ? "run" : "lumi") + " number 0: runs and lumis count from 1");
  }
  return *std::move(stretch);
}

namespace {
LumiNumber numberOf(EventId const& id) {
  if (id.run == 0 || id.luminosityBlock == 0) {
    throw Exception("event " + id.str() + " has " + (id.run == 0 ? "run" : "lumi") +
                    " number 0: runs and lumis count from 1");
  }
  return {id.run, id.luminosityBlock};
}
}  // namespace

LumiStretch Boundaries::scan(Source& reader, std::uint64_t ordinal) {
  SourceEvent event;
  if (!reader.at(ordinal, event)) return {{}, ordinal, ordinal};
  auto const number = numberOf(event.id);
  auto end = ordinal + 1;
  while (end < ordinal + kScanAhead && reader.at(end, event) &&
         LumiNumber{event.id.run, event.id.luminosityBlock} == number) {
    ++end;
  }
  return {number, ordinal, end};
}

// Under the shared source's queue, where the lane that claims goes on to read
// the event itself (Lane::nextShared takes it from here).
LumiStretch Boundaries::peek(Source&, std::uint64_t ordinal) {
  SourceEvent event;
  if (!schedule_.readShared(ordinal, event)) return {{}, ordinal, ordinal};
  peeked_ = {ordinal, event};
  return {numberOf(event.id), ordinal, ordinal + 1};
}

bool Boundaries::takePeeked(std::uint64_t ordinal, SourceEvent& event) {
  if (!peeked_ || peeked_->first != ordinal) return false;
  event = std::exchange(peeked_, std::nullopt)->second;
  return true;
}

// ---------------------------------------------------------------- transitions

void Boundaries::leave(BlockSlot& lumi, std::uint64_t events) {
  lumi.state.events.fetch_add(events, std::memory_order_relaxed);
  release(lumi);
}

void Boundaries::release(BlockSlot& slot) {
  if (slot.holds.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  schedule_.group.run(handedOver([this, &slot] { end(slot); }, &schedule_.group));
}

bool Boundaries::failed() const {
  return schedule_.cancelled.load(std::memory_order_acquire) && !schedule_.stopRequested.load(std::memory_order_acquire);
}

void Boundaries::resetCaches(BlockSlot& slot) {
  for (auto* cache : caches_) {
    if (cache->level() == slot.level) cache->reset(slot.index);
  }
}

void Boundaries::beginRun(BlockSlot& run) {
  schedule_.group.run(handedOver([this, &run] {
    resetCaches(run);
    readSourceProducts(run);
    callEach(beginRun_, run, Transition::BeginRun, [this, &run] { begun(run); });
  }, &schedule_.group));
}

void Boundaries::beginLumi(BlockSlot& lumi) {
  auto& waiter = *frontier_->runBegun[lumi.index];
  if (!lumi.run->begun.add(&waiter)) schedule_.group.run(handedOver([this, &lumi] { beginCalls(lumi); }, &schedule_.group));
}

void Boundaries::beginCalls(BlockSlot& lumi) {
  auto& conditions = *schedule_.conditions;
  if (conditions.empty()) return beginLumiCalls(lumi);
  conditions.acquire(lumi.number, lumi.state.iovs, [this, &lumi](std::exception_ptr error) {
    if (error) schedule_.fail(withContext(error, {"conditions", Transition::BeginLumi, {}, lumi.id(), {}}));
    beginLumiCalls(lumi);
  });
}

void Boundaries::beginLumiCalls(BlockSlot& lumi) {
  resetCaches(lumi);
  readSourceProducts(lumi);
  callEach(beginLumi_, lumi, Transition::BeginLumi, [this, &lumi] { begun(lumi); });
}

// Through a copy of the source of its own: the lanes' copies (or the shared
// source, under its queue) read events meanwhile.
void Boundaries::readSourceProducts(BlockSlot& slot) {
  if (slot.state.fromSourceCount == 0 || failed()) return;
  std::lock_guard const hold(blockReadLock_);
  try {
    if (slot.level == Level::Run) {
      blockReader_->readRun(slot.number.run, slot.state.fromSource.get());
    } else {
      blockReader_->readLumi(slot.number, slot.state.fromSource.get());
    }
  } catch (...) {
    auto const transition = slot.level == Level::Run ? Transition::BeginRun : Transition::BeginLumi;
    schedule_.fail(withContext(std::current_exception(), {"source", transition, {}, slot.id(), blockReader_->origin()}));
  }
}

void Boundaries::end(BlockSlot& slot) {
  bool const run = slot.level == Level::Run;
  auto const& ends = run ? endRun_ : endLumi_;
  auto const& writes = run ? writeRun_ : writeLumi_;
  auto const endTransition = run ? Transition::EndRun : Transition::EndLumi;
  auto const writeTransition = run ? Transition::WriteRun : Transition::WriteLumi;
  callEach(ends, slot, endTransition, [this, &slot, &writes, writeTransition] {
    callEach(writes, slot, writeTransition, [this, &slot] { freed(slot); });
  });
}

Clock::time_point Boundaries::timeNow() const { return schedule_.timing() ? schedule_.clock.now() : kUntimed; }

void Boundaries::begun(BlockSlot& slot) {
  slot.begunAt = timeNow();
  slot.begun.markDone();
  release(slot);
}

void Boundaries::freed(BlockSlot& slot) {
  auto* const run = slot.level == Level::Lumi ? slot.run : nullptr;
  if (!schedule_.blockObservers.empty()) {
    BlockRecord const record{slot.level, slot.id(), slot.entry, slot.index, slot.state.events.load(std::memory_order_relaxed),
                             slot.openedAt, slot.begunAt, timeNow()};
    for (auto* observer : schedule_.blockObservers) observer->blockFinished(record);
  }
  schedule_.conditions->release(slot.state.iovs);
  if (run) run->state.events.fetch_add(slot.state.events.load(std::memory_order_relaxed), std::memory_order_relaxed);
  slot.state.clear();
  std::vector<std::function<void()>> parked;
  {
    auto& f = *frontier_;
    std::lock_guard const hold(f.lock);
    slot.busy = false;
    slot.run = nullptr;
    ++f.generation;
    parked.swap(f.parked);
  }
  for (auto& wake : parked) schedule_.group.run(handedOver(std::move(wake), &schedule_.group));
  if (run) release(*run);
}

void Boundaries::callEach(std::vector<unsigned> const& workers, BlockSlot& slot, Transition transition,
                          std::function<void()> then) {
  struct Countdown {
    std::atomic<std::size_t> left;
    std::function<void()> then;
    void done() {
      if (left.fetch_sub(1, std::memory_order_acq_rel) == 1) then();
    }
  };
  auto countdown = std::make_shared<Countdown>();
  countdown->left.store(workers.size() + 1, std::memory_order_relaxed);
  countdown->then = std::move(then);
  for (auto w : workers) {
    auto& worker = *schedule_.workers[w];
    if (worker.gate) {
      worker.gate->push([this, w, &slot, transition, countdown] {
        call(w, slot, transition, 0);
        countdown->done();
      });
    } else {
      call(w, slot, transition, 0);
      countdown->done();
    }
  }
  countdown->done();
}

bool Boundaries::call(unsigned w, BlockSlot& slot, Transition transition, unsigned instance) {
  if (failed()) return false;
  auto& worker = *schedule_.workers[w];
  auto& module = worker.module(instance);
  auto const begin = schedule_.timing() ? schedule_.clock.now() : kUntimed;
  try {
    switch (transition) {
      case Transition::BeginRun: module.doBeginRun(*slot.runView); break;
      case Transition::EndRun: module.doEndRun(*slot.runView); break;
      case Transition::BeginLumi: module.doBeginLumi(*slot.lumiView); break;
      case Transition::EndLumi: module.doEndLumi(*slot.lumiView); break;
      case Transition::WriteLumi: worker.output()->doWriteLumi(*slot.lumiView); break;
      case Transition::WriteRun: worker.output()->doWriteRun(*slot.runView); break;
      default: throw std::logic_error("not a run or lumi transition");
    }
  } catch (...) {
    auto const lane = worker.module().concurrency() == Concurrency::Stream ? std::optional<unsigned>(instance) : std::nullopt;
    schedule_.fail(withContext(std::current_exception(), {worker.label(), transition, lane, slot.id(), {}}));
    return false;
  }
  if (begin != kUntimed) {
    auto const lane = worker.module().concurrency() == Concurrency::Stream ? instance : kNoLane;
    schedule_.record(CallRecord{w, transition, lane, slot.id(), begin, schedule_.clock.now()});
  }
  return true;
}

void Boundaries::enterStream(BlockSlot& lumi, bool newRun, unsigned lane) {
  if (newRun) {
    for (auto w : streamBeginRun_) call(w, *lumi.run, Transition::BeginRun, lane);
  }
  for (auto w : streamBeginLumi_) call(w, lumi, Transition::BeginLumi, lane);
}

void Boundaries::leaveStream(BlockSlot& lumi, bool endRun, unsigned lane) {
  for (auto w : streamEndLumi_) call(w, lumi, Transition::EndLumi, lane);
  if (endRun) {
    for (auto w : streamEndRun_) call(w, *lumi.run, Transition::EndRun, lane);
  }
}

}  // namespace lanes::detail
