// A worked example of runs and luminosity blocks (read with core/README.md,
// step 7): one global analyzer that fills a histogram of muon pT per lumi
// and counts the events of each run, and puts both at the block's end:
//
//   events ──analyze()──► a cell per lane and lumi (LumiSum) ──endLumi()──► lumi product "muonPt"
//          └────────────► a cell per lane and run  (RunSum)  ──endRun()───► run product "runEvents"
//
// An output writes them in its LuminosityBlocks and Runs trees.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::examples {

// 5 GeV bins from 0 to 100 GeV, and one for 100 GeV and above.
constexpr std::size_t kPtBins = 21;
constexpr double kPtBinWidth = 5.0;

// A histogram's counts, as one lane's cell of one lumi holds them. A cell is
// made as T{} (zero counts: a std::array has its size from the start, where
// a std::vector a lane never filled would be empty), and the framework
// merges the lanes' cells with the mergeInto() it finds beside the type.
struct PtCounts {
  std::array<double, kPtBins> bins{};
  friend void mergeInto(PtCounts& into, PtCounts const& from) {
    for (std::size_t b = 0; b < kPtBins; ++b) into.bins[b] += from.bins[b];
  }
};

// global: one instance for all lanes, so analyze() is const; the per-lumi
// and per-run state lives in LumiSum/RunSum cells, one per lane and block in
// flight, so no lane waits for a lock and none races another.
class LumiMuonPt : public global::Analyzer {
 public:
  LumiMuonPt(std::string label, Options const& options)
      : Analyzer(std::move(label)),
        pt_(consumes<std::vector<float>>(options.getString("pt", "Muon_pt"))),
        histogram_(producesLumi<std::vector<double>>("muonPt")),
        runEvents_(producesRun<std::uint64_t>("runEvents")) {}

  void analyze(Event const& event) const override {
    auto& counts = histograms_[event];  // this lane's cell of the event's lumi
    for (float pt : event.get(pt_)) ++counts.bins[binOf(pt)];
    ++eventsOfRun_[event];
  }
  // Once every event of the lumi (run) has finished: the cells merged.
  void endLumi(Lumi& lumi) const override {
    auto const total = histograms_.total(lumi);
    lumi.put(histogram_, std::vector<double>(total.bins.begin(), total.bins.end()), sizeof total.bins);
  }
  void endRun(Run& run) const override { run.put(runEvents_, eventsOfRun_.total(run)); }

 private:
  static std::size_t binOf(float pt) {
    auto const bin = static_cast<double>(pt) / kPtBinWidth;
    return bin >= kPtBins - 1 ? kPtBins - 1 : static_cast<std::size_t>(bin > 0 ? bin : 0);
  }

  ProductToken<std::vector<float>> pt_;
  LumiToken<std::vector<double>> histogram_;
  RunToken<std::uint64_t> runEvents_;
  LumiSum<PtCounts> histograms_{*this};
  RunSum<std::uint64_t> eventsOfRun_{*this};
};

namespace {
RegisterModule<LumiMuonPt> const lumiMuonPt(
    "example-lumi-muons",
    "example: a histogram of muon pT per lumi (lumi product muonPt: 5 GeV bins from 0, the last 100 GeV and above) "
    "and the events of each run (run product runEvents): pt=LABEL (Muon_pt)");
}  // namespace

}  // namespace lanes::examples
