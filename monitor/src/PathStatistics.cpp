#include "lanes/monitor/PathStatistics.h"

namespace lanes {

void PathStatistics::jobStarted(JobInfo const& info) {
  info_ = info;
  perThread_.clear();
}

std::vector<PathStatistics::Counts>& PathStatistics::local() {
  auto& counts = perThread_.local();
  if (counts.size() != info_.paths.size()) {
    counts.resize(info_.paths.size());
    for (std::size_t p = 0; p < counts.size(); ++p) {
      counts[p].rejectedAt.assign(info_.paths[p].modules.size() + 1, 0);
      counts[p].failedAt.assign(info_.paths[p].modules.size() + 1, 0);
    }
  }
  return counts;
}

void PathStatistics::pathFinished(unsigned, unsigned path, PathStatus status, unsigned step) {
  auto& counts = local().at(path);
  switch (status) {
    case PathStatus::Accepted: ++counts.accepted; break;
    case PathStatus::Rejected: ++counts.rejectedAt.at(step); break;
    case PathStatus::Failed: ++counts.failedAt.at(step); break;
  }
}

namespace {

nlohmann::json row(std::uint64_t accepted, std::uint64_t rejected, std::uint64_t failed) {
  return {{"visited", accepted + rejected + failed}, {"accepted", accepted}, {"rejected", rejected}, {"failed", failed}};
}

}  // namespace

nlohmann::json PathStatistics::toJson() const {
  auto paths = nlohmann::json::array();
  for (std::size_t p = 0; p < info_.paths.size(); ++p) {
    auto const& modules = info_.paths[p].modules;
    std::uint64_t accepted = 0;
    std::vector<std::uint64_t> rejectedAt(modules.size() + 1), failedAt(modules.size() + 1);
    for (auto const& counts : perThread_) {
      if (counts.size() <= p) continue;
      accepted += counts[p].accepted;
      for (std::size_t s = 0; s <= modules.size(); ++s) {
        rejectedAt[s] += counts[p].rejectedAt[s];
        failedAt[s] += counts[p].failedAt[s];
      }
    }
    std::uint64_t rejected = 0, failed = 0;
    for (std::size_t s = 0; s <= modules.size(); ++s) {
      rejected += rejectedAt[s];
      failed += failedAt[s];
    }
    auto json = row(accepted, rejected, failed);
    json["name"] = info_.paths[p].name;
    json["modules"] = nlohmann::json::array();
    // The events that got past step s: accepted, or stopped further on.
    std::uint64_t beyond = accepted;
    std::vector<nlohmann::json> rows(modules.size());
    for (std::size_t s = modules.size(); s-- > 0;) {
      rows[s] = row(beyond, rejectedAt[s], failedAt[s]);
      rows[s]["label"] = info_.modules.at(modules[s]).label;
      beyond += rejectedAt[s] + failedAt[s];
    }
    for (auto& module : rows) json["modules"].push_back(std::move(module));
    paths.push_back(std::move(json));
  }
  return paths;
}

}  // namespace lanes
