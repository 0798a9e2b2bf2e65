// The lanes' control flow (core/src/Lane.cpp) as steps of frames on a
// thread's stack: a step either finishes at once (its frame popped, replaced,
// or a callee pushed above it, to which it comes back in its next phase) or
// starts a timed activity, and the thread waits. Each function names the
// Lane function it replays.

#include "Simulation.h"

namespace lanes::model::detail {

namespace {

Frame frameOf(Frame::Kind kind, unsigned lane, unsigned a = 0, unsigned b = 0) { return {kind, 0, 0, lane, a, b}; }

}  // namespace

void Simulation::step(unsigned thread) {
  auto& frame = threads_[thread].stack.back();
  switch (frame.kind) {
    case Frame::Kind::RunLane: runLane(thread, frame); return;
    case Frame::Kind::FetchShared: {
      auto const lane = frame.lane;
      threads_[thread].stack.pop_back();
      push(thread, processes_[lanes_[lane].process].sourceQueue, {QueueItem::Kind::SourceFetch, lane, 0});
      return;
    }
    case Frame::Kind::SourceFetch: sourceFetch(thread, frame); return;
    case Frame::Kind::ContinueShared: continueShared(thread, frame); return;
    case Frame::Kind::StartEvent: startEvent(thread, frame); return;
    case Frame::Kind::AdvancePath: advancePath(thread, frame); return;
    case Frame::Kind::PathDone:
      if (--lanes_[frame.lane].pendingPaths == 0) {
        frame = frameOf(Frame::Kind::StartOutputs, frame.lane);
      } else {
        threads_[thread].stack.pop_back();
      }
      return;
    case Frame::Kind::StartOutputs: startOutputs(thread, frame); return;
    case Frame::Kind::OutputDone:
      if (--lanes_[frame.lane].pendingOutputs == 0) {
        frame = frameOf(Frame::Kind::EventDone, frame.lane);
      } else {
        threads_[thread].stack.pop_back();
      }
      return;
    case Frame::Kind::EventDone: eventDone(thread, frame); return;
    case Frame::Kind::StartModule: startModule(thread, frame); return;
    case Frame::Kind::PrerequisiteReady: prerequisiteReady(thread, frame); return;
    case Frame::Kind::Launch: launch(thread, frame); return;
    case Frame::Kind::RunModule:
    case Frame::Kind::CallModule: runModule(thread, frame); return;
    case Frame::Kind::Acquire: acquire(thread, frame); return;
    case Frame::Kind::ProduceAfterAcquire: produceAfterAcquire(thread, frame); return;
    case Frame::Kind::Finish: finish(thread, frame); return;
    case Frame::Kind::Notify: notify(thread, frame); return;
    case Frame::Kind::QueueRun: queueRun(thread, frame); return;
    case Frame::Kind::ReadBatch:
      if (frame.phase == 0) {
        frame.phase = 1;
        return call(thread, kNone, Activity::Counts::Source, menu_.sourceRead.draw(random_), false);
      }
      threads_[thread].stack.pop_back();
      return;
    case Frame::Kind::BatchRead: batchRead(thread, frame); return;
  }
}

// ---------------------------------------------------------------- events

// Lane::run(), a lane's own copy of the source: events one after another
// while each ends before its start returns.
void Simulation::runLane(unsigned thread, Frame& frame) {
  auto& stack = threads_[thread].stack;
  auto const lane = frame.lane;
  switch (frame.phase) {
    case 0:
      idleUntilNow(lane);
      if (!admitEvent(lane)) return stack.pop_back();
      frame.phase = 1;
      return call(thread, kNone, Activity::Counts::Source, menu_.sourceNext.draw(random_), false);
    case 1:
      beginEvent(lane);
      frame.phase = 2;
      return stack.push_back(frameOf(Frame::Kind::StartEvent, lane));
    default:
      if (lanes_[lane].finishedInline) {
        frame.phase = 0;
      } else {
        stack.pop_back();
      }
  }
}

// The shared source queue's work: the next event, read whole when the source
// reads with the event.
void Simulation::sourceFetch(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  if (frame.phase == 0) {
    idleUntilNow(lane);
    if (!admitEvent(lane)) {
      lanes_[lane].fetched = false;
      return threads_[thread].stack.pop_back();
    }
    frame.phase = 1;
    auto seconds = menu_.sourceNext.draw(random_);
    if (menu_.sourceReads == SourceReads::WithTheEvent) seconds += menu_.sourceRead.draw(random_);
    return call(thread, kNone, Activity::Counts::Source, seconds, false);
  }
  lanes_[lane].fetched = true;
  beginEvent(lane);
  threads_[thread].stack.pop_back();
}

// fetchSharedAndProcess()'s continuation.
void Simulation::continueShared(unsigned thread, Frame& frame) {
  auto& stack = threads_[thread].stack;
  auto const lane = frame.lane;
  if (frame.phase == 0) {
    if (!lanes_[lane].fetched) {
      idleUntilNow(lane);
      return stack.pop_back();
    }
    frame.phase = 1;
    return stack.push_back(frameOf(Frame::Kind::StartEvent, lane));
  }
  if (lanes_[lane].finishedInline) {
    frame = frameOf(Frame::Kind::FetchShared, lane);
  } else {
    stack.pop_back();
  }
}

// startEvent(): every path but the first as a task of its own.
void Simulation::startEvent(unsigned thread, Frame& frame) {
  auto& stack = threads_[thread].stack;
  auto const lane = frame.lane;
  auto& state = lanes_[lane];
  switch (frame.phase) {
    case 0: {
      state.eventPending = 2;
      auto const paths = static_cast<unsigned>(menu_.paths.size());
      state.pendingPaths = paths + 1;
      frame.phase = 1;
      for (unsigned p = 1; p < paths; ++p) spawn(thread, frameOf(Frame::Kind::AdvancePath, lane, p));
      if (paths > 0) stack.push_back(frameOf(Frame::Kind::AdvancePath, lane, 0));
      return;
    }
    case 1: frame.phase = 2; return stack.push_back(frameOf(Frame::Kind::PathDone, lane));
    default:
      state.finishedInline = --state.eventPending == 0;
      stack.pop_back();
  }
}

void Simulation::advancePath(unsigned thread, Frame& frame) {
  auto& stack = threads_[thread].stack;
  auto const lane = frame.lane;
  auto const p = frame.a;
  auto& path = lanes_[lane].paths[p];
  auto const& modules = menu_.paths[p].modules;
  if (frame.phase == 1) {  // back from starting the module at `step`
    frame.phase = 0;
    auto& module = lanes_[lane].modules[modules[path.step]];
    if (!module.done) {
      addWaiter(module.waiters, {Waiter::Kind::Path, p, 0});
      return stack.pop_back();
    }
  }
  while (path.step < modules.size()) {
    auto const m = modules[path.step];
    auto& module = lanes_[lane].modules[m];
    if (!module.done) {
      if (!module.claimed) {
        module.claimed = true;
        frame.phase = 1;
        return stack.push_back(frameOf(Frame::Kind::StartModule, lane, m));
      }
      addWaiter(module.waiters, {Waiter::Kind::Path, p, 0});
      return stack.pop_back();
    }
    if (!module.accepted) {
      path.accepted = false;
      break;
    }
    ++path.step;
  }
  auto& counts = prediction_.paths[p];
  if (path.accepted) {
    ++counts.accepted;
  } else {
    ++counts.rejectedAt[path.step];
  }
  frame = frameOf(Frame::Kind::PathDone, lane);
}

void Simulation::startOutputs(unsigned thread, Frame& frame) {
  auto& stack = threads_[thread].stack;
  auto const lane = frame.lane;
  auto& state = lanes_[lane];
  auto const outputs = static_cast<unsigned>(menu_.outputs.size());
  if (frame.phase == 0) {
    state.pendingOutputs = outputs + 1;
    frame.phase = 1;
  } else if (frame.phase == 2) {  // back from starting output `b`
    auto& module = state.modules[menu_.outputs[frame.b].module];
    if (module.done) {
      --state.pendingOutputs;
    } else {
      addWaiter(module.waiters, {Waiter::Kind::Output, frame.b, 0});
    }
    ++frame.b;
    frame.phase = 1;
  }
  for (; frame.b < outputs; ++frame.b) {
    auto const& route = menu_.outputs[frame.b];
    bool selected = route.select.empty();
    for (auto p : route.select) selected = selected || state.paths[p].accepted;
    auto& module = state.modules[route.module];
    if (!selected || module.done) {
      --state.pendingOutputs;
      continue;
    }
    if (!module.claimed) {
      module.claimed = true;
      frame.phase = 2;
      return stack.push_back(frameOf(Frame::Kind::StartModule, lane, route.module));
    }
    addWaiter(module.waiters, {Waiter::Kind::Output, frame.b, 0});
  }
  frame = frameOf(Frame::Kind::OutputDone, lane);
}

// eventDone(): the lane fetches its next event if its start has returned.
void Simulation::eventDone(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  endEvent(lane);
  if (--lanes_[lane].eventPending == 0) {
    frame = frameOf(menu_.replicatedSource ? Frame::Kind::RunLane : Frame::Kind::FetchShared, lane);
  } else {
    threads_[thread].stack.pop_back();
  }
}

// ---------------------------------------------------------------- modules

// start(module): its prerequisites in order, each producer started (and, if
// it can, run) inline before the next is looked at.
void Simulation::startModule(unsigned thread, Frame& frame) {
  auto& stack = threads_[thread].stack;
  auto const lane = frame.lane;
  auto const m = frame.a;
  auto& state = lanes_[lane].modules[m];
  auto const& module = menu_.modules[m];
  auto const& order = coordinated_[m];
  switch (frame.phase) {
    case 0:
      state.pending = static_cast<unsigned>(module.prerequisites.size()) + 2;
      state.readyNow = 0;
      state.announceDue = 0;
      if (menu_.sourceReads == SourceReads::Batched) lanes_[lane].extras[m].toRead.clear();  // only batches fill it
      frame.phase = 1;
      break;
    case 2: {  // back from starting the producer of prerequisite `b`
      auto const k = order[frame.b];
      auto& producer = lanes_[lane].modules[module.prerequisites[k].index];
      if (producer.done) {
        ready(lane, m, k);
      } else {
        addWaiter(producer.waiters, {Waiter::Kind::Prerequisite, m, k});
      }
      ++frame.b;
      frame.phase = 1;
      break;
    }
    case 3: return finishStart(thread, frame);
    default: break;
  }
  for (; frame.b < order.size(); ++frame.b) {
    auto const k = order[frame.b];
    auto const& prerequisite = module.prerequisites[k];
    if (prerequisite.fromSource) {
      ensureSourceProduct(lane, m, k);
      continue;
    }
    auto& producer = lanes_[lane].modules[prerequisite.index];
    if (producer.done) {
      ready(lane, m, k);
    } else if (!producer.claimed) {
      producer.claimed = true;
      frame.phase = 2;
      return stack.push_back(frameOf(Frame::Kind::StartModule, lane, prerequisite.index));
    } else {
      addWaiter(producer.waiters, {Waiter::Kind::Prerequisite, m, k});
    }
  }
  // Source products ready at once (see solo_), unless its lane's copy of a
  // file reads them in its batch.
  bool const batched = menu_.sourceReads == SourceReads::Batched;
  if (!batched) {
    for (auto k : solo_[m]) ready(lane, m, k);
  }
  frame.phase = 3;
  if (state.announceDue > 0) return announce(thread, lane, m, state.announceDue);
  finishStart(thread, frame);
}

// ensureSourceProduct(), where a lane's copy of a file reads in batches: the
// first module to need a product several consume reads it in its batch; the
// others wait for it.
void Simulation::ensureSourceProduct(unsigned lane, unsigned m, unsigned k) {
  auto const product = menu_.modules[m].prerequisites[k].index;
  auto& state = lanes_[lane].sourceProducts[product];
  if (state.done) return ready(lane, m, k);
  if (state.claimed) return addWaiter(state.waiters, {Waiter::Kind::Prerequisite, m, k});
  state.claimed = true;
  lanes_[lane].extras[m].toRead.push_back(k);
}

void Simulation::ready(unsigned lane, unsigned m, unsigned k) {
  auto& state = lanes_[lane].modules[m];
  ++state.readyNow;
  if (menu_.modules[m].productReady) state.announceDue += menu_.modules[m].prerequisites[k].announced;
}

// An output's productReady() calls for the products that became ready.
void Simulation::announce(unsigned thread, unsigned lane, unsigned m, unsigned calls) {
  auto const& module = menu_.modules[m];
  double seconds = 0;
  for (unsigned c = 0; c < calls; ++c) seconds += module.announce.draw(random_);
  lanes_[lane].modules[m].announceDue = 0;
  call(thread, m, Activity::Counts::ProductReady, seconds, false);
}

// The end of start(): its batch read pushed, its own count given back.
void Simulation::finishStart(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  auto const m = frame.a;
  auto& state = lanes_[lane].modules[m];
  // Only a lane's copy of a file reads in batches (and only then is toRead, cold in memory, looked at).
  bool const batch = menu_.sourceReads == SourceReads::Batched &&
                     (!solo_[m].empty() || !lanes_[lane].extras[m].toRead.empty());
  if (batch) {
    push(thread, lanes_[lane].readQueue, {QueueItem::Kind::ReadBatch, lane, m});
  } else {
    ++state.readyNow;
  }
  ++state.readyNow;
  state.pending -= state.readyNow;
  if (state.pending == 0) {
    threads_[thread].stack.back() = frameOf(Frame::Kind::Launch, lane, m);
  } else {
    threads_[thread].stack.pop_back();
  }
}

void Simulation::prerequisiteReady(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  auto const m = frame.a;
  auto const& module = menu_.modules[m];
  if (frame.phase == 0 && module.productReady && module.prerequisites[frame.b].announced > 0) {
    frame.phase = 1;
    return announce(thread, lane, m, module.prerequisites[frame.b].announced);
  }
  if (--lanes_[lane].modules[m].pending == 0) {
    frame = frameOf(Frame::Kind::Launch, lane, m);
  } else {
    threads_[thread].stack.pop_back();
  }
}

// launch(): through the module's queue (`one`, `limited`), else called here.
void Simulation::launch(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  auto const m = frame.a;
  auto const& module = menu_.modules[m];
  if (module.limit > 0) {
    lanes_[lane].extras[m].queued = now_;
    threads_[thread].stack.pop_back();
    return push(thread, processes_[lanes_[lane].process].gates[m], {QueueItem::Kind::GateCall, lane, m});
  }
  frame = frameOf(module.externalWork ? Frame::Kind::Acquire : Frame::Kind::RunModule, lane, m);
}

void Simulation::runModule(unsigned thread, Frame& frame) {
  auto const m = frame.a;
  auto const& module = menu_.modules[m];
  if (frame.phase == 0) {
    frame.phase = 1;
    return call(thread, m, Activity::Counts::Event, eventSeconds(frame.lane, m), module.sleeps);
  }
  lanes_[frame.lane].modules[m].accepted = module.acceptance >= 1 || random_.uniform() < module.acceptance;
  if (frame.kind == Frame::Kind::CallModule) return threads_[thread].stack.pop_back();
  frame = frameOf(Frame::Kind::Finish, frame.lane, m);
}

// acquire(): device work enqueued (or other external work started); the
// module goes on when it completes, as a task enqueued to the arena, unless a
// blocking strategy spins for it here.
void Simulation::acquire(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  auto const m = frame.a;
  auto const& module = menu_.modules[m];
  auto& extras = lanes_[lane].extras[m];
  bool const onDevice = module.device && !devices_.empty();
  auto* device = onDevice ? &devices_[processes_[lanes_[lane].process].device] : nullptr;
  switch (frame.phase) {
    case 0: {
      extras.acquired = now_;
      frame.phase = 1;
      if (!onDevice) return call(thread, m, Activity::Counts::Acquire, acquireSeconds(lane, m), module.sleeps);
      std::vector<DeviceCall*> inputs;
      for (unsigned k = 0; k < module.prerequisites.size(); ++k) {
        if (deviceInput_[m][k]) inputs.push_back(&lanes_[lane].extras[module.prerequisites[k].index].device);
      }
      // A blocking strategy's acquire() is measured with its wait: its host part is the enqueues'.
      auto const spins = device->completionOf(*module.device) == DeviceModel::Completion::Spin;
      auto const host = spins ? device->enqueueSeconds(*module.device, inputs.empty() ? 0 : inputs.size() - 1)
                              : acquireSeconds(lane, m);
      device->enqueue(lane, m, *module.device, inputs, extras.device, lanes_[lane].device);
      return call(thread, m, Activity::Counts::Acquire, host, false);
    }
    case 1:
      if (!onDevice) {
        auto const delay = std::max(0.0, module.external.draw(random_) - module.acquire.mean());
        schedule(now_ + delay, Happening::Kind::ExternalDone, lane, m);
        return threads_[thread].stack.pop_back();
      }
      switch (device->completionOf(*module.device)) {
        case DeviceModel::Completion::Spin:
          if (!device->reached(extras.device.marker)) {
            frame.phase = 2;
            device->spinOn(extras.device.marker, thread);
            return spin(thread, m);
          }
          resume(lane, m);
          break;
        case DeviceModel::Completion::AtOnce: resume(lane, m); break;
        case DeviceModel::Completion::Device: break;
      }
      return threads_[thread].stack.pop_back();
    default:  // the spin has ended
      resume(lane, m);
      threads_[thread].stack.pop_back();
  }
}

// The completion of external work: the module's produce() as a task of the arena.
void Simulation::resume(unsigned lane, unsigned m) {
  externalWaits_[m] += now_ - lanes_[lane].extras[m].acquired;
  enqueue(lanes_[lane].process, frameOf(Frame::Kind::ProduceAfterAcquire, lane, m));
}

void Simulation::produceAfterAcquire(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  auto const m = frame.a;
  if (menu_.modules[m].limit > 0) {
    lanes_[lane].extras[m].queued = now_;
    threads_[thread].stack.pop_back();
    return push(thread, processes_[lanes_[lane].process].gates[m], {QueueItem::Kind::GateProduce, lane, m});
  }
  frame = frameOf(Frame::Kind::RunModule, lane, m);
}

// markDone(): its waiters, last added first.
void Simulation::finish(unsigned thread, Frame& frame) {
  auto& state = lanes_[frame.lane].modules[frame.a];
  state.done = true;
  if (state.waiters.empty()) return threads_[thread].stack.pop_back();
  frame = {Frame::Kind::Notify, 0, 0, frame.lane, frame.a, static_cast<unsigned>(state.waiters.size())};
}

// Frame::item: 0 for a module's waiters, 1 for a source product's.
void Simulation::notify(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  auto const& waiters = frame.item == 0 ? lanes_[lane].modules[frame.a].waiters : lanes_[lane].sourceProducts[frame.a].waiters;
  if (frame.b == 0) return threads_[thread].stack.pop_back();
  auto const waiter = waiters[--frame.b];
  threads_[thread].stack.push_back(waiterFrame(lane, waiter));
}

Frame Simulation::waiterFrame(unsigned lane, Waiter const& waiter) const {
  switch (waiter.kind) {
    case Waiter::Kind::Prerequisite: return frameOf(Frame::Kind::PrerequisiteReady, lane, waiter.a, waiter.b);
    case Waiter::Kind::Path: return frameOf(Frame::Kind::AdvancePath, lane, waiter.a);
    case Waiter::Kind::Output: break;
  }
  return frameOf(Frame::Kind::OutputDone, lane);
}

// batchRead(): the batch's products done for those who wait on them, then announced, then the module goes on.
void Simulation::batchRead(unsigned thread, Frame& frame) {
  auto const lane = frame.lane;
  auto const m = frame.a;
  auto& state = lanes_[lane].modules[m];
  auto const& toRead = lanes_[lane].extras[m].toRead;
  auto const& module = menu_.modules[m];
  if (frame.phase == 0) {
    while (frame.b < toRead.size()) {
      auto const product = module.prerequisites[toRead[frame.b++]].index;
      auto& read = lanes_[lane].sourceProducts[product];
      read.done = true;
      if (!read.waiters.empty()) {
        return threads_[thread].stack.push_back(
            {Frame::Kind::Notify, 0, 1, lane, product, static_cast<unsigned>(read.waiters.size())});
      }
    }
    frame.phase = 1;
    if (module.productReady) {
      for (auto k : solo_[m]) ready(lane, m, k);
      for (auto k : toRead) ready(lane, m, k);
      if (state.announceDue > 0) return announce(thread, lane, m, state.announceDue);
    }
  }
  auto const count = static_cast<unsigned>(toRead.size() + solo_[m].size()) + 1;
  state.pending -= count;
  if (state.pending == 0) {
    frame = frameOf(Frame::Kind::Launch, lane, m);
  } else {
    threads_[thread].stack.pop_back();
  }
}

// ---------------------------------------------------------------- queues

void Simulation::push(unsigned thread, unsigned index, QueueItem item) {
  queues_[index].items.push_back(item);
  auto const& continuing = threads_[thread].continuing;
  // What a queue's continuation pushes to the same queue waits for it to return (LimitedTaskQueue::continueHere).
  if (continuing.empty() || continuing.back() != index) startWhileAllowed(thread, index);
}

void Simulation::startWhileAllowed(unsigned thread, unsigned index) {
  auto& queue = queues_[index];
  while (queue.running < queue.limit && !queue.items.empty()) {
    auto const item = queue.items.front();
    queue.items.pop_front();
    setRunning(index, queue.running + 1);
    spawn(thread, {Frame::Kind::QueueRun, 0, static_cast<std::uint8_t>(item.kind), item.lane, index, item.module});
  }
}

Frame Simulation::workOf(QueueItem const& item) const {
  switch (item.kind) {
    case QueueItem::Kind::GateCall:
      return frameOf(menu_.modules[item.module].externalWork ? Frame::Kind::Acquire : Frame::Kind::CallModule, item.lane,
                     item.module);
    case QueueItem::Kind::GateProduce: return frameOf(Frame::Kind::CallModule, item.lane, item.module);
    case QueueItem::Kind::SourceFetch: return frameOf(Frame::Kind::SourceFetch, item.lane);
    case QueueItem::Kind::ReadBatch: break;
  }
  return frameOf(Frame::Kind::ReadBatch, item.lane, item.module);
}

Frame Simulation::continuationOf(QueueItem const& item) const {
  if (item.kind == QueueItem::Kind::SourceFetch) return frameOf(Frame::Kind::ContinueShared, item.lane);
  if (item.kind == QueueItem::Kind::ReadBatch) return frameOf(Frame::Kind::BatchRead, item.lane, item.module);
  return frameOf(Frame::Kind::Finish, item.lane, item.module);  // a module's call: what follows it, the slot let go
}

// LimitedTaskQueue::runFrom(): while items wait, the task keeps its slot and
// runs them; each one's continuation becomes a task of its own. When none
// waits, the slot goes back and the continuation runs here.
void Simulation::queueRun(unsigned thread, Frame& frame) {
  auto& self = threads_[thread];
  auto const index = frame.a;
  QueueItem const item{static_cast<QueueItem::Kind>(frame.item), frame.lane, frame.b};
  auto const take = [&](QueueItem const& next) {
    frame.item = static_cast<std::uint8_t>(next.kind);
    frame.lane = next.lane;
    frame.b = next.module;
    frame.phase = 0;
  };
  switch (frame.phase) {
    case 0: {
      if (item.kind == QueueItem::Kind::GateCall || item.kind == QueueItem::Kind::GateProduce) {
        prediction_.modules[item.module].stallSeconds += now_ - lanes_[item.lane].extras[item.module].queued;
      }
      frame.phase = 1;
      return self.stack.push_back(workOf(item));
    }
    case 1: {
      auto& queue = queues_[index];
      if (!queue.items.empty()) {
        auto const next = queue.items.front();
        queue.items.pop_front();
        if (hasContinuation(item)) spawn(thread, continuationOf(item));
        return take(next);
      }
      setRunning(index, queue.running - 1);
      startWhileAllowed(thread, index);
      if (!hasContinuation(item)) return self.stack.pop_back();
      self.continuing.push_back(index);
      frame.phase = 2;
      return self.stack.push_back(continuationOf(item));
    }
    default: {
      self.continuing.pop_back();
      auto& queue = queues_[index];
      if (queue.running < queue.limit && !queue.items.empty()) {
        auto const next = queue.items.front();
        queue.items.pop_front();
        setRunning(index, queue.running + 1);
        startWhileAllowed(thread, index);
        return take(next);
      }
      self.stack.pop_back();
    }
  }
}

}  // namespace lanes::model::detail
