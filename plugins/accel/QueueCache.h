#pragma once
// Which queue a module's device work goes to. The first accelerator module
// of a non-branching chain takes a free queue; the first consumer of a device
// product continues on its producer's queue (in order: no wait needed); any
// other consumer takes a queue of its own and waits on the producer's marker.
// Assignment is per event: the device product carries its queue and marker.
//
//   unpack ──► clusters ──┬──► tracks      (tracks continues unpack's queue)
//                         └──► energy      (a new queue, which waits on clusters' marker)

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "accel/Device.h"

namespace lanes::accel {

// A product that lives on the device: its buffer, and the queue and marker of
// the work that writes it. Thread-safe: consumers on several threads may read
// it and race for its queue.
class DeviceProduct {
 public:
  DeviceProduct(std::shared_ptr<DeviceBuffer> buffer, std::shared_ptr<Queue> queue, std::shared_ptr<Marker const> marker)
      : buffer_(std::move(buffer)), queue_(std::move(queue)), marker_(std::move(marker)) {}

  std::shared_ptr<DeviceBuffer const> buffer() const { return buffer_; }
  std::shared_ptr<Queue> const& queue() const { return queue_; }
  std::shared_ptr<Marker const> const& marker() const { return marker_; }

  // True for exactly one caller: the consumer that continues this queue.
  bool claimQueue() const { return !queueClaimed_->exchange(true, std::memory_order_acq_rel); }

 private:
  std::shared_ptr<DeviceBuffer> buffer_;
  std::shared_ptr<Queue> queue_;
  std::shared_ptr<Marker const> marker_;
  std::unique_ptr<std::atomic<bool>> queueClaimed_ = std::make_unique<std::atomic<bool>>(false);  // movable
};

// Where one module's work runs, and the markers of other queues it must wait on first.
struct Placement {
  std::shared_ptr<Queue> queue;
  std::vector<std::shared_ptr<Marker const>> waits;
};

// Thread-safe: place() may be called from every lane at once (a short
// critical section guards the list of queues). A queue handed out is leased:
// it is free again when the last copy of its shared_ptr (in device products,
// mostly) is dropped. With a limit, a module that finds every queue leased
// shares the least-leased one, as CUDA multiplexes streams onto a limited
// number of hardware queues; a limit of 1 is the single queue of sync-single.
class QueueCache {
 public:
  // maxQueues = 0: as many as the lanes need.
  QueueCache(std::shared_ptr<Device> device, unsigned maxQueues);

  Placement place(std::vector<DeviceProduct const*> const& inputs);

  // Queues made so far.
  std::size_t size() const;

 private:
  struct Entry {
    std::unique_ptr<Queue> queue;
    unsigned leases = 0;
  };
  // Shared with the leases, which return their queue to it.
  struct State {
    State(std::shared_ptr<Device> device, unsigned maxQueues) : device(std::move(device)), maxQueues(maxQueues) {}
    std::shared_ptr<Device> device;
    unsigned maxQueues;
    mutable std::mutex mutex;
    std::vector<Entry> entries;
  };

  std::shared_ptr<Queue> take();
  static std::size_t chooseEntry(State& state);

  std::shared_ptr<State> state_;
};

}  // namespace lanes::accel
