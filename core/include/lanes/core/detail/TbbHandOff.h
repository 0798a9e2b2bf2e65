#pragma once
// oneTBB's hand-offs, told to ThreadSanitizer. TSan sees the synchronisation
// of instrumented code only, and oneTBB's scheduler lives in libtbb, which is
// not instrumented: TSan cannot see that a task runs after the code that
// made it, nor that task_group::wait() returns after the group's tasks, and
// would report every object handed over that way as a race. So, in a
// -fsanitize=thread build, a callable that lanes gives oneTBB is wrapped
// (handedOver): each copy of it releases, where it is made, at its own
// address (the task that oneTBB allocates holds the last copy), and acquires
// there as it is called, before it reads anything of its own; after the call
// it releases at the group's address, which the group's waiter acquires once
// wait() returns (joined). The annotations say what oneTBB guarantees, no
// more. In any other build they are nothing at all.
//
// Thread-safe: the annotations are TSan's, keyed by address.

#include <utility>

#if defined(__SANITIZE_THREAD__)
#define LANES_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LANES_TSAN 1
#endif
#endif

#if defined(LANES_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace lanes::detail {

#if defined(LANES_TSAN)

// What the calling thread did so far happens before a tsanAcquire() of the
// same address that follows (as oneTBB orders them).
inline void tsanRelease(void const* point) { __tsan_release(const_cast<void*>(point)); }
inline void tsanAcquire(void const* point) { __tsan_acquire(const_cast<void*>(point)); }

// Immutable after construction (see above).
template <typename Task>
class HandedOver {
 public:
  // Each acquires at its own address first: oneTBB recycles a finished
  // task's memory for the next one without TSan seeing it, and the one that
  // ran there released at that address as it was destroyed. A copy also
  // acquires at its source, which a thread that split a body may not have
  // made itself.
  HandedOver(Task task, void const* group) : task_(acquired(this, std::move(task))), group_(group) { tsanRelease(this); }
  HandedOver(HandedOver const& other) : task_(acquired(this, other)), group_(other.group_) { tsanRelease(this); }
  HandedOver(HandedOver&& other) : task_(acquired(this, std::move(other))), group_(other.group_) { tsanRelease(this); }
  HandedOver& operator=(HandedOver const&) = delete;
  ~HandedOver() { tsanRelease(this); }

  template <typename... Arguments>
  void operator()(Arguments&&... arguments) const {
    tsanAcquire(this);
    task_(std::forward<Arguments>(arguments)...);
    tsanRelease(group_);
  }

 private:
  static Task acquired(void const* at, Task task) {
    tsanAcquire(at);
    return task;
  }
  static Task acquired(void const* at, HandedOver const& other) {
    tsanAcquire(at);
    tsanAcquire(&other);
    return other.task_;
  }
  static Task acquired(void const* at, HandedOver&& other) {
    tsanAcquire(at);
    tsanAcquire(&other);
    return std::move(other.task_);
  }

  Task task_;
  void const* group_;
};

// `task`, to run as oneTBB's task (or body) on behalf of the group at
// `group`, whatever address stands for what waits for it.
template <typename Task>
HandedOver<Task> handedOver(Task task, void const* group) {
  return HandedOver<Task>(std::move(task), group);
}

#else

inline void tsanRelease(void const*) {}
inline void tsanAcquire(void const*) {}

template <typename Task>
Task handedOver(Task task, void const*) {
  return task;
}

#endif

// After the wait() of the group at `group`: its tasks' work happened before.
inline void joined(void const* group) { tsanAcquire(group); }

}  // namespace lanes::detail
