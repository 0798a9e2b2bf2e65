#include "root/EventBlobs.h"

#include "lanes/core/Exception.h"

namespace lanes::rootio {

namespace {
constexpr std::pair<FrameLevel, char const*> kLevels[] = {
    {FrameLevel::Product, "product"}, {FrameLevel::Event, "event"}, {FrameLevel::Batch, "batch"}, {FrameLevel::Both, "both"}};
}

FrameLevel parseFrameLevel(std::string const& name) {
  for (auto const& [level, spelling] : kLevels) {
    if (name == spelling) return level;
  }
  throw Exception("unknown compress '" + name + "' (known: product, event, batch, both)");
}

std::string nameOf(FrameLevel level) {
  for (auto const& [known, spelling] : kLevels) {
    if (known == level) return spelling;
  }
  return "unknown";
}

}  // namespace lanes::rootio
