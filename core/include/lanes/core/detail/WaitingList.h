#pragma once
// Who waits for something (a module's run in one event, a product's read) to
// be done. Lock-free: an intrusive stack of waiters closed by a sentinel.

#include <atomic>

namespace lanes::detail {

// A continuation that a WaitingList notifies once. A waiter is on at most one
// list at a time; its owner keeps it alive until notified.
class Waiter {
 public:
  virtual void notify() = 0;

 protected:
  ~Waiter() = default;

 private:
  friend class WaitingList;
  Waiter* next_ = nullptr;
};

// Thread-safe: add() and markDone() may race from any threads; reset() must
// not race with either (the scheduler calls it between events), nor may
// markDoneWithoutWaiters() (see there).
class WaitingList {
 public:
  // False if the list is already done: the caller goes on itself and `waiter`
  // will not be notified.
  bool add(Waiter* waiter) {
    Waiter* head = head_.load(std::memory_order_acquire);
    do {
      if (head == done()) return false;
      waiter->next_ = head;
    } while (!head_.compare_exchange_weak(head, waiter, std::memory_order_acq_rel, std::memory_order_acquire));
    return true;
  }

  // Notifies every waiter added so far; later add() calls return false.
  void markDone() {
    Waiter* waiter = head_.exchange(done(), std::memory_order_acq_rel);
    while (waiter) {
      Waiter* next = waiter->next_;  // read first: notify() may re-add the waiter elsewhere
      waiter->notify();
      waiter = next;
    }
  }

  // markDone() for a list that has no waiter and can get none meanwhile: its
  // only adder is the caller, later on its own thread. A store, where
  // markDone() takes a locked exchange.
  void markDoneWithoutWaiters() { head_.store(done(), std::memory_order_release); }

  bool isDone() const { return head_.load(std::memory_order_acquire) == done(); }
  void reset() { head_.store(nullptr, std::memory_order_release); }

 private:
  static Waiter* done() { return reinterpret_cast<Waiter*>(alignof(Waiter)); }
  std::atomic<Waiter*> head_{nullptr};
};

}  // namespace lanes::detail
