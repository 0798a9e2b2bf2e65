#include "accel/Accelerator.h"

#include <mutex>

namespace lanes::accel {

Accelerator::Accelerator(Settings const& settings)
    : backend_(settings.backend),
      strategy_(settings.strategy),
      device_(makeDevice(settings)),
      queues_(device_, settings.strategy == Strategy::SyncSingle ? 1 : settings.maxQueues),
      waitingThreads_(settings.waitingThreads) {}

std::shared_ptr<Accelerator> Accelerator::shared() {
  static std::mutex mutex;
  static std::weak_ptr<Accelerator> current;
  std::lock_guard lock(mutex);
  auto accelerator = current.lock();
  if (!accelerator) {
    accelerator = std::make_shared<Accelerator>(settings());
    current = accelerator;
  }
  return accelerator;
}

void Accelerator::whenReached(std::shared_ptr<Marker const> marker, std::function<void(std::exception_ptr)> then) {
  // Started at the first wait, not with the job: a multi-process job forks
  // after its modules are built, and a thread started before the fork would
  // not exist in the workers.
  std::call_once(waitingStarted_, [this] { waiting_ = std::make_unique<mimicry::WorkerPool>(waitingThreads_); });
  waiting_->submit([marker = std::move(marker), then = std::move(then)] {
    std::exception_ptr failure;
    try {
      marker->wait(HostWait::Block);
    } catch (...) {
      failure = std::current_exception();
    }
    then(failure);
  });
}

}  // namespace lanes::accel
