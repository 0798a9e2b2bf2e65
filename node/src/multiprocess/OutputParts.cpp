#include "OutputParts.h"

#include "MonotonicClock.h"
#include "lanes/core/Exception.h"

namespace lanes::node {

PartsMerge finishOutputParts(EventProcessor& processor, std::vector<std::string> written, std::vector<std::string> lost,
                             bool failed) {
  PartsMerge result;
  if (failed) {
    lost.insert(lost.end(), written.begin(), written.end());
    processor.discardOutputParts(lost);
    return result;
  }
  auto const begin = MonotonicClock::now();
  processor.discardOutputParts(lost);
  try {
    processor.mergeOutputParts(written);
  } catch (Exception const& error) {
    // The summary still comes, with the failure; no part is left behind.
    result.error = error.what();
    processor.discardOutputParts(written);
  }
  result.seconds = std::chrono::duration<double>(MonotonicClock::now() - begin).count();
  return result;
}

nlohmann::json describeMergedOutputs(EventProcessor const& processor, std::vector<nlohmann::json const*> const& partReports) {
  nlohmann::json outputs = nlohmann::json::array();
  auto const details = processor.moduleDetails();
  auto const& modules = processor.info().modules;
  for (std::size_t m = 0; m < details.size(); ++m) {
    auto merged = nlohmann::json::parse(details[m].empty() ? "null" : details[m], nullptr, false);
    if (!merged.is_object()) continue;
    if (merged.value("failed", false)) {  // a failed merge or write: the report says which
      merged["label"] = modules[m].label;
      outputs.push_back(std::move(merged));
      continue;
    }
    if (!merged.value("committed", false)) continue;
    std::uint64_t events = 0;
    for (auto const* report : partReports) {
      if (!report || !report->is_object()) continue;
      events += (*report)["modules"].at(m)["details"].value("events_written", 0ull);
    }
    merged["events_written"] = events;
    merged["label"] = modules[m].label;
    outputs.push_back(std::move(merged));
  }
  return outputs;
}

}  // namespace lanes::node
