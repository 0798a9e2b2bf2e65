#include "lanes/node/SupervisorUsage.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lanes/core/Exception.h"
#include "lanes/node/Pinning.h"

namespace lanes::node {

namespace {

std::optional<pid_t> numericName(std::filesystem::directory_entry const& entry) {
  auto const name = entry.path().filename().string();
  if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<pid_t>(std::stol(name));
}

std::vector<pid_t> numericEntries(std::string const& directory) {
  std::vector<pid_t> ids;
  std::error_code error;  // a process that ends while we list it is simply gone
  for (auto const& entry : std::filesystem::directory_iterator(directory, error)) {
    if (auto id = numericName(entry)) ids.push_back(*id);
  }
  return ids;
}

// /proc/PID/stat: "pid (comm) state ppid ... utime stime cutime cstime ...";
// comm may hold spaces and parentheses, so fields are counted after the last ')'.
bool readStat(pid_t pid, pid_t& parent, unsigned long long& ticks) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  auto const close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(text.substr(close + 2));
  std::string state;
  unsigned long long skip = 0, utime = 0, stime = 0, cutime = 0, cstime = 0;
  fields >> state >> parent;
  for (int field = 5; field <= 13; ++field) fields >> skip;
  fields >> utime >> stime >> cutime >> cstime;
  ticks = utime + stime + cutime + cstime;
  return static_cast<bool>(fields);
}

}  // namespace

ProcessTable ProcessTable::scan() {
  ProcessTable table;
  for (pid_t pid : numericEntries("/proc")) {
    Entry entry;
    if (readStat(pid, entry.parent, entry.ticks)) table.entries_[pid] = entry;
  }
  return table;
}

std::vector<pid_t> ProcessTable::treeOf(pid_t root) const {
  if (!entries_.count(root)) return {};
  std::multimap<pid_t, pid_t> children;
  for (auto const& [pid, entry] : entries_) children.emplace(entry.parent, pid);
  std::vector<pid_t> tree{root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    auto [first, last] = children.equal_range(tree[i]);
    for (auto it = first; it != last; ++it) tree.push_back(it->second);
  }
  return tree;
}

double ProcessTable::cpuSeconds(std::vector<pid_t> const& processes) const {
  unsigned long long ticks = 0;
  for (pid_t pid : processes) {
    auto it = entries_.find(pid);
    if (it != entries_.end()) ticks += it->second.ticks;
  }
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::size_t confineThreads(std::vector<pid_t> const& processes, CpuSet const& pus, std::set<pid_t>& bound) {
  std::size_t newlyBound = 0;
  for (pid_t pid : processes) {
    for (pid_t tid : numericEntries("/proc/" + std::to_string(pid) + "/task")) {
      if (setAffinity(tid, pus) && bound.insert(tid).second) ++newlyBound;
    }
  }
  return newlyBound;
}

OveruseDetector::OveruseDetector(unsigned cores, double tolerance, double graceSeconds)
    : limit_(cores * (1 + tolerance)), grace_(graceSeconds) {}

bool OveruseDetector::overdue(double wallSeconds, double cpuSeconds) {
  double const interval = wallSeconds - lastWall_;
  if (interval <= 0) return false;
  lastUsage_ = std::max(0.0, cpuSeconds - lastCpu_) / interval;
  peakUsage_ = std::max(peakUsage_, lastUsage_);
  if (lastUsage_ > limit_) {
    if (!overSince_) overSince_ = lastWall_;  // it was over for the whole interval
  } else {
    overSince_.reset();
  }
  lastWall_ = wallSeconds;
  lastCpu_ = std::max(lastCpu_, cpuSeconds);
  return overSince_ && wallSeconds - *overSince_ > grace_;
}

}  // namespace lanes::node
