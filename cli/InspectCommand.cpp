#include "InspectCommand.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "FatalSignals.h"
#include "lanes/core/Exception.h"
#include "lanes/core/JobFiles.h"
#include "lanes/monitor/AtomicFile.h"
#include "root/Inspect.h"

namespace lanes::cli {

namespace {

struct InspectArguments {
  std::string file;
  std::string profile;
  std::string dataset;
  bool json = false;
};

void printDataset(rootio::InspectedDataset const& dataset) {
  double compressed = 0, uncompressed = 0;
  std::cout << dataset.kind << " '" << dataset.name << "': " << dataset.entries << " entries, "
            << dataset.products.size() << (dataset.kind == "TTree" ? " branches" : " fields") << "\n";
  std::cout << "  " << std::left << std::setw(40) << "product" << std::setw(44) << "type" << std::right << std::setw(10)
            << "entries" << std::setw(14) << "zipped B/ev" << std::setw(14) << "memory B/ev" << "\n";
  std::cout << std::fixed << std::setprecision(1);
  for (auto const& product : dataset.products) {
    std::cout << "  " << std::left << std::setw(40) << product.name + " " << std::setw(44) << product.type + " "
              << std::right << std::setw(10) << product.entries << std::setw(14) << product.compressedPerEvent << std::setw(14)
              << product.uncompressedPerEvent << "\n";
    compressed += product.compressedPerEvent;
    uncompressed += product.uncompressedPerEvent;
  }
  std::cout << "  " << std::left << std::setw(94) << "total" << std::right << std::setw(14) << compressed
            << std::setw(14) << uncompressed << "\n";
  std::cout.unsetf(std::ios::floatfield);
  for (auto const& product : dataset.products) {
    if (!product.unreadable.empty()) std::cout << "  cannot read '" << product.name << "': " << product.unreadable << "\n";
  }
  auto const emulated = std::count_if(dataset.products.begin(), dataset.products.end(), [](auto const& p) { return p.emulated; });
  if (emulated > 0) {
    std::cout << "  " << emulated
              << (emulated == 1 ? " field is read emulated (no dictionary here for its type): modules read it, no ROOT "
                                  "output stores it\n"
                                : " fields are read emulated (no dictionary here for their types): modules read them, "
                                  "no ROOT output stores them\n");
  }
  if (!dataset.exclude.empty()) {
    std::cout << "  the " << (dataset.kind == "TTree" ? "root" : "rntuple") << " source reads the rest with "
              << dataset.exclude << " (or unreadable=skip)\n";
  }
}

nlohmann::json toJson(std::vector<rootio::InspectedDataset> const& datasets) {
  auto json = nlohmann::json::array();
  for (auto const& dataset : datasets) {
    auto products = nlohmann::json::array();
    for (auto const& p : dataset.products) {
      products.push_back({{"name", p.name},
                          {"type", p.type},
                          {"entries", p.entries},
                          {"compressed_bytes_per_event", p.compressedPerEvent},
                          {"uncompressed_bytes_per_event", p.uncompressedPerEvent},
                          {"unreadable", p.unreadable.empty() ? nlohmann::json() : nlohmann::json(p.unreadable)},
                          {"emulated", p.emulated}});
    }
    json.push_back({{"name", dataset.name},
                    {"kind", dataset.kind},
                    {"entries", dataset.entries},
                    {"products", products},
                    {"exclude", dataset.exclude.empty() ? nlohmann::json() : nlohmann::json(dataset.exclude)}});
  }
  return json;
}

rootio::InspectedDataset const& chosen(std::vector<rootio::InspectedDataset> const& datasets, InspectArguments const& a) {
  for (auto const& dataset : datasets) {
    if (dataset.name == a.dataset) return dataset;
  }
  if (a.dataset.empty() && datasets.size() == 1) return datasets.front();
  std::string names;
  for (auto const& dataset : datasets) names += (names.empty() ? "" : ", ") + dataset.name;
  throw Exception(a.dataset.empty() ? "'" + a.file + "' holds several datasets (" + names + "): choose one with --dataset"
                                    : "'" + a.file + "' has no TTree or RNTuple '" + a.dataset + "' (it has: " + names + ")");
}

void inspect(InspectArguments const& arguments) {
  reportFatalSignals();  // before the file is opened
  requireRegularInput(arguments.file, "the file to inspect");
  auto const datasets = rootio::inspectFile(arguments.file);
  if (datasets.empty()) throw Exception("'" + arguments.file + "' holds no TTree or RNTuple");
  if (arguments.json) {
    std::cout << toJson(datasets).dump(1) << "\n";
  } else {
    for (auto const& dataset : datasets) printDataset(dataset);
  }
  if (arguments.profile.empty()) return;
  auto const& dataset = chosen(datasets, arguments);
  auto const origin = std::filesystem::path(arguments.file).filename().string();
  writeAtomically(arguments.profile, [&](std::ostream& out) { out << rootio::profileOf(dataset, origin); });
  std::cerr << "lanes: wrote the profile of '" << dataset.name << "' to " << arguments.profile
            << " (use it as --source synthetic:profile=" << arguments.profile << ")\n";
}

}  // namespace

void addInspectCommand(CLI::App& app) {
  auto arguments = std::make_shared<InspectArguments>();
  auto* command = app.add_subcommand(
      "inspect", "List the TTrees and RNTuples of a ROOT file with each product's type and bytes per event (read "
                 "from metadata; no event is read), name the branches and fields the root and rntuple sources cannot read, "
                 "why, and the exclude= globs that leave them out, and "
                 "optionally write a profile that mimics it");
  command->add_option("file", arguments->file, "ROOT file")->required();
  command->add_option("--profile", arguments->profile,
                      "Write a synthetic-source profile (mean uncompressed bytes of each product) to FILE");
  command->add_option("--dataset", arguments->dataset, "The TTree or RNTuple to profile, if the file has several");
  command->add_flag("--json", arguments->json, "Print JSON instead of tables");
  command->callback([arguments] { inspect(*arguments); });
}

}  // namespace lanes::cli
