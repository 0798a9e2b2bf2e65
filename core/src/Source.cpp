#include "lanes/core/Source.h"

namespace lanes {

bool Source::skip(std::uint64_t count) {
  SourceEvent skipped;
  for (std::uint64_t n = 0; n < count; ++n) {
    if (!next(skipped)) return false;
  }
  return true;
}

}  // namespace lanes
