#include "Device.h"

#include <algorithm>

#include "Simulation.h"

namespace lanes::model::detail {

DeviceModel::DeviceModel(DeviceSettings const& settings, Simulation& simulation, unsigned index)
    : settings_(settings), simulation_(simulation), index_(index), poolFree_(settings.waitingThreads) {
  slots_.capacity = settings.slots;
  slots_.busy = &kernelSeconds;
  toDevice_.busy = &toDeviceSeconds;
  toHost_.busy = &toHostSeconds;
}

DeviceModel::Completion DeviceModel::completionOf(DeviceWork const& work) const {
  switch (settings_.strategy) {
    case Strategy::SyncSingle:
    case Strategy::SyncMulti: return Completion::Spin;
    case Strategy::ExternalWorker: return Completion::Device;
    case Strategy::ExternalWorkerD2H:
    case Strategy::WaitingPool: return work.toHost ? Completion::Device : Completion::AtOnce;
  }
  return Completion::Device;
}

double DeviceModel::enqueueSeconds(DeviceWork const& work, std::size_t waits) const {
  // Each wait, copy, launch and record is an enqueue; so is a host callback.
  auto enqueues = waits + work.copiesToDevice + 2 + (work.toHost ? 1 : 0);
  bool const callback = settings_.strategy == Strategy::ExternalWorker ||
                        (settings_.strategy == Strategy::ExternalWorkerD2H && work.toHost);
  if (callback) ++enqueues;
  return settings_.launchSeconds * static_cast<double>(enqueues);
}

void DeviceModel::enqueue(unsigned lane, unsigned module, DeviceWork const& work,
                          std::vector<DeviceCall*> const& inputs, DeviceCall& call, DeviceHold& hold) {
  unsigned chosen = ~0u;
  for (auto* input : inputs) {
    if (!input->queueClaimed) {
      input->queueClaimed = true;
      chosen = input->queue;
      break;
    }
  }
  if (chosen == ~0u) {
    chosen = take();
    hold.queues.push_back(chosen);
  }
  auto& queue = queues_[chosen];
  for (auto* input : inputs) {
    if (input->queue != chosen) queue.work.push_back({Work::Kind::WaitFor, input->marker});
  }
  for (unsigned c = 0; c < work.copiesToDevice; ++c) {
    auto const bytes = work.toDeviceBytes / work.copiesToDevice;
    queue.work.push_back({Work::Kind::ToDevice, 0, bytes / settings_.hostToDeviceBytesPerS});
  }
  queue.work.push_back({Work::Kind::Kernel, 0, work.kernelSeconds});
  if (work.toHost) queue.work.push_back({Work::Kind::ToHost, 0, work.toHostBytes / settings_.deviceToHostBytesPerS});
  call = {chosen, newMarker(), false};
  hold.markers.push_back(call.marker);
  queue.work.push_back({Work::Kind::Record, call.marker});
  if (completionOf(work) == Completion::Device) {
    if (settings_.strategy == Strategy::WaitingPool) {
      poolTasks_.push_back({call.marker, lane, module});
    } else {
      queue.work.push_back({Work::Kind::Callback, 0, 0, lane, module});
    }
  }
  advance(chosen);
  runPool();
}

void DeviceModel::spinOn(unsigned marker, unsigned thread) {
  markers_[marker].waiters.push_back({MarkerWaiter::Kind::Spin, thread});
}

void DeviceModel::release(DeviceHold& hold) {
  for (auto queue : hold.queues) --queues_[queue].leases;
  for (auto marker : hold.markers) {
    if (markers_[marker].reached) {
      freeMarkers_.push_back(marker);
    } else {
      markers_[marker].orphaned = true;
    }
  }
  hold.queues.clear();
  hold.markers.clear();
}

// A free queue, else a new one, else (at the limit) the least leased.
unsigned DeviceModel::take() {
  auto const least = std::min_element(queues_.begin(), queues_.end(),
                                      [](Queue const& a, Queue const& b) { return a.leases < b.leases; });
  unsigned chosen;
  if (least != queues_.end() && least->leases == 0) {
    chosen = static_cast<unsigned>(least - queues_.begin());
  } else if (settings_.maxQueues == 0 || queues_.size() < settings_.maxQueues) {
    queues_.emplace_back();
    running_.push_back(nullptr);
    chosen = static_cast<unsigned>(queues_.size() - 1);
  } else {
    chosen = static_cast<unsigned>(least - queues_.begin());
  }
  ++queues_[chosen].leases;
  return chosen;
}

unsigned DeviceModel::newMarker() {
  if (!freeMarkers_.empty()) {
    auto const marker = freeMarkers_.back();
    freeMarkers_.pop_back();
    markers_[marker] = {};
    return marker;
  }
  markers_.emplace_back();
  return static_cast<unsigned>(markers_.size() - 1);
}

DeviceModel::Resource& DeviceModel::resourceOf(Work::Kind kind) {
  return kind == Work::Kind::Kernel ? slots_ : kind == Work::Kind::ToDevice ? toDevice_ : toHost_;
}

void DeviceModel::account(Resource& resource) {
  *resource.busy += resource.used * (simulation_.now_ - resource.since);
  resource.since = simulation_.now_;
}

bool DeviceModel::startTimed(unsigned queue, Resource& resource, double seconds) {
  if (resource.used >= resource.capacity) {
    resource.waiting.push_back(queue);
    return false;
  }
  account(resource);
  ++resource.used;
  running_[queue] = &resource;
  auto const took = seconds > 0 ? seconds + settings_.sleepOvershoot : 0.0;  // a 0-byte copy never sleeps
  simulation_.schedule(simulation_.now_ + took, Happening::Kind::DeviceDone, index_, queue);
  return true;
}

void DeviceModel::advance(unsigned index) {
  auto& queue = queues_[index];
  while (!queue.busy && !queue.work.empty()) {
    auto const work = queue.work.front();
    switch (work.kind) {
      case Work::Kind::WaitFor:
        if (!markers_[work.marker].reached) {
          markers_[work.marker].waiters.push_back({MarkerWaiter::Kind::Queue, index});
          queue.busy = true;
          return;
        }
        queue.work.pop_front();
        break;
      case Work::Kind::ToDevice:
      case Work::Kind::Kernel:
      case Work::Kind::ToHost:
        queue.busy = true;
        startTimed(index, resourceOf(work.kind), work.seconds);
        return;
      case Work::Kind::Record:
        queue.work.pop_front();
        reach(work.marker);
        break;
      case Work::Kind::Callback:
        queue.work.pop_front();
        simulation_.resume(work.lane, work.module);
        break;
    }
  }
}

void DeviceModel::workDone(unsigned index) {
  auto& queue = queues_[index];
  auto& resource = *running_[index];
  running_[index] = nullptr;
  account(resource);
  --resource.used;
  queue.work.pop_front();
  queue.busy = false;
  // The resource goes to the queue that waited longest for it.
  while (!resource.waiting.empty() && resource.used < resource.capacity) {
    auto const next = resource.waiting.front();
    resource.waiting.pop_front();
    startTimed(next, resource, queues_[next].work.front().seconds);
  }
  advance(index);
}

void DeviceModel::reach(unsigned index) {
  auto& marker = markers_[index];
  marker.reached = true;
  auto const waiters = std::move(marker.waiters);
  marker.waiters.clear();
  bool const orphaned = marker.orphaned;
  for (auto const& waiter : waiters) {
    switch (waiter.kind) {
      case MarkerWaiter::Kind::Queue:
        queues_[waiter.a].busy = false;
        queues_[waiter.a].work.pop_front();
        advance(waiter.a);
        break;
      case MarkerWaiter::Kind::Spin: simulation_.spinDone(waiter.a); break;
      case MarkerWaiter::Kind::Pool:
        accountPool();
        ++poolFree_;
        simulation_.resume(waiter.a, waiter.b);
        break;
    }
  }
  if (orphaned) freeMarkers_.push_back(index);
  runPool();
}

void DeviceModel::settle() {
  account(slots_);
  account(toDevice_);
  account(toHost_);
  accountPool();
}

void DeviceModel::accountPool() {
  poolSeconds += (settings_.waitingThreads - poolFree_) * (simulation_.now_ - poolSince_);
  poolSince_ = simulation_.now_;
}

// The waiting pool's threads take its tasks in order, each blocked on its
// marker until it is reached.
void DeviceModel::runPool() {
  while (poolFree_ > 0 && !poolTasks_.empty()) {
    auto const task = poolTasks_.front();
    poolTasks_.pop_front();
    if (markers_[task.marker].reached) {
      simulation_.resume(task.lane, task.module);
      continue;
    }
    accountPool();
    --poolFree_;
    markers_[task.marker].waiters.push_back({MarkerWaiter::Kind::Pool, task.lane, task.module});
  }
}

}  // namespace lanes::model::detail
