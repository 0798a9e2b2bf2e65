#pragma once
// A module as the scheduler drives it: its instance(s), what it needs before
// it can run, and the gate that enforces its concurrency class.

#include <memory>
#include <string>
#include <vector>

#include "lanes/core/LimitedTaskQueue.h"
#include "lanes/core/Module.h"
#include "lanes/core/OutputModule.h"
#include "lanes/core/RunningNote.h"

namespace lanes::detail {

// Immutable after the schedule is built, except the modules themselves, whose
// calls follow their concurrency class (the gate queue serialises `one` and
// bounds `limited`).
class Worker {
 public:
  // `index`: the module's in JobInfo::modules.
  Worker(std::string plugin, std::vector<std::unique_ptr<Module>> instances, int index)
      : plugin_(std::move(plugin)),
        instances_(std::move(instances)),
        output_(dynamic_cast<OutputModule*>(instances_.front().get())),
        readyListener_(output_ && output_->wantsProductReady() ? output_ : nullptr),
        runner_{label().c_str(), plugin_.c_str(), index} {}

  Module& module(unsigned lane) { return *instances_[instances_.size() == 1 ? 0 : lane]; }
  Module const& module() const { return *instances_.front(); }
  std::vector<std::unique_ptr<Module>>& instances() { return instances_; }
  std::string const& label() const { return module().label(); }
  std::string const& plugin() const { return plugin_; }
  // How the thread's running note names it (RunningScope).
  RunnerName const& runner() const { return runner_; }
  OutputModule* output() const { return output_; }
  // The output to call productReady() on as prerequisites complete, if any.
  OutputModule* readyListener() const { return readyListener_; }

  // Calls into the module; exceptions propagate to the caller.
  bool callEvent(Event& event, unsigned lane) { return module(lane).doEvent(event); }
  void callAcquire(Event& event, unsigned lane, Completion completion) {
    module(lane).doAcquire(event, std::move(completion));
  }

  struct Prerequisite {
    unsigned producer;     // module index, or kSourceProducer
    ProductIndex product;  // for the source: which product; for modules: the first one consumed
  };
  // Distinct producer modules, then each consumed source product.
  std::vector<Prerequisite> prerequisites;
  // The prerequisites that are source products no other module consumes
  // (read for this module alone, in one batch, with nothing to coordinate),
  // their products, and the other prerequisites.
  std::vector<unsigned> soloReads;
  std::vector<ProductIndex> soloProducts;
  std::vector<unsigned> coordinated;
  // For outputs asking for productReady(): the kept products of each producer module.
  std::vector<std::vector<ProductIndex>> productsOf;
  std::unique_ptr<LimitedTaskQueue> gate;  // one/limited only
  // One place alone in a lane's event can start it (Schedule::findSoleStarters).
  bool soleStarter = false;
  std::vector<unsigned> conditions;         // the conditions records it reads (ConditionsService indices)

 private:
  std::string plugin_;
  std::vector<std::unique_ptr<Module>> instances_;
  OutputModule* output_;
  OutputModule* readyListener_;
  RunnerName const runner_;
};

}  // namespace lanes::detail
