#pragma once
// The generic `producer`: consumes products, costs time, puts synthetic products.

#include <utility>

#include "mimicry/MimicModule.h"
#include "mimicry/WorkMode.h"

namespace lanes::mimicry {

// Immutable after construction; called as Base's concurrency class says.
template <typename Base>
class MimicProducer final : public MimicModule<Base> {
 public:
  // Options: those of MimicModule, produces.<label>=BYTES, work=busy|sleep (default busy).
  template <typename... BaseArgs>
  explicit MimicProducer(PluginOptions const& options, BaseArgs&&... baseArgs)
      : MimicModule<Base>(options, std::forward<BaseArgs>(baseArgs)...), work_(readWorkMode(options, "work")) {
    this->declareProduced(options);
  }

  // Exactly one of the two overrides Base::produce: the const one for the
  // shared classes (global, limited), the other for stream and one.
  void produce(Event& event) const { run(event); }
  void produce(Event& event) { run(event); }
  std::string details() const override { return workDetails(work_); }

 private:
  void run(Event& event) const {
    spend(work_, this->cost(event));
    this->putProduced(event);
  }

  WorkMode work_;
};

}  // namespace lanes::mimicry
