// The tutorial's runs-and-lumis example (examples/modules/LumiExample.cpp,
// core/README.md step 7) in a real job on the NanoAOD file: the histogram of
// each lumi and the count of each run are the same at one lane and at many
// lanes with several lumis in flight (the LumiSum cells merged), and add up
// to the file's muons and events. tests/examples/test_lumi_example.py checks
// the values against numpy, through two processes and a ROOT output.

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <numeric>
#include <vector>

#include "lanes/core/EventProcessor.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::examples {
namespace {

// What the job put: each lumi's histogram, each run's count. Thread-safe.
struct Put {
  std::mutex lock;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<double>> histograms;
  std::map<std::uint32_t, std::uint64_t> runEvents;
  std::uint64_t muons = 0;
};
Put* put = nullptr;  // the running test's

// Reads the example's lumi and run products as an output does, after each block's end.
class ProductsReader : public global::Output {
 public:
  ProductsReader(std::string label, Options const& options) : Output(std::move(label)) { keep(options.getAll("keep")); }
  void beginJob(JobContext const& context) override {
    histogram_ = LumiToken<std::vector<double>>(context.lumiRegistry->find("muonPt"));
    runEvents_ = RunToken<std::uint64_t>(context.runRegistry->find("runEvents"));
    pt_ = ProductToken<std::vector<float>>(context.registry.find("Muon_pt"));
  }
  void write(Event const& event) const override {
    std::lock_guard const hold(put->lock);
    put->muons += event.get(pt_).size();
  }
  void writeLumi(Lumi const& lumi) const override {
    std::lock_guard const hold(put->lock);
    put->histograms[{lumi.run(), lumi.luminosityBlock()}] = lumi.get(histogram_);
  }
  void writeRun(Run const& run) const override {
    std::lock_guard const hold(put->lock);
    put->runEvents[run.run()] += run.get(runEvents_);
  }

 private:
  LumiToken<std::vector<double>> histogram_;
  RunToken<std::uint64_t> runEvents_;
  ProductToken<std::vector<float>> pt_;
};
RegisterOutput<ProductsReader> const reader("test-example-products", "reads the lumi example's products");

void runExample(Put& into, unsigned threads, unsigned lanes, unsigned lumiSlots) {
  put = &into;
  JobConfig config;
  config.source = PluginSpec::parse(std::string("root:file=") + LANES_SOURCE_DIR +
                                    "/data/files/nanoAOD_2015_CMS_Open_Data_ttbar.root,branches=Muon_pt");
  config.modules = {{"muons", PluginSpec::parse("example-lumi-muons")}};
  config.outputs = {{"products", PluginSpec::parse("test-example-products:keep=Muon_pt"), {}}};
  config.threads = threads;
  config.lanes = lanes;
  config.concurrentLumis = lumiSlots;
  EventProcessor processor(config);
  auto const summary = processor.run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.lumis, 6u);
}

TEST(LumiExampleTest, EveryLanesCellIsMergedIntoItsLumisHistogramAndRunsCount) {
  Put serial, concurrent;
  runExample(serial, 1, 1, 1);
  runExample(concurrent, 2, 8, 3);
  ASSERT_EQ(serial.histograms.size(), 6u);
  EXPECT_EQ(concurrent.histograms, serial.histograms);
  EXPECT_EQ(concurrent.runEvents, serial.runEvents);
  EXPECT_EQ(serial.runEvents, (std::map<std::uint32_t, std::uint64_t>{{1, 200}}));
  double muons = 0;
  for (auto const& [lumi, histogram] : serial.histograms) {
    EXPECT_EQ(histogram.size(), 21u);
    muons += std::accumulate(histogram.begin(), histogram.end(), 0.0);
  }
  EXPECT_EQ(muons, static_cast<double>(serial.muons));
  EXPECT_GT(muons, 0);
}

}  // namespace
}  // namespace lanes::examples
