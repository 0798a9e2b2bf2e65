// The floor for writing a TTree with ROOT: the branches that lanes' `root`
// output writes for an input (run, luminosityBlock and event from the input's
// id branch, then every other branch with its class, split 99, baskets of
// 32000 bytes, clusters of 30 MB), read with TTree::GetEntry and written with
// TTree::Fill by the plain loop a ROOT user writes. Each object is read and
// written in place: the input's branch and the output's point at the same one.
// bench/write_speed.py sets lanes' writers against it.
//   build/bin/bench_root_fill INPUT OUTPUT ID_BRANCH ALGORITHM LEVEL
// ALGORITHM: zlib, lz4, zstd or lzma. Prints one JSON line: the events, the
// seconds from opening the input to closing the output (what lanes' run
// report times for a job), events_per_s, and the seconds in GetEntry, in Fill
// and in the last Write and Close. Exits 2 naming what it cannot do.

#include <Compression.h>
#include <TBranchElement.h>
#include <TClass.h>
#include <TFile.h>
#include <TROOT.h>
#include <TTree.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(std::string const& message) {
  std::cerr << "bench_root_fill: error: " << message << "\n";
  std::exit(2);
}

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

int compression(std::string const& algorithm, int level) {
  using Algorithm = ROOT::RCompressionSetting::EAlgorithm;
  static std::map<std::string, Algorithm::EValues> const algorithms{
      {"zlib", Algorithm::kZLIB}, {"lz4", Algorithm::kLZ4}, {"zstd", Algorithm::kZSTD}, {"lzma", Algorithm::kLZMA}};
  auto const found = algorithms.find(algorithm);
  if (found == algorithms.end() || level < 0 || level > 9) fail("no compression " + algorithm + " " + std::to_string(level));
  return ROOT::CompressionSettings(found->second, level);
}

// The id branch's leaves, as lanes' `root` source reads them (id=BRANCH).
struct EventId {
  std::uint32_t run = 0, luminosityBlock = 0;
  std::uint64_t event = 0;
};

// The input's object branches, each read into the object that the output's
// branch of the same name writes.
class Objects {
 public:
  Objects(TTree& input, TTree& output, std::string const& idBranch) {
    auto* branches = input.GetListOfBranches();
    objects_.reserve(branches->GetEntriesFast());  // the branches hold these pointers' addresses
    for (auto* object : *branches) {
      auto* branch = static_cast<TBranch*>(object);
      std::string const name = branch->GetName();
      if (name == idBranch) continue;
      auto* element = dynamic_cast<TBranchElement*>(branch);
      TClass* cls = element ? TClass::GetClass(element->GetClassName()) : nullptr;
      if (!cls || !cls->HasDictionary()) fail("branch " + name + " holds no object of a class with a dictionary");
      objects_.push_back({cls, cls->New()});
      auto& read = objects_.back().address;
      if (input.SetBranchAddress(name.c_str(), &read, nullptr, cls, kOther_t, true) < 0) fail("cannot read " + name);
      if (!output.Branch(name.c_str(), cls->GetName(), &read, 32000, 99)) fail("cannot make branch " + name);
    }
  }
  Objects(Objects const&) = delete;
  Objects& operator=(Objects const&) = delete;
  ~Objects() {
    for (auto const& [cls, address] : objects_) cls->Destructor(address);
  }

 private:
  struct Owned {
    TClass* cls;
    void* address;
  };
  std::vector<Owned> objects_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) fail("usage: bench_root_fill INPUT OUTPUT ID_BRANCH ALGORITHM LEVEL");
  gROOT->SetBatch(true);
  auto const settings = compression(argv[4], std::stoi(argv[5]));
  auto const start = Clock::now();
  std::unique_ptr<TFile> in(TFile::Open(argv[1]));
  auto* input = in && !in->IsZombie() ? in->Get<TTree>("Events") : nullptr;
  if (!input) fail(std::string("no tree Events in ") + argv[1]);
  std::unique_ptr<TFile> out(TFile::Open(argv[2], "RECREATE", "", settings));
  if (!out || out->IsZombie()) fail(std::string("cannot create ") + argv[2]);
  auto* output = new TTree("Events", "Events");  // owned by `out`
  output->SetDirectory(out.get());
  output->SetAutoFlush(-30000000);

  EventId id;
  if (input->SetBranchAddress(argv[3], &id) < 0) fail(std::string("no id branch ") + argv[3]);
  output->Branch("run", &id.run, "run/i");
  output->Branch("luminosityBlock", &id.luminosityBlock, "luminosityBlock/i");
  output->Branch("event", &id.event, "event/l");
  Objects objects(*input, *output, argv[3]);

  double readSeconds = 0, fillSeconds = 0;
  auto const events = input->GetEntries();
  for (Long64_t entry = 0; entry < events; ++entry) {
    auto const read = Clock::now();
    if (input->GetEntry(entry) <= 0) fail("cannot read entry " + std::to_string(entry));
    auto const fill = Clock::now();
    readSeconds += std::chrono::duration<double>(fill - read).count();
    if (output->Fill() < 0) fail("cannot write entry " + std::to_string(entry));
    fillSeconds += since(fill);
  }
  auto const close = Clock::now();
  out->cd();
  if (output->Write() <= 0) fail(std::string("cannot write the tree into ") + argv[2]);
  out->Close();
  auto const closeSeconds = since(close);
  auto const seconds = since(start);
  std::cout << "{\"events\": " << events << ", \"seconds\": " << seconds << ", \"events_per_s\": " << events / seconds
            << ", \"read_s\": " << readSeconds << ", \"fill_s\": " << fillSeconds << ", \"close_s\": " << closeSeconds
            << "}\n";
}
