#include "Simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "lanes/core/Exception.h"
#include "lanes/model/Simulate.h"

namespace lanes::model {

namespace detail {

Simulation::Simulation(Menu const& menu, Layout const& layout)
    : menu_(menu), layout_(layout), random_(layout.seed), cores_(layout.totalCores(), layout.totalThreads()) {
  auto const nModules = menu.modules.size();
  coordinated_.resize(nModules);
  solo_.resize(nModules);
  deviceInput_.resize(nModules);
  for (unsigned m = 0; m < nModules; ++m) {
    auto const& prerequisites = menu.modules[m].prerequisites;
    for (unsigned k = 0; k < prerequisites.size(); ++k) {
      auto const& prerequisite = prerequisites[k];
      // A source product is ready at once for every consumer unless a lane's copy of a file reads it in a
      // batch that another consumer may have claimed.
      bool const solo = prerequisite.fromSource &&
                        (menu.sourceReads != SourceReads::Batched || menu.sourceConsumers[prerequisite.index] == 1);
      (solo ? solo_ : coordinated_)[m].push_back(k);
      auto const& producer = prerequisite.fromSource ? menu.modules[m] : menu.modules[prerequisite.index];
      deviceInput_[m].push_back(!prerequisite.fromSource && producer.device && !producer.device->toHost);
    }
  }
  prediction_.layout = layout;
  prediction_.modules.resize(nModules);
  prediction_.paths.resize(menu.paths.size());
  for (std::size_t p = 0; p < menu.paths.size(); ++p) prediction_.paths[p].rejectedAt.assign(menu.paths[p].modules.size() + 1, 0);
  gateResource_.assign(nModules, kNone);
  for (unsigned m = 0; m < nModules; ++m) {
    auto const& module = menu.modules[m];
    if (module.limit > 0) gateResource_[m] = addResource(module.label, module.concurrency, module.limit * layout.processes);
  }
  if (!menu.replicatedSource) sourceResource_ = addResource("(source)", "source", layout.processes);

  auto const devices = layout.devices ? layout.devices : layout.processes;
  if (menu.device) {
    for (unsigned d = 0; d < devices; ++d) devices_.emplace_back(*menu.device, *this, d);
  }
  auto const lanesPerProcess = layout.lanesPerProcess();
  unclaimed_ = layout.events;
  for (unsigned p = 0; p < layout.processes; ++p) {
    Process process;
    process.device = devices ? p % devices : 0;
    for (unsigned t = 0; t < layout.threads; ++t) {
      process.threads.push_back(static_cast<unsigned>(threads_.size()));
      threads_.emplace_back();
      threads_.back().process = p;
    }
    // The first thread is woken first: the one that starts the lanes.
    process.idle.assign(process.threads.rbegin(), process.threads.rend());
    for (auto t : process.threads) threads_[t].idle = true;
    process.gates.assign(nModules, kNone);
    for (unsigned m = 0; m < nModules; ++m) {
      if (menu.modules[m].limit == 0) continue;
      process.gates[m] = static_cast<unsigned>(queues_.size());
      queues_.push_back({menu.modules[m].limit, 0, {}, gateResource_[m], 0});
    }
    if (!menu.replicatedSource) {
      process.sourceQueue = static_cast<unsigned>(queues_.size());
      queues_.push_back({1, 0, {}, sourceResource_, 0});
    }
    if (layout.roundRobin) process.claimable = layout.events / layout.processes + (p < layout.events % layout.processes);
    processes_.push_back(std::move(process));
    for (unsigned l = 0; l < lanesPerProcess; ++l) {
      LaneState lane;
      lane.process = p;
      lane.modules.resize(nModules);
      lane.extras.resize(nModules);
      if (menu.sourceReads == SourceReads::Batched) lane.sourceProducts.resize(menu.sourceConsumers.size());
      lane.paths.resize(menu.paths.size());
      if (menu.replicatedSource && menu.sourceReads == SourceReads::Batched) {
        lane.readQueue = static_cast<unsigned>(queues_.size());
        queues_.push_back({1, 0, {}, kNone, 0});
      }
      lanes_.push_back(std::move(lane));
    }
  }
  prediction_.laneIdleSeconds.assign(lanes_.size(), 0.0);
  acquireTotals_.assign(nModules, 0.0);
  externalWaits_.assign(nModules, 0.0);
}

unsigned Simulation::addResource(std::string name, std::string kind, unsigned capacity) {
  prediction_.resources.push_back({std::move(name), std::move(kind), capacity, 0.0});
  return static_cast<unsigned>(prediction_.resources.size() - 1);
}

Prediction Simulation::run() {
  auto const lanesPerProcess = layout_.lanesPerProcess();
  for (unsigned p = 0; p < processes_.size(); ++p) {
    // The job's thread spawns every lane's start into its own deque (Schedule::process).
    auto const first = processes_[p].threads.front();
    for (unsigned l = 0; l < lanesPerProcess; ++l) {
      auto const lane = p * lanesPerProcess + l;
      spawn(first, {menu_.replicatedSource ? Frame::Kind::RunLane : Frame::Kind::FetchShared, 0, 0, lane});
    }
  }
  while (!timeline_.empty()) {
    auto const happening = timeline_.top();
    timeline_.pop();
    now_ = happening.time;
    dispatch(happening);
  }
  return finishPrediction();
}

void Simulation::schedule(double time, Happening::Kind kind, unsigned a, unsigned b) {
  timeline_.push({time, order_++, kind, a, b});
}

void Simulation::dispatch(Happening const& happening) {
  switch (happening.kind) {
    case Happening::Kind::ThreadResumes: return activityDone(happening.a);
    case Happening::Kind::ThreadWakes: return runThread(happening.a);
    case Happening::Kind::ExternalDone: return resume(happening.a, happening.b);
    case Happening::Kind::DeviceDone: return devices_[happening.a].workDone(happening.b);
    case Happening::Kind::CoresDone:
      if (happening.b != coresVersion_) return;  // the rate changed since: a later one is due
      for (auto thread : cores_.takeEnded(now_)) cpuPartDone(thread);
      return rescheduleCores();
  }
}

// ---------------------------------------------------------------- threads and tasks

void Simulation::spawn(unsigned thread, Frame frame) {
  auto& owner = threads_[thread];
  owner.tasks.push_back(frame);
  auto& process = processes_[owner.process];
  if (owner.tasks.size() == 1) {
    owner.withTasksAt = static_cast<unsigned>(process.withTasks.size());
    process.withTasks.push_back(thread);
  }
  wakeOne(owner.process);
}

void Simulation::enqueue(unsigned process, Frame frame) {
  processes_[process].enqueued.push_back(frame);
  wakeOne(process);
}

void Simulation::wakeOne(unsigned process) {
  auto& idle = processes_[process].idle;
  if (idle.empty()) return;
  auto const thread = idle.back();
  idle.pop_back();
  threads_[thread].idle = false;
  threads_[thread].busySince = now_;
  schedule(now_ + layout_.wakeLatency, Happening::Kind::ThreadWakes, thread);
}

void Simulation::dropFromThieves(unsigned thread) {
  auto& owner = threads_[thread];
  auto& withTasks = processes_[owner.process].withTasks;
  auto const last = withTasks.back();
  withTasks[owner.withTasksAt] = last;
  threads_[last].withTasksAt = owner.withTasksAt;
  withTasks.pop_back();
}

// Its own newest task, else the arena's enqueued ones, else another thread's oldest.
bool Simulation::findTask(unsigned thread) {
  auto& self = threads_[thread];
  auto& process = processes_[self.process];
  if (!self.tasks.empty()) {
    self.stack.push_back(self.tasks.back());
    self.tasks.pop_back();
    if (self.tasks.empty()) dropFromThieves(thread);
    return true;
  }
  if (!process.enqueued.empty()) {
    self.stack.push_back(process.enqueued.front());
    process.enqueued.pop_front();
    return true;
  }
  if (process.withTasks.empty()) return false;
  auto const victim = process.withTasks[random_.below(process.withTasks.size())];
  auto& tasks = threads_[victim].tasks;
  self.stack.push_back(tasks.front());
  tasks.pop_front();
  if (tasks.empty()) dropFromThieves(victim);
  return true;
}

void Simulation::runThread(unsigned thread) {
  auto& self = threads_[thread];
  while (self.activity.kind == Activity::Kind::None) {
    if (self.stack.empty() && !findTask(thread)) return goIdle(thread);
    step(thread);
  }
}

void Simulation::goIdle(unsigned thread) {
  auto& self = threads_[thread];
  self.idle = true;
  threadSeconds_ += now_ - self.busySince;
  processes_[self.process].idle.push_back(thread);
}

// ---------------------------------------------------------------- timed activities

void Simulation::call(unsigned thread, unsigned module, Activity::Counts counts, double seconds, bool sleeps) {
  auto& activity = threads_[thread].activity;
  auto const cpu = menu_.overheadPerCall + (sleeps ? 0.0 : seconds);
  activity = {Activity::Kind::Call, module, counts, now_, sleeps ? seconds : 0.0, cpu, false};
  prediction_.cpuSeconds += cpu;
  prediction_.overheadSeconds += menu_.overheadPerCall;
  if (cores_.shared() && cpu > 0) {
    cores_.start(thread, cpu, now_);
    rescheduleCores();
  } else {
    activity.sleeping = true;
    schedule(now_ + cpu + activity.sleepAfter, Happening::Kind::ThreadResumes, thread);
  }
}

void Simulation::cpuPartDone(unsigned thread) {
  auto& activity = threads_[thread].activity;
  activity.sleeping = true;
  schedule(now_ + activity.sleepAfter, Happening::Kind::ThreadResumes, thread);
}

void Simulation::rescheduleCores() {
  ++coresVersion_;
  auto const next = cores_.nextEnd();
  if (next < std::numeric_limits<double>::infinity()) schedule(next, Happening::Kind::CoresDone, 0, coresVersion_);
}

void Simulation::activityDone(unsigned thread) {
  auto& activity = threads_[thread].activity;
  // The call's own time: the overhead before it is the framework's.
  auto const seconds = std::max(0.0, now_ - activity.began - menu_.overheadPerCall);
  if (activity.module == kNone) {
    prediction_.sourceSeconds += seconds;
  } else {
    auto& module = prediction_.modules[activity.module];
    module.totalSeconds += seconds;
    if (activity.counts != Activity::Counts::ProductReady) ++module.calls;
    if (activity.counts == Activity::Counts::Event) ++module.events;
    if (activity.counts == Activity::Counts::Acquire) acquireTotals_[activity.module] += seconds;
    if (menu_.modules[activity.module].output) prediction_.outputsSeconds += seconds;
  }
  activity.kind = Activity::Kind::None;
  runThread(thread);
}

void Simulation::spin(unsigned thread, unsigned module) {
  threads_[thread].activity = {Activity::Kind::Spin, module, Activity::Counts::Acquire, now_, 0, 0, false};
  if (cores_.shared()) {
    cores_.startSpinning(now_);
    rescheduleCores();
  }
}

void Simulation::spinDone(unsigned thread) {
  auto& activity = threads_[thread].activity;
  if (cores_.shared()) {
    cores_.stopSpinning(now_);
    rescheduleCores();
  }
  auto const seconds = now_ - activity.began;
  prediction_.cpuSeconds += seconds;
  prediction_.modules[activity.module].totalSeconds += seconds;  // the acquire() call spins
  acquireTotals_[activity.module] += seconds;
  activity.kind = Activity::Kind::None;
  schedule(now_, Happening::Kind::ThreadWakes, thread);
}

// ---------------------------------------------------------------- events

// Whether the lane's process has an event for it: from its share (round
// robin), its chunk of the shared queue, or (one process) the job's. Run and
// lumi boundaries (--concurrent-lumis) go here, as one more rule: an event
// of a lumi that holds no slot waits, its lane idle (a boundary wait), until
// the end transition of a lumi frees one (endEvent(): the lumi's last event).
bool Simulation::admitEvent(unsigned lane) {
  auto& process = processes_[lanes_[lane].process];
  if (process.claimable == 0 && !layout_.roundRobin) {
    auto const take = processes_.size() == 1 ? unclaimed_ : std::min(layout_.chunk, unclaimed_);
    unclaimed_ -= take;
    process.claimable = take;
  }
  if (process.claimable == 0) return false;
  --process.claimable;
  return true;
}

void Simulation::beginEvent(unsigned lane) {
  auto& state = lanes_[lane];
  for (auto& module : state.modules) {
    module.claimed = module.done = false;
    module.accepted = true;
    module.waiters.clear();
  }
  for (auto& product : state.sourceProducts) {
    product.claimed = product.done = false;
    product.waiters.clear();
  }
  for (auto& path : state.paths) path = {};
  state.eventBegan = now_;
  if (!menu_.recorded.empty()) state.recorded = static_cast<unsigned>(begun_++ % menu_.recorded.size());
}

double Simulation::eventSeconds(unsigned lane, unsigned module) {
  if (!menu_.recorded.empty()) {
    auto const seconds = menu_.recorded[lanes_[lane].recorded].event[module];
    if (!std::isnan(seconds)) return seconds;
  }
  return menu_.modules[module].event.draw(random_);
}

double Simulation::acquireSeconds(unsigned lane, unsigned module) {
  if (!menu_.recorded.empty()) {
    auto const seconds = menu_.recorded[lanes_[lane].recorded].acquire[module];
    if (!std::isnan(seconds)) return seconds;
  }
  return menu_.modules[module].acquire.draw(random_);
}

void Simulation::endEvent(unsigned lane) {
  auto& state = lanes_[lane];
  auto const took = now_ - state.eventBegan;
  prediction_.eventTimes.add(took);
  prediction_.longestEvent = std::max(prediction_.longestEvent, took);
  ++prediction_.events;
  processes_[state.process].lastEventDone = now_;
  state.freeSince = now_;
  if (!devices_.empty()) devices_[processes_[state.process].device].release(state.device);
}

void Simulation::idleUntilNow(unsigned lane) {
  auto& state = lanes_[lane];
  prediction_.laneIdleSeconds[lane] += now_ - state.freeSince;
  state.freeSince = now_;
}

// ---------------------------------------------------------------- the figures

void Simulation::setRunning(unsigned index, unsigned running) {
  auto& queue = queues_[index];
  if (queue.resource != kNone) held(queue.resource, queue.running * (now_ - queue.since));
  queue.since = now_;
  queue.running = running;
}

Prediction Simulation::finishPrediction() {
  for (unsigned q = 0; q < queues_.size(); ++q) setRunning(q, queues_[q].running);
  double wall = 0;
  for (auto const& process : processes_) wall = std::max(wall, process.lastEventDone);
  prediction_.wallSeconds = wall;
  for (std::size_t m = 0; m < prediction_.modules.size(); ++m) {
    auto& module = prediction_.modules[m];
    module.externalSeconds = std::max(0.0, externalWaits_[m] - acquireTotals_[m]);
    if (gateResource_[m] == kNone) continue;
    auto& gate = prediction_.resources[gateResource_[m]];
    gate.queues = true;
    gate.busySeconds = module.totalSeconds;
    gate.waitSeconds = module.stallSeconds;
  }
  if (sourceResource_ != kNone) {
    auto& source = prediction_.resources[sourceResource_];
    source.busySeconds = source.heldSeconds;
  }
  if (!devices_.empty()) {
    auto const count = static_cast<unsigned>(devices_.size());
    auto const& settings = devices_.front().settings();
    double kernels = 0, toDevice = 0, toHost = 0, pool = 0;
    for (auto& device : devices_) {
      device.settle();
      kernels += device.kernelSeconds;
      toDevice += device.toDeviceSeconds;
      toHost += device.toHostSeconds;
      pool += device.poolSeconds;
    }
    busy(addResource("device kernel slots", "kernel slots", settings.slots * count), kernels);
    busy(addResource("device copies to the device", "copy engine", count), toDevice);
    busy(addResource("device copies to the host", "copy engine", count), toHost);
    if (settings.strategy == Strategy::WaitingPool) {
      busy(addResource("waiting pool", "waiting pool", settings.waitingThreads * count), pool);
    }
  }
  if (cores_.shared()) busy(addResource("cores", "cores", layout_.totalCores()), cores_.busySeconds(now_));
  for (auto const& thread : threads_) {
    if (!thread.idle) threadSeconds_ += now_ - thread.busySince;
  }
  busy(addResource("threads", "threads", layout_.totalThreads()), threadSeconds_);
  return std::move(prediction_);
}

}  // namespace detail

namespace {
constexpr std::uint64_t kMostThreads = 65536;
constexpr std::uint64_t kMostLaneStates = 20'000'000;
}  // namespace

Prediction simulate(Menu const& menu, Layout const& layout) {
  if (layout.threads == 0) throw Exception("the number of threads must be at least 1");
  if (layout.processes == 0) throw Exception("the number of processes must be at least 1");
  if (layout.events == 0) throw Exception("the number of events must be at least 1");
  if (layout.chunk == 0) throw Exception("the chunk must be at least 1 event");
  auto const lanes = std::uint64_t{layout.lanesPerProcess()} * layout.processes;
  if (layout.totalThreads() > kMostThreads) {
    throw Exception("at most " + std::to_string(kMostThreads) + " threads over all processes can be simulated, not " +
                    std::to_string(std::uint64_t{layout.threads} * layout.processes));
  }
  // Each lane keeps a state per module: a typo's million lanes would not fit in memory.
  if (lanes * std::max<std::size_t>(1, menu.modules.size()) > kMostLaneStates) {
    throw Exception(std::to_string(lanes) + " lanes of " + std::to_string(menu.modules.size()) +
                    " modules are too many to simulate (lanes x modules at most " + std::to_string(kMostLaneStates) + ")");
  }
  auto const began = std::chrono::steady_clock::now();
  auto prediction = detail::Simulation(menu, layout).run();
  prediction.simulationSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return prediction;
}

}  // namespace lanes::model
