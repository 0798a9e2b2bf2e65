#include "lanes/core/RunningNote.h"

#include "lanes/core/detail/SignalSafeText.h"

namespace lanes {

using detail::appendText;
using detail::appendUnsigned;

void appendRunning(RunningNote const* running, char* buffer, std::size_t size) noexcept {
  if (!running) return;
  auto const& note = *running;
  if (note.runner->module == RunnerName::kSource) {
    appendText("source", buffer, size);
  } else {
    appendText("module ", buffer, size);
    detail::appendQuoted(note.runner->label, buffer, size);
  }
  appendText(" (plugin ", buffer, size);
  detail::appendQuoted(note.runner->plugin, buffer, size);
  appendText(", ", buffer, size);
  appendText(toString(note.transition), buffer, size);
  if (note.lane >= 0) {
    appendText(", lane ", buffer, size);
    appendUnsigned(static_cast<unsigned>(note.lane), buffer, size);
  }
  if (note.event) {
    appendText(", event ", buffer, size);
    appendUnsigned(note.event->run, buffer, size);
    appendText(":", buffer, size);
    appendUnsigned(note.event->luminosityBlock, buffer, size);
    appendText(":", buffer, size);
    appendUnsigned(note.event->event, buffer, size);
  }
  appendText(")", buffer, size);
}

}  // namespace lanes
