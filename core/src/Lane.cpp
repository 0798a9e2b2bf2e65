#include "Lane.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <utility>

#include "lanes/core/detail/TbbHandOff.h"

namespace lanes::detail {

namespace {
// The lane whose startEvent() this thread is in. An event that ends within
// it ran its last step on this thread, so no other thread can be deciding
// who goes on with the lane: it ends without the locked count that decides
// that for an event that ends elsewhere (Lane::eventPending_).
thread_local Lane const* startingHere = nullptr;

// The module whose start() by its sole starter this thread is in (Lane::ensure).
// A call of it that finishes within that start() finishes before the starter
// can wait for it: no waiter can be on its list, nor come meanwhile.
struct InlineStart {
  Lane const* lane = nullptr;
  unsigned module = 0;
};
thread_local InlineStart startingModule;
}  // namespace

Lane::Lane(Schedule& schedule, unsigned index)
    : schedule_(schedule), index_(index), event_(schedule.registry, index), sourceReads_(schedule.sourceReads()) {
  if (schedule.replicatedSource) replica_ = schedule.takeReplica();
  // A lane's own copy of a file source is still one file: the lane's modules
  // run concurrently, so their reads go through the lane's serial queue.
  if (sourceReads_ == SourceReads::Batched) replicaReads_ = std::make_unique<LimitedTaskQueue>(schedule.group, 1);
  auto const nModules = schedule.workers.size();
  modules_ = std::make_unique<ModuleState[]>(nModules);
  for (unsigned m = 0; m < nModules; ++m) {
    auto const& prerequisites = schedule.workers[m]->prerequisites;
    auto& state = modules_[m];
    state.prefetch.resize(prerequisites.size());
    for (unsigned k = 0; k < prerequisites.size(); ++k) {
      state.prefetch[k].lane = this;
      state.prefetch[k].module = m;
      state.prefetch[k].prerequisite = k;
    }
    state.conditions.resize(schedule.workers[m]->conditions.size());
    for (auto& waiter : state.conditions) {
      waiter.lane = this;
      waiter.module = m;
    }
    state.toRead.reserve(prerequisites.size());
    state.toReadProducts.reserve(prerequisites.size());
  }
  sourceProducts_ = std::make_unique<SourceProductState[]>(schedule.sourceProducts);
  paths_.resize(schedule.paths.size());
  for (unsigned p = 0; p < paths_.size(); ++p) {
    paths_[p].waiter.lane = this;
    paths_[p].waiter.path = p;
  }
  outputWaiters_.resize(schedule.outputs.size());
  for (auto& waiter : outputWaiters_) waiter.lane = this;
  begunWaiter_.lane = this;
}

// ---------------------------------------------------------------- events

void Lane::start(Clock::time_point since) {
  freeSince_ = since;
  wentOnFrom_ = kUntimed;
  untilTimed_ = 0;  // a part's first event is timed
  eventsDone_ = 0;
  lumi_ = eventLumi_ = nullptr;
  lumiEvents_ = 0;
  floor_ = 0;
  run();
}

void Lane::run() {
  observed_ = schedule_.timing();
  watched_ = schedule_.watched;
  if (!schedule_.replicatedSource) return fetchSharedAndProcess();
  // Past the input's end the rest of the run is too; other lanes' runs may
  // still hold events to take. A source's error cancels the job.
  std::uint64_t ordinal = 0;
  for (;;) {
    auto const next = nextOrdinal(ordinal);
    if (next == Next::Parked) return;
    if (next == Next::End) break;
    waitingOrdinal_ = ordinal;  // before enter(): lumiBegun() may run on another thread before it returns
    if (!enter(eventLumi_)) return;
    if (boundaryFailed()) continue;  // its begin failed: no event of the lumi starts
    if (advanceSource(ordinal) && !processEvent()) return;
  }
  leaveLumi(nullptr);
  idleToTheEnd();
}

void Lane::idleToTheEnd() const {
  if (freeSince_ == kUntimed) return;
  auto const end = std::max(freeSince_, schedule_.clock.now());
  schedule_.record(WaitRecord{kSourceProducer, WaitKind::Idle, index_, {}, freeSince_, end});
}

Lane::Next Lane::nextOrdinal(std::uint64_t& ordinal) {
  auto& runs = schedule_.runs;
  auto& boundaries = *schedule_.boundaries;
  for (;;) {
    // The rest of a claimed run goes on when another lane found the input's
    // end (its ordinals lie beyond this run); a stop or a failure ends it.
    if (schedule_.cancelled.load(std::memory_order_acquire)) {
      // A run claimed or stolen in a lumi the lane has not gone into yet
      // holds that lumi for it: the hold goes back, or the lumi never ends.
      // (A finished run's tag is stale, its hold long given back: take()
      // says it has no ordinal left.)
      auto* const pending = static_cast<BlockSlot*>(runs.tag(index_));
      if (pending && pending != lumi_ && runs.take(index_, ordinal)) {
        boundaries.leave(*pending, 0);
        runs.assign(index_, 0, 0);
      }
      boundaries.close();
      return Next::End;
    }
    if (runs.take(index_, ordinal)) {
      eventLumi_ = static_cast<BlockSlot*>(runs.tag(index_));
      return Next::Event;
    }
    Boundaries::Claim claimed;
    std::uint64_t generation = 0;
    auto const status = claim(*replica_, schedule_.replicaChunk, claimed, generation);
    if (status == Boundaries::Status::Claimed) {
      runs.assign(index_, claimed.first, claimed.end, claimed.lumi ? claimed.lumi : lumi_);
      continue;
    }
    if (runs.steal(index_, floor_)) {
      auto* const lumi = static_cast<BlockSlot*>(runs.tag(index_));
      if (lumi != lumi_) boundaries.hold(*lumi);  // its lane holds it meanwhile
      continue;
    }
    if (status == Boundaries::Status::End || park(generation)) {
      return status == Boundaries::Status::End ? Next::End : Next::Parked;
    }
  }
}

Boundaries::Status Lane::claim(Source& source, std::uint64_t count, Boundaries::Claim& claimed, std::uint64_t& generation) {
  auto& boundaries = *schedule_.boundaries;
  try {
    return boundaries.claim(lumi_, source, count, claimed, generation);
  } catch (...) {
    schedule_.fail(withContext(std::current_exception(), {"source", Transition::SourceNext, index_, {}, source.origin()}));
    boundaries.close();
    return Boundaries::Status::End;
  }
}

bool Lane::park(std::uint64_t generation) {
  wentOnFrom_ = kUntimed;
  leaveLumi(nullptr);
  boundaryWaitBegins();
  return schedule_.boundaries->park(
      [this] {
        boundaryWaitEnds();
        run();
      },
      generation);
}

// ---------------------------------------------------------------- runs and lumis

bool Lane::enter(BlockSlot* lumi) {
  if (lumi == lumi_) return true;
  wentOnFrom_ = kUntimed;  // the boundary's work and waits come between
  // The run's entry, not its slot: a slot freed meanwhile may hold the next run.
  enterNewRun_ = !lumi_ || lumi_->run->entry != lumi->run->entry;
  leaveLumi(lumi);
  lumi_ = lumi;
  floor_ = lumi->first;
  boundaryWaitBegins();  // before add(): lumiBegun() may end the wait on another thread before it returns
  if (lumi->begun.add(&begunWaiter_)) return false;
  schedule_.boundaries->enterStream(*lumi, enterNewRun_, index_);
  return true;
}

void Lane::BegunWaiter::notify() {
  lane->schedule_.group.run(handedOver([lane = lane] { lane->lumiBegun(); }, &lane->schedule_.group));
}

void Lane::lumiBegun() {
  boundaryWaitEnds();
  schedule_.boundaries->enterStream(*lumi_, enterNewRun_, index_);
  if (boundaryFailed()) return run();  // the event is dropped, and no other begins
  if (!schedule_.replicatedSource) {
    if (sourceReads_ != SourceReads::WithTheEvent) resetEventState();
    if (startEvent()) run();
    return;
  }
  if (advanceSource(waitingOrdinal_) && !processEvent()) return;
  run();
}

void Lane::leaveLumi(BlockSlot* to) {
  if (!lumi_) return;
  auto& boundaries = *schedule_.boundaries;
  boundaries.leaveStream(*lumi_, !to || to->run->entry != lumi_->run->entry, index_);
  floor_ = lumi_->end;
  boundaries.leave(*std::exchange(lumi_, nullptr), std::exchange(lumiEvents_, 0));
}

// Within the lane's Idle wait, which goes on until its next event's read.
void Lane::boundaryWaitBegins() {
  if (observed_) boundarySince_ = schedule_.clock.now();
}

void Lane::boundaryWaitEnds() {
  if (!observed_) return;
  auto const end = std::max(boundarySince_, schedule_.clock.now());
  schedule_.record(WaitRecord{kSourceProducer, WaitKind::Boundary, index_, {}, boundarySince_, end});
}

void Lane::fetchSharedAndProcess() {
  wentOnFrom_ = kUntimed;  // the source's queue may keep the lane waiting: an Idle wait
  // The shared source is used under its serial queue, and a file's products
  // are read there with the event: while other lanes wait to fetch, the
  // thread holding the queue goes on with their events, so one core does
  // the reading and keeps the source's baskets and buffers in its cache.
  // (Batches pushed as each module starts ran on whichever thread pushed
  // them: with the queue empty between events, the reads moved from core to
  // core and two threads read slower than one.) The event itself is
  // processed after the queue's slot is released.
  schedule_.sourceQueue->push(
      [this] {
        std::uint64_t ordinal = 0;
        sharedNext_ = claimShared(ordinal);
        fetched_ = sharedNext_ == Next::Event && advanceSource(ordinal);
        if (fetched_ && sourceReads_ == SourceReads::WithTheEvent) readWholeEvent();
      },
      [this] { afterSharedFetch(); });
}

Lane::Next Lane::claimShared(std::uint64_t& ordinal) {
  sharedHeld_ = false;
  if (schedule_.cancelled.load(std::memory_order_acquire)) {
    schedule_.boundaries->close();
    return Next::End;
  }
  Boundaries::Claim claimed;
  auto const status = claim(*schedule_.source, 1, claimed, sharedGeneration_);
  if (status != Boundaries::Status::Claimed) return status == Boundaries::Status::Park ? Next::Parked : Next::End;
  ordinal = claimed.first;
  sharedHeld_ = claimed.lumi != nullptr;
  eventLumi_ = claimed.lumi ? claimed.lumi : lumi_;
  return Next::Event;
}

void Lane::afterSharedFetch() {
  if (sharedNext_ == Next::Parked) {
    if (!park(sharedGeneration_)) run();
    return;
  }
  if (!fetched_) {
    // The claim's hold on a lumi the lane never went into goes back; a
    // source that ended or failed halted the job, and the frontier closes.
    if (sharedHeld_ && eventLumi_ != lumi_) schedule_.boundaries->leave(*eventLumi_, 0);
    sharedHeld_ = false;
    leaveLumi(nullptr);
    schedule_.boundaries->close();
    return idleToTheEnd();
  }
  sharedHeld_ = false;
  if (!enter(eventLumi_)) return;  // lumiBegun() goes on
  if (boundaryFailed()) return run();
  if (sourceReads_ != SourceReads::WithTheEvent) resetEventState();
  if (startEvent()) run();
}

// Timed as one batch, as readBatch(). A product no module ends up asking for
// (its paths rejected the event) is read all the same: the price of keeping
// the reads on one thread.
void Lane::readWholeEvent() {
  resetEventState();
  auto const begin = now();
  auto const& products = schedule_.consumedSourceProducts;
  readSourceProducts(products.data(), products.size());
  record(kSourceProducer, Transition::SourceRead, begin);
  for (auto p : schedule_.sharedSourceProducts) sourceProducts_[p].done.markDone();
}

bool Lane::advanceSource(std::uint64_t ordinal) {
  Source& source = replica_ ? *replica_ : *schedule_.source;
  auto const untilTimed = untilTimed_;
  timing_ = timeNextEvent();
  // A lane that went straight on from its last event's end, on in the same
  // lumi, was not idle meanwhile: it claimed this event, which the source's
  // call then includes, and it has no Idle wait. That saves a clock read
  // (about 13 ns) and a wait record an event.
  bool const wentOn = timing_ && wentOnFrom_ != kUntimed;
  auto const begin = wentOn ? wentOnFrom_ : now();
  wentOnFrom_ = kUntimed;
  try {
    auto const running = sourceCall(Transition::SourceNext, nullptr);
    bool const more = replica_ ? source.at(ordinal, sourceEvent_) : nextShared(ordinal);
    if (!more) {
      // No event: the lane's next one, from another lane's run, is timed as this one would have been.
      untilTimed_ = untilTimed;
      if (replica_) schedule_.runs.endInputAt(ordinal);
      schedule_.halted.store(true, std::memory_order_release);
      return false;
    }
  } catch (...) {
    schedule_.fail(withContext(std::current_exception(), {"source", Transition::SourceNext, index_, {}, source.origin()}));
    return false;
  }
  if (schedule_.boundaries->numbersLumis()) {
    sourceEvent_.id.run = eventLumi_->number.run;
    sourceEvent_.id.luminosityBlock = eventLumi_->number.luminosityBlock;
  }
  eventRead_ = record(kSourceProducer, Transition::SourceNext, begin);
  // The Idle wait ends as the read begins (freeSince_ may have been read on another thread).
  if (timing_ && !wentOn && freeSince_ != kUntimed) {
    schedule_.record(WaitRecord{kSourceProducer, WaitKind::Idle, index_, sourceEvent_.id, std::min(freeSince_, begin), begin});
  }
  return true;
}

bool Lane::nextShared(std::uint64_t ordinal) {
  return schedule_.boundaries->takePeeked(ordinal, sourceEvent_) || schedule_.readShared(ordinal, sourceEvent_);
}

bool Lane::startEvent() {
  for (auto* observer : schedule_.eventObservers) observer->eventStarted(index_, event_.id(), eventRead_);
  // Another lane's startEvent() may be under this one on the thread's stack (a task taken while a module waited).
  auto const* const outer = std::exchange(startingHere, this);
  endedWithin_ = false;
  eventPending_.set(2);
  auto const nPaths = static_cast<unsigned>(paths_.size());
  pendingPaths_.set(nPaths + 1);
  // Paths run concurrently: all but the first as tasks of their own.
  for (unsigned p = 1; p < nPaths; ++p) {
    schedule_.group.run(handedOver([this, p] {
      if (advancePath(p)) pathDone();
    }, &schedule_.group));
  }
  // This call's hold, and the first path's if it went through at once.
  unsigned const holds = 1 + (nPaths > 0 && advancePath(0));
  if (pendingPaths_.release(holds)) startOutputs();
  startingHere = outer;
  return endedWithin_ || eventPending_.release();
}

void Lane::resetEventState() {
  event_.start(sourceEvent_.id, eventLumi_ ? eventLumi_->lumiView.get() : nullptr);
  failed_.store(false, std::memory_order_relaxed);
  error_ = nullptr;
  for (std::size_t m = 0; m < schedule_.workers.size(); ++m) {
    auto& state = modules_[m];
    state.claimed.store(false, std::memory_order_relaxed);
    state.done.reset();
    state.accepted = true;
    state.externalError = nullptr;
  }
  for (auto p : schedule_.sharedSourceProducts) {  // the others never use their state
    sourceProducts_[p].claimed.store(false, std::memory_order_relaxed);
    sourceProducts_[p].done.reset();
  }
  for (auto& path : paths_) {
    path.step = 0;
    path.accepted = true;
  }
  // Before a shared source's read of the event (readWholeEvent): a watchdog sees a read that hangs as the event's.
  if (watched_) watch_.eventBegan(event_.id());
}

void Lane::eventDone() {
  auto const status = eventFailed() ? EventStatus::Failed : EventStatus::Done;
  if (status == EventStatus::Done) {
    ++eventsDone_;
    ++lumiEvents_;
  } else if (schedule_.config.onError == ErrorPolicy::Skip) {
    schedule_.eventsSkipped.fetch_add(1, std::memory_order_relaxed);
  } else {
    schedule_.fail(error_);
  }
  // A sampled job reads the end of the event before a timed one too: its Idle wait begins there.
  freeSince_ = timing_ || (observed_ && untilTimed_ == 0) ? schedule_.clock.now() : kUntimed;
  auto const when = timing_ ? freeSince_ : kUntimed;
  for (auto* observer : schedule_.eventObservers) observer->eventFinished(index_, event_.id(), status, when);
  if (watched_) watch_.eventEnded();
  wentOnFrom_ = freeSince_;
  if (startingHere == this) {
    endedWithin_ = true;  // startEvent() returns true, and its caller goes on
    return;
  }
  if (eventPending_.release()) run();
}

// ---------------------------------------------------------------- modules

bool Lane::ensure(unsigned module, Waiter* waiter) {
  auto& state = modules_[module];
  if (state.done.isDone()) return true;
  if (schedule_.workers[module]->soleStarter) {
    // One place alone can start it: no claim is needed to start it once.
    auto const outer = std::exchange(startingModule, {this, module});
    start(module);
    startingModule = outer;
  } else if (!state.claimed.exchange(true, std::memory_order_acq_rel)) {
    start(module);
  }
  return !state.done.add(waiter);
}

void Lane::start(unsigned module) {
  auto& state = modules_[module];
  auto const& worker = *schedule_.workers[module];
  auto const n = static_cast<unsigned>(worker.prerequisites.size());
  state.toRead.clear();
  state.toReadProducts.clear();
  state.readyAtStart.clear();
  // One count per prerequisite and conditions record, one held by this call
  // and one for a batch read; those ready at once are subtracted in a single
  // step at the end, so the count cannot reach zero before then. The batch's
  // completion subtracts its own count and those of the prerequisites it read.
  auto const records = static_cast<unsigned>(worker.conditions.size());
  state.pending.set(n + records + 2);
  bool const announce = worker.readyListener() != nullptr;
  // A range announced together gives idle threads part of the event's
  // products. Otherwise every thread has a lane's work, and announcing as
  // they come costs less.
  bool const together = announce && announcesTogether();
  // One note for the productReady() calls made here, not one a product: an
  // output can listen to a thousand products an event.
  std::optional<RunningScope> readyNote;
  if (announce && !together) {
    readyNote.emplace(worker.runner(), Transition::ProductReady, static_cast<int>(index_), &event_.id());
  }
  unsigned readyNow = 0;
  auto const ready = [&](unsigned k) {
    if (together) {
      state.readyAtStart.push_back(k);
    } else if (announce) {
      announceReady(module, k);
    }
    ++readyNow;
  };
  for (auto k : worker.coordinated) {
    auto const& prerequisite = worker.prerequisites[k];
    if (prerequisite.producer == kSourceProducer ? ensureSourceProduct(module, k)
                                                 : ensure(prerequisite.producer, &state.prefetch[k])) {
      ready(k);
    }
  }
  // The source products read for this module alone: at once from memory,
  // already with the event from a shared file source, else in its batch,
  // with nothing to coordinate.
  bool const solo = !worker.soloReads.empty();
  bool const batched = sourceReads_ == SourceReads::Batched;
  if (solo && !batched) {
    if (sourceReads_ == SourceReads::Inline) readSourceProducts(worker.soloProducts.data(), worker.soloProducts.size());
    for (auto k : worker.soloReads) ready(k);
  }
  if (!state.readyAtStart.empty()) announceTogether(module, state.readyAtStart);
  if (state.toRead.empty() && (!solo || !batched)) {
    ++readyNow;
  } else {
    replicaReads_->push([this, module] { readBatch(module); }, [this, module] { batchRead(module); });
  }
  if (records) readyNow += conditionsReady(module);
  ++readyNow;  // this call's own count
  if (state.pending.release(readyNow)) launch(module);
}

unsigned Lane::conditionsReady(unsigned module) {
  auto& state = modules_[module];
  auto const& records = schedule_.workers[module]->conditions;
  state.conditionsSince = now();
  unsigned ready = 0;
  for (unsigned k = 0; k < records.size(); ++k) {
    if (!eventLumi_->state.iovs[records[k]]->loaded.add(&state.conditions[k])) ++ready;
  }
  return ready;
}

// Called by the load's markDone() for every lane that waits for the payload:
// each lane goes on in a task of its own. Run inline, the first lane would
// go on through its next events before markDone() told the second.
void Lane::conditionsLoaded(unsigned module) {
  schedule_.group.run(handedOver([this, module] {
    auto& state = modules_[module];
    recordWait(module, WaitKind::Conditions, state.conditionsSince);
    if (state.pending.release()) launch(module);
  }, &schedule_.group));
}

bool Lane::ensureSourceProduct(unsigned module, unsigned prerequisite) {
  auto const product = schedule_.workers[module]->prerequisites[prerequisite].product;
  auto& state = sourceProducts_[product];
  if (state.done.isDone()) return true;
  auto& claimant = modules_[module];
  if (!state.claimed.exchange(true, std::memory_order_acq_rel)) {
    if (sourceReads_ == SourceReads::Inline) {
      readSourceProducts(&product, 1);
      state.done.markDone();
      return true;
    }
    // Read later in one batch under the source's queue, whose completion
    // announces it: a waiter of the claimant's would announce it again.
    claimant.toRead.push_back(prerequisite);
    claimant.toReadProducts.push_back(product);
    return false;
  }
  return !state.done.add(&claimant.prefetch[prerequisite]);
}

// Untimed: a read inline (from memory: repeat=, synthetic) costs a few
// nanoseconds, less than the two clock reads that would time it, and reads
// from files are timed by their batch (readBatch, readWholeEvent).
void Lane::readSourceProducts(ProductIndex const* products, std::size_t count) {
  if (count == 0 || eventFailed()) return;
  Source& source = replica_ ? *replica_ : *schedule_.source;
  auto const running = sourceCall(Transition::SourceRead, &event_.id());
  try {
    source.readProducts(sourceEvent_, products, count, event_.slotsForWriting());
  } catch (...) {
    failEvent(std::current_exception(), {"source", Transition::SourceRead, index_, event_.id(), source.origin()});
  }
}

// One call record for the whole batch: a batch can be every product of the
// event (an output keeps them all), and timing each read would add two clock
// reads to every product.
void Lane::readBatch(unsigned module) {
  auto const begin = now();
  auto const& worker = *schedule_.workers[module];
  readSourceProducts(worker.soloProducts.data(), worker.soloProducts.size());
  auto const& claimed = modules_[module].toReadProducts;
  readSourceProducts(claimed.data(), claimed.size());
  record(kSourceProducer, Transition::SourceRead, begin);
}

// The other modules waiting on the batch's products are woken first, as
// they would be without a claimant to announce to. The claimant announces
// them as one range where threads would idle: a file's products of an event
// arrive in one batch, as a source's from memory arrive at once.
void Lane::batchRead(unsigned module) {
  auto& state = modules_[module];
  auto const& worker = *schedule_.workers[module];
  for (auto product : state.toReadProducts) sourceProducts_[product].done.markDone();
  if (worker.readyListener() && !eventFailed()) {
    auto const running = readyCalls(module);
    std::vector<unsigned> const* batch[] = {&worker.soloReads, &state.toRead};
    for (auto const* read : batch) {
      if (read->empty()) continue;
      if (announcesTogether()) {
        announceTogether(module, *read);
      } else {
        for (auto k : *read) announceReady(module, k);
      }
    }
  }
  // The batch's count and its prerequisites'.
  auto const count = static_cast<unsigned>(state.toRead.size() + worker.soloReads.size()) + 1;
  if (state.pending.release(count)) launch(module);
}

void Lane::prerequisiteReady(unsigned module, unsigned prerequisite) {
  if (schedule_.workers[module]->readyListener()) {
    auto const running = readyCalls(module);
    announceReady(module, prerequisite);
  }
  if (modules_[module].pending.release()) launch(module);
}

// A source held in memory has all of an event's products ready at once, and
// a file's arrive in one batch: announced as a parallel range, an idle thread
// takes part of them (an output serialises each product where it is
// announced), so that fewer events in flight than threads can still keep
// every thread busy. Isolated:
// a thread waiting for the range takes no other lane's work meanwhile.
void Lane::announceTogether(unsigned module, std::vector<unsigned> const& prerequisites) {
  auto const announce = [&](std::size_t begin, std::size_t end) {
    auto const running = readyCalls(module);
    for (auto i = begin; i != end; ++i) announceReady(module, prerequisites[i]);
  };
  auto const threads = static_cast<std::size_t>(schedule_.config.threads);
  if (prerequisites.size() == 1) return announce(0, 1);
  // Pieces of at least 1/4 of a thread's share: a few tasks an event, not one a product.
  auto const grain = std::max<std::size_t>(1, prerequisites.size() / (4 * threads));
  char const ranges = 0;  // what waits for the ranges, for TSan (TbbHandOff.h)
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, prerequisites.size(), grain),
                      handedOver([&](auto const& range) { announce(range.begin(), range.end()); }, &ranges));
  });
  joined(&ranges);
}

void Lane::announceReady(unsigned module, unsigned prerequisite) {
  auto& worker = *schedule_.workers[module];
  auto* output = worker.readyListener();
  if (!output || eventFailed()) return;
  for (auto product : worker.productsOf[prerequisite]) {
    if (!event_.has(product)) continue;  // its producer failed or did not put it
    auto const begin = now();
    try {
      output->productReady(event_, product);
    } catch (...) {
      failEvent(std::current_exception(), contextFor(module, Transition::ProductReady));
      return;
    }
    record(module, Transition::ProductReady, begin);
  }
}

void Lane::launch(unsigned module) {
  if (eventFailed()) return finish(module);
  auto const& worker = *schedule_.workers[module];
  if (worker.module().hasExternalWork()) {
    if (worker.gate) return enqueue<&Lane::acquire>(module, false);
    return acquire(module, now());
  }
  if (worker.gate) return enqueue<&Lane::runModule>(module, true);
  runModule(module, now());
  finish(module);
}

// The task captures no more than `this` and the index, as the untimed one
// did: a std::function stores that without allocating. The module's finish
// (what comes after it in the lane: its consumers, the event's end, the
// lane's next event) is the queue's continuation, run with the slot released:
// a `one` module holds its slot for its call only, not through the rest of
// its lane's event.
template <void (Lane::*step)(unsigned, Clock::time_point)>
void Lane::enqueue(unsigned module, bool thenFinish) {
  modules_[module].queued = now();
  LimitedTaskQueue::Task then;
  if (thenFinish) then = [this, module] { finish(module); };
  schedule_.workers[module]->gate->push(
      [this, module] { (this->*step)(module, recordWait(module, WaitKind::Queue, modules_[module].queued)); },
      std::move(then));
}

void Lane::runModule(unsigned module, Clock::time_point begin) {
  auto& state = modules_[module];
  if (eventFailed()) return;
  CallScope const call(*this, module, Transition::Event);
  try {
    state.accepted = schedule_.workers[module]->callEvent(event_, index_);
    record(module, Transition::Event, begin);
  } catch (...) {
    failEvent(std::current_exception(), contextFor(module, Transition::Event));
  }
}

void Lane::acquire(unsigned module, Clock::time_point begin) {
  if (eventFailed()) return finish(module);
  // The deferred task keeps the job's task_group waiting until the external
  // work completes, without occupying a thread meanwhile.
  auto resume = std::make_shared<tbb::task_handle>(schedule_.group.defer(handedOver([this, module] {
    tsanAcquire(&modules_[module].externalError);  // what the completion's thread did (TbbHandOff.h)
    recordWait(module, WaitKind::External, modules_[module].acquired, modules_[module].completed);
    if (schedule_.workers[module]->gate) return enqueue<&Lane::produceAfterAcquire>(module, true);
    produceAfterAcquire(module, now());
    finish(module);
  }, &schedule_.group)));
  Completion completion([this, module, resume, arena = schedule_.arena](std::exception_ptr error) {
    // Only the completion's time is read here: the wait is reported from the
    // resumed task, so that observers are called from the job's threads alone
    // (a foreign thread that ends, and another that reuses its id, would share
    // an observer's per-thread state with no order between them).
    modules_[module].externalError = error;
    if (timing_) modules_[module].completed = schedule_.clock.now();
    tsanRelease(&modules_[module].externalError);
    // Safe from a thread outside the arena. Nothing of the lane may be touched
    // after this call: the resumed task can finish the job before it returns.
    arena->enqueue(std::move(*resume));
  });
  CallScope const call(*this, module, Transition::Acquire);
  modules_[module].acquired = begin;
  try {
    schedule_.workers[module]->callAcquire(event_, index_, std::move(completion));
    record(module, Transition::Acquire, begin);
  } catch (...) {
    failEvent(std::current_exception(), contextFor(module, Transition::Acquire));
  }
}

void Lane::produceAfterAcquire(unsigned module, Clock::time_point begin) {
  if (auto error = modules_[module].externalError) return failEvent(error, contextFor(module, Transition::Acquire));
  runModule(module, begin);
}

void Lane::finish(unsigned module) {
  auto& done = modules_[module].done;
  if (startingModule.lane == this && startingModule.module == module) return done.markDoneWithoutWaiters();
  done.markDone();
}

// ---------------------------------------------------------------- paths and outputs

bool Lane::advancePath(unsigned p) {
  auto& path = paths_[p];
  auto const& modules = schedule_.paths[p].modules;
  while (path.step < modules.size()) {
    unsigned const module = modules[path.step];
    if (!ensure(module, &path.waiter)) return false;  // notify() calls us again
    if (eventFailed() || !modules_[module].accepted) {
      path.accepted = false;
      break;
    }
    ++path.step;
  }
  if (observed_) {
    auto const status = path.accepted ? PathStatus::Accepted : eventFailed() ? PathStatus::Failed : PathStatus::Rejected;
    for (auto* observer : schedule_.eventObservers) observer->pathFinished(index_, p, status, path.step);
  }
  return true;
}

void Lane::pathDone() {
  if (pendingPaths_.release()) startOutputs();
}

void Lane::startOutputs() {
  auto const& routes = schedule_.outputs;
  pendingOutputs_.set(static_cast<unsigned>(routes.size()) + 1);
  unsigned holds = 1;  // this call's, and those of the outputs done at once: given back together
  for (unsigned o = 0; o < routes.size(); ++o) {
    bool selected = routes[o].selectPaths.empty();
    for (auto p : routes[o].selectPaths) selected = selected || paths_[p].accepted;
    if (!selected || eventFailed() || ensure(routes[o].worker, &outputWaiters_[o])) ++holds;
  }
  if (pendingOutputs_.release(holds)) eventDone();
}

void Lane::outputDone() {
  if (pendingOutputs_.release()) eventDone();
}

// ---------------------------------------------------------------- errors and records

void Lane::failEvent(std::exception_ptr error, ErrorContext context) {
  if (context.event == std::nullopt) context.event = event_.id();
  if (!failed_.exchange(true, std::memory_order_acq_rel)) error_ = withContext(error, std::move(context));
}

ErrorContext Lane::contextFor(unsigned module, Transition transition) const {
  return {schedule_.workers[module]->label(), transition, index_, event_.id(), {}};
}


}  // namespace lanes::detail
