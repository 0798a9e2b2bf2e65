#include "mimicry/MimicAnalyzer.h"

#include "mimicry/ConcurrencyChoice.h"

namespace lanes::mimicry {
namespace {
RegisterConcurrentModule<MimicAnalyzer, AnalyzerBases> const registration(
    "analyzer",
    "consumes products and costs time: consumes=LABEL, time=SECONDS + scale=SECONDS/BYTE, work=busy|sleep, "
    "concurrency=global|stream|one|limited, limit=N");
}
}  // namespace lanes::mimicry
