#pragma once
// The figures of one part of a job (a worker's, a rank's) from its run
// report, relative to the start of the job, and the spread of the parts'
// finish times: the rows of a multi-process or MPI report.

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace lanes::node {

inline double secondsBetween(std::int64_t from, std::int64_t to) { return static_cast<double>(to - from) * 1e-9; }

inline std::uint64_t eventsOf(nlohmann::json const& report) { return report.is_object() ? report.value("events", 0ull) : 0; }

// Not thread-safe: one report's rows are made on one thread.
class FinishSpread {
 public:
  // Sets the row's events, started_s, finished_s and events_per_s from the
  // part's report (its started_ns and finished_ns on the monotonic clock),
  // and counts its finish time.
  void addRow(nlohmann::json& row, nlohmann::json const& partReport, std::int64_t jobStartedNs);
  double seconds() const { return latest_ && earliest_ ? *latest_ - *earliest_ : 0.0; }

 private:
  std::optional<double> earliest_, latest_;
};

inline void FinishSpread::addRow(nlohmann::json& row, nlohmann::json const& partReport, std::int64_t jobStartedNs) {
  auto const events = eventsOf(partReport);
  auto const started = secondsBetween(jobStartedNs, partReport.value("started_ns", jobStartedNs));
  auto const finished = secondsBetween(jobStartedNs, partReport.value("finished_ns", jobStartedNs));
  row["events"] = events;
  row["started_s"] = started;
  row["finished_s"] = finished;
  row["events_per_s"] = finished > started ? static_cast<double>(events) / (finished - started) : 0.0;
  earliest_ = std::min(earliest_.value_or(finished), finished);
  latest_ = std::max(latest_.value_or(finished), finished);
}

}  // namespace lanes::node
