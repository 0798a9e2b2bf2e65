#include "StartupReport.h"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "lanes/core/StartupMarks.h"

namespace lanes::cli {

namespace {

double loadingSeconds = 0;

// Seconds from the process's start (field 22 of /proc/self/stat: clock ticks
// since the boot) to now on CLOCK_BOOTTIME, the clock that stamps it; 0 if
// unknown.
double secondsSinceProcessStart() {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto const command = stat.rfind(')');  // the command's name may hold spaces and parentheses
  if (command == std::string::npos) return 0;
  std::istringstream fields(stat.substr(command + 2));  // from field 3, the state
  std::string field;
  for (int number = 3; number < 22; ++number) fields >> field;
  unsigned long long ticks = 0;
  timespec now{};
  if (!(fields >> ticks) || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
  auto const started = static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  auto const since = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9 - started;
  return since > 0 ? since : 0;
}

double seconds(StartupMarks::Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

}  // namespace

void beginStartup() {
  StartupMarks::instance().beginMain();
  loadingSeconds = secondsSinceProcessStart();
}

nlohmann::json startupJson() {
  auto const& marks = StartupMarks::instance();
  auto const main = marks.mainBegan();
  auto phases = nlohmann::json::array();
  auto previous = main;
  double total = loadingSeconds;
  bool reachedFirstEvent = false;
  for (auto const& [phase, end] : marks.marks()) {
    phases.push_back({{"phase", phase}, {"s", seconds(end - previous)}});
    total += seconds(end - previous);
    previous = end;
    reachedFirstEvent = phase == StartupMarks::kFirstEvent;
  }
  nlohmann::json startup{{"loading_s", loadingSeconds},
                         {"phases", phases},
                         {"main_clock_s", seconds(main.time_since_epoch())}};
  if (reachedFirstEvent) startup["to_first_event_s"] = total;
  return startup;
}

}  // namespace lanes::cli
