#include "mimicry/MimicProducer.h"

#include "mimicry/ConcurrencyChoice.h"

namespace lanes::mimicry {
namespace {
RegisterConcurrentModule<MimicProducer, ProducerBases> const registration(
    "producer",
    "puts synthetic products: produces.<label>=BYTES, consumes=LABEL, time=SECONDS + scale=SECONDS/BYTE, "
    "work=busy|sleep, concurrency=global|stream|one|limited, limit=N");
}
}  // namespace lanes::mimicry
