#pragma once
// A small pool of plain threads that stands in for an accelerator or another
// external service: the framework hands it work and is told when it is done.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace lanes::mimicry {

// Thread-safe: submit() may be called from any thread. The pool's threads are
// std::threads, not oneTBB workers, so blocking them (on the queue's
// condition variable, or in a job's sleep) stalls no framework work. The
// destructor runs the jobs still queued, then joins the threads.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(WorkerPool const&) = delete;
  WorkerPool& operator=(WorkerPool const&) = delete;

  void submit(std::function<void()> job);

 private:
  void serve();
  void stop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace lanes::mimicry
