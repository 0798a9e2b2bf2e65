#include "mimicry/WorkMode.h"

#include <chrono>
#include <thread>

#include "mimicry/BusyWork.h"

namespace lanes::mimicry {

WorkMode readWorkMode(PluginOptions const& options, std::string const& key) {
  return options.choice(key, "busy", {"busy", "sleep"}) == "busy" ? WorkMode::Busy : WorkMode::Sleep;
}

void spend(WorkMode mode, double seconds) {
  if (!(seconds > 0)) return;
  if (mode == WorkMode::Busy) {
    burnCpu(seconds);
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
}

std::string workDetails(WorkMode mode) {
  return mode == WorkMode::Busy ? R"({"work":"busy"})" : R"({"work":"sleep"})";
}

}  // namespace lanes::mimicry
