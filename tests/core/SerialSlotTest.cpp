// A `one` (or `limited`) module holds its queue's slot for its own call only:
// what follows it in the lane (its consumers, the event's end, the lane's
// next event) runs with the slot released, so that another lane's call of it
// can go ahead meanwhile. Holding the slot through the rest of the lane's
// event capped a 1 ms `one` analyzer beside 4 ms of other work at 8 lanes at
// 190 events/s instead of 1000.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "core/TestPlugins.h"
#include "lanes/core/ModuleTypes.h"

namespace lanes::test {
namespace {

// Counts its calls, shared by the modules of one job. Thread-safe.
struct Calls {
  std::mutex lock;
  std::condition_variable changed;
  int count = 0;
  void add() {
    std::lock_guard hold(lock);
    ++count;
    changed.notify_all();
  }
  // Whether `wanted` calls were made; gives up after a minute, which only a
  // deadlock lasts (nothing here is timed otherwise).
  bool awaited(int wanted) {
    std::unique_lock hold(lock);
    return changed.wait_for(hold, std::chrono::minutes(1), [&] { return count >= wanted; });
  }
};

class SerialProducer : public one::Producer {
 public:
  SerialProducer(std::string const& label, Calls& calls) : Producer(label), calls_(calls), out_(produces<int>(label)) {}
  void produce(Event& event) override {
    calls_.add();
    event.put(out_, 1);
  }

 private:
  Calls& calls_;
  ProductToken<int> out_;
};

// Consumes the serial product, then waits until every lane has called the
// serial producer: possible only if its slot was released meanwhile.
class WaitForEveryLane : public global::Analyzer {
 public:
  WaitForEveryLane(std::string const& label, Calls& calls, int lanes)
      : Analyzer(label), calls_(calls), lanes_(lanes), in_(consumes<int>("serial")) {}
  void analyze(Event const& event) const override {
    (void)event.get(in_);
    if (!calls_.awaited(lanes_)) throw std::runtime_error("the serial producer's slot was held through its consumer");
  }

 private:
  Calls& calls_;
  int lanes_;
  ProductToken<int> in_;
};

TEST(SerialSlotTest, AOneModuleReleasesItsSlotBeforeItsLaneGoesOn) {
  constexpr int kLanes = 2;
  Observations observations;
  Calls calls;
  auto registry = testRegistry(observations);
  registry.addModule({"serial", ""}, [&calls](std::string const& label, Options const&) {
    return std::unique_ptr<Module>(new SerialProducer(label, calls));
  });
  registry.addModule({"wait-for-every-lane", ""}, [&calls](std::string const& label, Options const&) {
    return std::unique_ptr<Module>(new WaitForEveryLane(label, calls, kLanes));
  });
  JobConfig config;
  config.source = PluginSpec::parse("count:events=8,chunk=1");
  config.threads = kLanes;
  config.lanes = kLanes;
  config.modules = {{"serial", PluginSpec::parse("serial")}, {"wait", PluginSpec::parse("wait-for-every-lane")}};
  EventProcessor processor(std::move(config), registry);
  auto const summary = processor.run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(calls.count, 8);
}

}  // namespace
}  // namespace lanes::test
