// ROOT's own floor for starting a job on a ROOT file: open FILE, take its
// TTree `Events` and read entry 0 of every branch, nothing else: no lanes, no
// framework, linked to ROOT's Core, RIO and Tree alone. bench/startup.py runs
// it against `lanes run -t 1 -n 1` on the same file.
//   build/bin/root_startup_floor FILE
// Prints one JSON line: the branches and bytes read, and steady_clock's
// reading (CLOCK_MONOTONIC, in seconds, comparable across processes) at
// main() and after each phase, so that the caller, which knows when it
// started the process, can tell the loading before main() from the rest.

#include <chrono>
#include <cstdio>
#include <memory>

#include <TBranch.h>
#include <TFile.h>
#include <TROOT.h>
#include <TTree.h>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  double const atMain = now();
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  ROOT::GetROOT();
  double const atRoot = now();
  std::unique_ptr<TFile> file(TFile::Open(argv[1], "READ"));
  if (!file || file->IsZombie()) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  double const atOpen = now();
  auto* tree = file->Get<TTree>("Events");
  if (!tree) {
    std::fprintf(stderr, "%s has no TTree Events\n", argv[1]);
    return 1;
  }
  double const atTree = now();
  long long bytes = 0;
  int branches = 0;
  for (auto* object : *tree->GetListOfBranches()) {
    bytes += static_cast<TBranch*>(object)->GetEntry(0);
    ++branches;
  }
  double const atFirstEvent = now();
  std::printf("{\"branches\": %d, \"bytes\": %lld, \"main\": %.6f, \"root\": %.6f, \"open\": %.6f, \"tree\": %.6f, "
              "\"first_event\": %.6f}\n",
              branches, bytes, atMain, atRoot, atOpen, atTree, atFirstEvent);
  return bytes > 0 ? 0 : 1;
}
