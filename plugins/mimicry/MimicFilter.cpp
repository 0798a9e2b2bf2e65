#include "mimicry/MimicFilter.h"

#include "mimicry/ConcurrencyChoice.h"

namespace lanes::mimicry {
namespace {
RegisterConcurrentModule<MimicFilter, FilterBases> const registration(
    "filter",
    "accepts a reproducible fraction of events: accept=FRACTION, consumes=LABEL, time=SECONDS + "
    "scale=SECONDS/BYTE, work=busy|sleep, concurrency=global|stream|one|limited, limit=N");
}
}  // namespace lanes::mimicry
