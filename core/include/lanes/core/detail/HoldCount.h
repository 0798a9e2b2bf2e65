#pragma once
// The holds on one step of a lane's event (its paths, its outputs, a
// module's prerequisites): whoever gives back the last one goes on with the
// work.

#include <atomic>

namespace lanes::detail {

// Thread-safe: release() may race from any threads; set() must not race with
// it (a lane sets the count before it hands out the holds).
class HoldCount {
 public:
  void set(unsigned holds) { count_.store(holds, std::memory_order_release); }

  // Gives back `holds` of the caller's; true for the caller that gave back
  // the last. A caller that has all that is left needs no locked
  // instruction, which is the usual case of an event that ran on its lane's
  // thread: no other thread has a hold to give back, so none can change the
  // count meanwhile, and the acquire load still orders the caller after every
  // earlier release.
  bool release(unsigned holds = 1) {
    if (count_.load(std::memory_order_acquire) == holds) {
      count_.store(0, std::memory_order_relaxed);
      return true;
    }
    return count_.fetch_sub(holds, std::memory_order_acq_rel) == holds;
  }

 private:
  std::atomic<unsigned> count_{0};
};

}  // namespace lanes::detail
