#include "mimicry/LumiWork.h"

#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {

LumiCosts::LumiCosts(PluginOptions const& options)
    : event(options.nonNegative("time", 0)),
      beginLumi(options.nonNegative("begin-lumi", 0)),
      endLumi(options.nonNegative("end-lumi", 0)),
      work(readWorkMode(options, "work")) {}

GlobalLumiWork::GlobalLumiWork(std::string const& label, LumiCosts costs)
    : Analyzer(label), costs_(costs), events_(producesLumi<std::uint64_t>(label)) {}

void GlobalLumiWork::analyze(Event const& event) const {
  ++seen_[event];
  spend(costs_.work, costs_.event);
}

void GlobalLumiWork::beginLumi(Lumi const&) const { spend(costs_.work, costs_.beginLumi); }

void GlobalLumiWork::endLumi(Lumi& lumi) const {
  spend(costs_.work, costs_.endLumi);
  lumi.put(events_, seen_.total(lumi));
}

OneLumiWork::OneLumiWork(std::string const& label, LumiCosts costs)
    : Analyzer(label), costs_(costs), events_(producesLumi<std::uint64_t>(label)) {}

void OneLumiWork::analyze(Event const&) {
  ++seen_;
  spend(costs_.work, costs_.event);
}

void OneLumiWork::beginLumi(Lumi const&) {
  seen_ = 0;  // one lumi at a time: the job holds no other in flight
  spend(costs_.work, costs_.beginLumi);
}

void OneLumiWork::endLumi(Lumi& lumi) {
  spend(costs_.work, costs_.endLumi);
  lumi.put(events_, seen_);
}

namespace {
std::unique_ptr<Module> makeLumiWork(std::string const& label, Options const& raw) {
  PluginOptions const options(raw, "lumi-work");
  auto const concurrency = options.choice("concurrency", "global", {"global", "one"});
  LumiCosts const costs(options);
  if (concurrency == "one") return constructModule<OneLumiWork>(label, costs);
  return constructModule<GlobalLumiWork>(label, costs);
}

struct Registration {
  Registration() {
    PluginRegistry::instance().addModule(
        {"lumi-work",
         "what a lumi costs besides its events; puts the events it saw in each lumi as the lumi product LABEL: "
         "end-lumi=SECONDS, begin-lumi=SECONDS, time=SECONDS per event, work=busy|sleep, concurrency=global|one "
         "(one: watches lumis one at a time, and so holds the job to one lumi in flight)"},
        makeLumiWork);
  }
} const registration;
}  // namespace

}  // namespace lanes::mimicry
