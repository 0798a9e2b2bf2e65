#pragma once
// The completion handed to an external-work module's acquire(): the module
// signals it when its asynchronous work is over, from any thread.

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>

namespace lanes {

namespace detail {
// Shared by all copies of one Completion. The continuation runs exactly once:
// on the first done()/fail(), or with an error when the last copy is dropped
// without either.
class CompletionState {
 public:
  explicit CompletionState(std::function<void(std::exception_ptr)> continuation)
      : continuation_(std::move(continuation)) {}
  ~CompletionState();
  void signal(std::exception_ptr error);

 private:
  std::atomic<bool> signalled_{false};
  std::function<void(std::exception_ptr)> continuation_;
};
}  // namespace detail

// Thread-safe: copies may be held and signalled from any thread, a thread
// that oneTBB does not know included. Only the first done()/fail() counts.
// Dropping every copy without signalling fails the module's event with a
// clear error instead of stalling the job.
class Completion {
 public:
  Completion() = default;
  explicit Completion(std::function<void(std::exception_ptr)> continuation)
      : state_(std::make_shared<detail::CompletionState>(std::move(continuation))) {}

  void done() const { state_->signal(nullptr); }
  void fail(std::exception_ptr error) const { state_->signal(error ? error : std::make_exception_ptr(std::runtime_error("external work failed"))); }

 private:
  std::shared_ptr<detail::CompletionState> state_;
};

}  // namespace lanes
