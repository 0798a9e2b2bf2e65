#pragma once
// The emulated device as the simulation replays it (plugins/accel's
// EmulatedDevice, QueueCache and the five strategies): in-order queues, each
// doing one thing at a time; kernels beyond the kernel slots wait for one;
// one copy engine per direction; markers that other queues, blocked host
// threads or the waiting pool wait on; host callbacks. A module's device
// work goes to its chain's queue: the first consumer of a device product
// continues its producer's queue, any other takes a queue of its own that
// waits on the producer's marker; a chain's first module takes a free queue,
// else a new one, else (at the limit) the least leased. An event's queues
// are leased until it ends.

#include <cstdint>
#include <deque>
#include <vector>

#include "lanes/model/Menu.h"

namespace lanes::model::detail {

class Simulation;

// What an event holds of a device until it ends: queues leased, markers made.
struct DeviceHold {
  std::vector<unsigned> queues, markers;
};

// One module's device work in one event.
struct DeviceCall {
  unsigned queue = ~0u;
  unsigned marker = ~0u;
  bool queueClaimed = false;  // a consumer continues this queue
};

// Externally synchronised: the simulation's, used by its one thread.
class DeviceModel {
 public:
  DeviceModel(DeviceSettings const& settings, Simulation& simulation, unsigned index);

  // Enqueues `work` for `module` of `lane`, placed after its device inputs
  // (`inputs`, of the same event), and arranges how the module learns it is
  // done, as the strategy says: a host callback, the waiting pool, or
  // nothing (the caller spins on the marker, or goes on at once).
  void enqueue(unsigned lane, unsigned module, DeviceWork const& work, std::vector<DeviceCall*> const& inputs,
               DeviceCall& call, DeviceHold& hold);
  // Whether the module's acquire() waits for its work by spinning (the
  // blocking strategies), is completed by the device (callback or waiting
  // pool), or completes at once (its product stays on the device).
  enum class Completion { Spin, Device, AtOnce };
  Completion completionOf(DeviceWork const& work) const;
  bool reached(unsigned marker) const { return markers_[marker].reached; }
  // A thread spinning until `marker` is reached: Simulation::spinDone(thread).
  void spinOn(unsigned marker, unsigned thread);
  // The event has ended: its queues are free again, its markers once reached.
  void release(DeviceHold& hold);
  // A queue's copy or kernel has ended.
  void workDone(unsigned queue);
  // Brings the busy times up to now.
  void settle();
  // The host CPU an acquire() spends enqueueing `work` (launch overhead per enqueue).
  double enqueueSeconds(DeviceWork const& work, std::size_t waits) const;

  // Busy slot-seconds: kernel slots, copy engines, waiting pool.
  double kernelSeconds = 0, toDeviceSeconds = 0, toHostSeconds = 0, poolSeconds = 0;
  DeviceSettings const& settings() const { return settings_; }

 private:
  struct Work {
    enum class Kind : std::uint8_t { WaitFor, ToDevice, Kernel, ToHost, Record, Callback };
    Kind kind;
    unsigned marker = 0;      // WaitFor, Record
    double seconds = 0;       // ToDevice, Kernel, ToHost
    unsigned lane = 0, module = 0;  // Callback
  };
  struct Queue {
    std::deque<Work> work;
    bool busy = false;  // running work, or blocked on a marker or a resource
    unsigned leases = 0;
  };
  struct MarkerWaiter {
    enum class Kind : std::uint8_t { Queue, Spin, Pool };
    Kind kind;
    unsigned a, b = 0;  // the queue; the spinning thread; the pool's task's lane and module
  };
  struct Marker {
    bool reached = false;
    bool orphaned = false;  // its event has ended: free once reached
    std::vector<MarkerWaiter> waiters;
  };
  // A copy engine or the kernel slots: at most `capacity` at once, the others queue in order.
  struct Resource {
    unsigned capacity = 1;
    unsigned used = 0;
    std::deque<unsigned> waiting;  // queues
    double since = 0;
    double* busy = nullptr;
  };
  struct PoolTask {
    unsigned marker, lane, module;
  };

  unsigned take();
  unsigned newMarker();
  void advance(unsigned queue);
  bool startTimed(unsigned queue, Resource& resource, double seconds);
  void account(Resource& resource);
  void reach(unsigned marker);
  Resource& resourceOf(Work::Kind kind);
  void runPool();
  void accountPool();

  DeviceSettings settings_;
  Simulation& simulation_;
  unsigned index_;
  std::vector<Queue> queues_;
  std::vector<Marker> markers_;
  std::vector<unsigned> freeMarkers_;
  Resource slots_, toDevice_, toHost_;
  std::vector<Resource*> running_;  // by queue: the resource its current work holds, if any
  std::deque<PoolTask> poolTasks_;
  unsigned poolFree_ = 0;
  double poolSince_ = 0;
};

}  // namespace lanes::model::detail
