#include "lanes/core/Completion.h"

#include "lanes/core/Exception.h"

namespace lanes::detail {

void CompletionState::signal(std::exception_ptr error) {
  if (signalled_.exchange(true, std::memory_order_acq_rel)) return;
  auto continuation = std::move(continuation_);
  continuation(error);
}

CompletionState::~CompletionState() {
  if (!signalled_.load(std::memory_order_acquire)) {
    signal(std::make_exception_ptr(
        Exception("external work ended without signalling its completion (every copy was dropped)")));
  }
}

}  // namespace lanes::detail
