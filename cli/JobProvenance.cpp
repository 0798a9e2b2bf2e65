#include "JobProvenance.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "GitState.h"
#include "lanes/core/JobFiles.h"
#include "lanes/monitor/Sha256.h"
#include "lanes/node/Topology.h"

namespace lanes::cli {

std::vector<std::string> commandLine() {
  std::vector<std::string> words;
  std::ifstream cmdline("/proc/self/cmdline");
  for (std::string word; std::getline(cmdline, word, '\0');) words.push_back(word);
  return words;
}

Provenance jobProvenance(std::string const& menu) {
  auto provenance = Provenance::current();
  provenance.command = commandLine();
  if (!menu.empty()) {
    // Hashed before the job reads it: a FIFO or a directory is refused here,
    // not read forever.
    requireRegularInput(menu, "the menu (--menu " + menu + ")");
    provenance.menu = std::filesystem::absolute(menu).lexically_normal().string();
    provenance.menuSha256 = sha256OfFile(menu);
  }
  provenance.gitCommit = LANES_GIT_COMMIT;
  provenance.gitDirty = LANES_GIT_DIRTY;
  auto const counts = node::Topology::load("").counts();
  provenance.physicalCores = counts.value("cores", 0u);
  provenance.numaNodes = counts.value("numa_nodes", 0u);
  return provenance;
}

void addPartHosts(nlohmann::json& report) {
  auto hosts = nlohmann::json::array();
  auto const add = [&hosts](nlohmann::json const& host) {
    if (host.is_string() && std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  };
  add(report["provenance"]["host"]);
  for (auto const& worker : report.value("workers", nlohmann::json::array())) {
    if (worker.contains("host")) {
      add(worker["host"]);
    } else if (worker.contains("report") && worker["report"].contains("provenance")) {
      add(worker["report"]["provenance"]["host"]);
    }
  }
  report["provenance"]["hosts"] = hosts;
}

void addProvenanceCommand(CLI::App& app) {
  auto* command = app.add_subcommand(
      "provenance", "Print, as JSON, what a report made here now says of the machine and the build (its provenance)");
  command->callback([] { std::cout << jobProvenance("").toJson().dump(2) << "\n"; });
}

}  // namespace lanes::cli
