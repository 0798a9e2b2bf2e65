#pragma once
// What the accelerator modules of a job share: the device, its queue cache,
// the completion strategy and, for the waiting-pool strategy, the pool of
// waiting threads.

#include <functional>
#include <memory>
#include <mutex>

#include "accel/QueueCache.h"
#include "accel/Settings.h"
#include "mimicry/WorkerPool.h"

namespace lanes::accel {

// Thread-safe. The waiting pool's threads are plain std::threads outside the
// oneTBB arena, by definition of the strategy: they spend their lives blocked
// on markers (a blocking wait that costs almost no CPU), which a worker
// thread must never do.
class Accelerator {
 public:
  explicit Accelerator(Settings const& settings);

  // The accelerator of the modules alive now, or a new one made from
  // settings() when there is none: every module of a job shares one device.
  static std::shared_ptr<Accelerator> shared();

  Backend backend() const { return backend_; }
  Strategy strategy() const { return strategy_; }
  Device& device() { return *device_; }
  QueueCache& queues() { return queues_; }

  // Calls `then` with the failure (or none) from a waiting thread once
  // `marker` is reached. For the waiting-pool strategy only.
  void whenReached(std::shared_ptr<Marker const> marker, std::function<void(std::exception_ptr)> then);

 private:
  Backend backend_;
  Strategy strategy_;
  std::shared_ptr<Device> device_;
  QueueCache queues_;
  unsigned waitingThreads_;
  std::once_flag waitingStarted_;
  std::unique_ptr<mimicry::WorkerPool> waiting_;  // last: joined before the queues go
};

}  // namespace lanes::accel
