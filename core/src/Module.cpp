#include "lanes/core/Module.h"

namespace lanes {

char const* toString(ModuleKind kind) {
  switch (kind) {
    case ModuleKind::Producer: return "producer";
    case ModuleKind::Filter: return "filter";
    case ModuleKind::Analyzer: return "analyzer";
    case ModuleKind::Output: return "output";
  }
  return "?";
}

char const* toString(Concurrency concurrency) {
  switch (concurrency) {
    case Concurrency::Global: return "global";
    case Concurrency::Stream: return "stream";
    case Concurrency::One: return "one";
    case Concurrency::Limited: return "limited";
  }
  return "?";
}

}  // namespace lanes
