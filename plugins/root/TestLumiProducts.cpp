#include "root/TestLumiProducts.h"

#include <algorithm>

#include "lanes/core/Event.h"
#include "lanes/core/PluginRegistry.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

void mergeInto(EventNumbers& into, EventNumbers const& from) {
  into.events += from.events;
  into.sum += from.sum;
  into.squares += from.squares;
}

void mergeInto(Unstorable& into, Unstorable const& from) { into.events += from.events; }

TestTrack trackOf(EventNumbers const& numbers) {
  TestTrack track;
  track.charge = static_cast<std::int32_t>(numbers.events);
  track.pt = numbers.sum;
  track.hits = {static_cast<float>(numbers.events)};
  track.algorithm = "lumi";
  return track;
}

void mergeInto(TestTrack& into, TestTrack const& from) {
  into.charge += from.charge;
  into.pt += from.pt;
  for (int i = 0; i < 3; ++i) into.covariance[i] += from.covariance[i];
  into.hits.resize(std::max(into.hits.size(), from.hits.size()));
  for (std::size_t i = 0; i < from.hits.size(); ++i) into.hits[i] += from.hits[i];
}

TestLumiProducts::TestLumiProducts(std::string label, Options const& options)
    : Analyzer(std::move(label)),
      unmergeable_(options.getBool("unmergeable", false)),
      unstorable_(options.getBool("unstorable", false)),
      lumiEvents_(producesLumi<std::uint64_t>("lumi_events")),
      lumiNumbers_(producesLumi<std::vector<double>>("lumi_numbers")),
      lumiTrack_(producesLumi<TestTrack>("lumi_track")),
      runEvents_(producesRun<std::uint64_t>("run_events")),
      runNumbers_(producesRun<std::vector<double>>("run_numbers")) {
  initialiseRoot();  // the user class's dictionary, for the outputs that store it
  if (unmergeable_) lumiName_ = producesLumi<std::string>("lumi_name");
  if (unstorable_) lumiOpaque_ = producesLumi<Unstorable>("lumi_opaque");
}

void TestLumiProducts::analyze(Event const& event) const {
  lumiSums_[event].add(event.id().event);
  runSums_[event].add(event.id().event);
}

void TestLumiProducts::endLumi(Lumi& lumi) const {
  auto const numbers = lumiSums_.total(lumi);
  lumi.put(lumiEvents_, numbers.events);
  lumi.put(lumiNumbers_, std::vector<double>{numbers.sum, numbers.squares});
  lumi.put(lumiTrack_, trackOf(numbers));
  if (unmergeable_) lumi.put(lumiName_, std::to_string(lumi.run()) + ":" + std::to_string(lumi.luminosityBlock()));
  if (unstorable_) lumi.put(lumiOpaque_, Unstorable{numbers.events});
}

void TestLumiProducts::endRun(Run& run) const {
  auto const numbers = runSums_.total(run);
  run.put(runEvents_, numbers.events);
  run.put(runNumbers_, std::vector<double>{numbers.sum, numbers.squares});
}

namespace {
RegisterModule<TestLumiProducts> const registration(
    "test-lumi-products",
    "run and lumi products (numbers, a vector, a user class) that are a function of the event numbers of their run "
    "or lumi, for tests to recompute after a round trip through a file's records: unmergeable=true adds lumi_name, "
    "a string, which cannot be merged; unstorable=true adds lumi_opaque, a class without a ROOT dictionary");
}

}  // namespace lanes::rootio
