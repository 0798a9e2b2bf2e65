#include "lanes/core/ProcessingObserver.h"

namespace lanes {

char const* toString(WaitKind kind) {
  switch (kind) {
    case WaitKind::Queue: return "queue";
    case WaitKind::External: return "external";
    case WaitKind::Idle: return "idle";
    case WaitKind::Boundary: return "boundary";
    case WaitKind::Conditions: return "conditions";
  }
  return "?";
}

char const* toString(SourceReads reads) {
  switch (reads) {
    case SourceReads::Inline: return "inline";
    case SourceReads::WithTheEvent: return "with-the-event";
    case SourceReads::Batched: return "batched";
  }
  return "?";
}

}  // namespace lanes
