#include <cctype>
#include <fstream>
#include <map>
#include <string>
#include <unordered_map>

#include "lanes/core/Exception.h"
#include "lanes/model/Menu.h"

namespace lanes::model {

namespace {

using nlohmann::json;

// A trace line's call: {"ph":"X","name":LABEL,"cat":TRANSITION,"dur":MICROSECONDS,...,"args":{"event":ID}}.
struct Call {
  std::string label, transition, event;
  double seconds;
};

bool callOf(std::string line, Call& call) {
  if (line.rfind(R"({"ph":"X")", 0) != 0) return false;
  while (!line.empty() && (line.back() == ',' || std::isspace(static_cast<unsigned char>(line.back())))) line.pop_back();
  auto const slice = json::parse(line, nullptr, false);
  if (slice.is_discarded() || !slice.contains("args") || !slice["args"].contains("event")) return false;
  call = {slice.value("name", std::string()), slice.value("cat", std::string()),
          slice["args"]["event"].get<std::string>(), 1e-6 * slice.value("dur", 0.0)};
  return true;
}

}  // namespace

void readTrace(Menu& menu, std::string const& path) {
  std::ifstream in(path);
  if (!in) throw Exception("cannot read the trace " + path);
  std::string line;
  std::getline(in, line);
  if (line.find("\"traceEvents\"") == std::string::npos) throw Exception(path + " is not a lanes trace (lanes run --trace)");
  std::unordered_map<std::string, unsigned> byLabel;
  for (unsigned m = 0; m < menu.modules.size(); ++m) byLabel.emplace(menu.modules[m].label, m);
  auto const nan = std::numeric_limits<float>::quiet_NaN();
  std::map<std::string, RecordedEvent> events;  // by event id
  auto const eventNamed = [&](std::string const& id) -> RecordedEvent& {
    auto [it, added] = events.try_emplace(id);
    if (added) {
      it->second.event.assign(menu.modules.size(), nan);
      it->second.acquire.assign(menu.modules.size(), nan);
    }
    return it->second;
  };
  bool matched = false;
  Call call;
  while (std::getline(in, line)) {
    if (!callOf(line, call)) continue;
    auto const module = byLabel.find(call.label);
    if (module == byLabel.end() || (call.transition != "event" && call.transition != "acquire")) continue;
    matched = true;
    auto& recorded = eventNamed(call.event);
    (call.transition == "event" ? recorded.event : recorded.acquire)[module->second] = static_cast<float>(call.seconds);
  }
  if (!matched) throw Exception("the trace " + path + " holds no call of the report's modules: is it another job's?");
  menu.recorded.clear();
  for (auto& [id, recorded] : events) menu.recorded.push_back(std::move(recorded));
}

}  // namespace lanes::model
