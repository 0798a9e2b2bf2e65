#include "core/TestPlugins.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <thread>

#include <tbb/task_arena.h>

namespace lanes::test {

void spin(int iterations) {
  volatile double x = 1.0;
  for (int i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
}

namespace {

class CountSource : public Source {
 public:
  CountSource(Options const& options, Observations& observations)
      : observations_(&observations),
        events_(options.getInt("events", 20)),
        shared_(options.getBool("shared", false)),
        chunk_(static_cast<std::uint64_t>(options.getInt("chunk", 1))),
        failNextAt_(options.getInt("fail-next-at", -1)),
        failReadAt_(options.getInt("fail-read-at", -1)) {
    declare<int>("n");
    declare<SyntheticBytes>("blob");
  }
  bool next(SourceEvent& event) override {
    fetchedOn_ = std::this_thread::get_id();
    return at(next_++, event);
  }
  bool at(std::uint64_t ordinal, SourceEvent& event) override {
    if (static_cast<std::int64_t>(ordinal) >= events_) return false;
    if (static_cast<std::int64_t>(ordinal) + 1 == failNextAt_) throw std::runtime_error("corrupt entry");
    event.id = {1, 1, ordinal + 1};
    event.entry = ordinal;
    if (replica_) observations_->positioned(this, ordinal);
    return true;
  }
  std::uint64_t replicaChunk() const override { return chunk_; }
  void useReplicaChunk(std::uint64_t chunk) override { observations_->replicaChunk = chunk; }
  // One run, one lumi: the job need not read the ids ahead (which would record positions).
  std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) override {
    auto const end = static_cast<std::uint64_t>(events_);
    return ordinal < end ? LumiStretch{{1, 1}, 0, end} : LumiStretch{{1, 1}, end, end};
  }
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override {
    // A file source's read() is not reentrant: a second reader of this copy
    // is counted, and the window held open so that one would be seen.
    if (inRead_->fetch_add(1) != 0) observations_->overlappingReads++;
    for (int i = 0; i < 16; ++i) std::this_thread::yield();
    inRead_->fetch_sub(1);
    if (shared_ && std::this_thread::get_id() != fetchedOn_) observations_->readsOffTheFetchingThread++;
    if (static_cast<std::int64_t>(event.id.event) == failReadAt_) throw std::runtime_error("unreadable basket");
    if (product == 0) {
      slot.emplace(static_cast<int>(event.id.event), sizeof(int));
    } else {
      slot.emplace(SyntheticBytes{100}, 100);
    }
  }
  std::unique_ptr<Source> replicate() const override {
    if (shared_) return nullptr;
    auto copy = std::make_unique<CountSource>(*this);
    copy->next_ = 0;
    copy->replica_ = true;
    copy->inRead_ = std::make_shared<std::atomic<int>>(0);
    return copy;
  }
  std::string origin() const override { return "count.src"; }

 private:
  Observations* observations_;
  std::int64_t events_;
  bool shared_;
  std::uint64_t chunk_;
  bool replica_ = false;
  std::int64_t failNextAt_;
  std::int64_t failReadAt_;
  std::uint64_t next_ = 0;
  std::thread::id fetchedOn_;  // the thread of the last next()
  std::shared_ptr<std::atomic<int>> inRead_ = std::make_shared<std::atomic<int>>(0);  // readers inside read()
};

template <typename Base>
class Adder : public Base {
 public:
  Adder(std::string const& label, Options const& options, Observations& observations)
      : Base(label), observations_(observations), out_(this->template produces<int>(options.getString("out", label))) {
    for (auto const& in : options.getAll("in")) inputs_.push_back(this->template consumes<int>(in));
  }
  int sum(Event const& event) const {
    int total = 1;
    for (auto const& token : inputs_) total += event.get(token);
    return total;
  }
  ProductToken<int> out() const { return out_; }

 protected:
  Observations& observations_;
  ProductToken<int> out_;
  std::vector<ProductToken<int>> inputs_;
};

class GlobalAdder : public Adder<global::Producer> {
 public:
  using Adder::Adder;
  void produce(Event& event) const override {
    observations_.producerCalls++;
    observations_.log(label());
    event.put(out_, sum(event));
  }
};

class StreamAdder : public Adder<stream::Producer> {
 public:
  StreamAdder(std::string const& label, Options const& options, Observations& observations)
      : Adder(label, options, observations) {
    observations.streamInstances++;
  }
  void produce(Event& event) override {
    // Lane-confined: no other lane ever enters this instance.
    ++calls_;
    observations_.producerCalls++;
    event.put(out_, sum(event));
  }

 private:
  int calls_ = 0;
};

class OneProbe : public one::Analyzer {
 public:
  OneProbe(std::string const& label, Observations& observations) : Analyzer(label), observations_(observations) {}
  void analyze(Event const&) override {
    observations_.probe.enter();
    spin();
    observations_.probe.leave();
  }

 private:
  Observations& observations_;
};

template <typename Base>
class SharedProbe : public Base {
 public:
  template <typename... Args>
  SharedProbe(Observations& observations, Args&&... args) : Base(std::forward<Args>(args)...), observations_(observations) {}
  void analyze(Event const&) const override {
    observations_.probe.enter();
    spin();
    observations_.probe.leave();
  }

 private:
  Observations& observations_;
};

class EvenFilter : public global::Filter {
 public:
  EvenFilter(std::string const& label, Options const& options)
      : Filter(label), in_(consumes<int>(options.getString("in", "n"))) {}
  bool filter(Event& event) const override { return event.get(in_) % 2 == 0; }

 private:
  ProductToken<int> in_;
};

class Thrower : public global::Analyzer {
 public:
  Thrower(std::string const& label, Options const& options) : Analyzer(label), at_(options.getInt("at", 1)) {}
  void analyze(Event const& event) const override {
    if (static_cast<std::int64_t>(event.id().event) == at_) throw std::runtime_error("boom at " + event.id().str());
  }

 private:
  std::int64_t at_;
};

class External : public global::ExternalProducer {
 public:
  External(std::string const& label, Options const& options, Observations& observations)
      : ExternalProducer(label), observations_(observations), in_(consumes<int>("n")), out_(produces<int>(label)),
        failAt_(options.getInt("fail-at", -1)), dropAt_(options.getInt("drop-at", -1)) {}
  void acquire(Event const& event, Completion completion) const override {
    auto const number = static_cast<std::int64_t>(event.id().event);
    int value = event.get(in_);
    auto* result = &results_[event.lane()];
    // A plain std::thread: the completion arrives from outside oneTBB.
    std::thread([=, this] {
      *result = value * 10;
      if (number == failAt_) {
        completion.fail(std::make_exception_ptr(std::runtime_error("device failed")));
      } else if (number != dropAt_) {
        completion.done();
      }
    }).detach();
  }
  void produce(Event& event) const override {
    observations_.producerCalls++;
    event.put(out_, results_[event.lane()]);
  }

 private:
  Observations& observations_;
  ProductToken<int> in_;
  ProductToken<int> out_;
  std::int64_t failAt_;
  std::int64_t dropAt_;
  mutable std::array<int, 64> results_{};  // per lane: acquire and produce of a lane never overlap
};

class Collect : public global::Output {
 public:
  Collect(std::string const& label, Options const& options, Observations& observations)
      : Output(label), observations_(observations), ready_(options.getBool("ready", false)),
        in_(options.getString("in", "n")) {
    keep(options.getAll("keep"));
  }
  void beginJob(JobContext const& context) override {
    if (auto const* index = context.registry.find(in_)) index_ = *index;
  }
  bool wantsProductReady() const override { return ready_; }
  void productReady(Event const&, ProductIndex) const override { observations_.productReadyCalls++; }
  void write(Event const& event) const override {
    observations_.outputWrites++;
    if (event.has(index_)) observations_.checksum += *static_cast<int const*>(event.slot(index_).object());
  }
  void endJob() override { observations_.endJobConcurrency = tbb::this_task_arena::max_concurrency(); }
  void abandon() override { observations_.abandoned++; }

 private:
  Observations& observations_;
  bool ready_;
  std::string in_;
  ProductIndex index_ = 0;
};

}  // namespace

RunSummary runStoppingAfter(JobConfig const& config, PluginRegistry const& registry, int events) {
  struct Stopper : ProcessingObserver {
    EventProcessor* processor = nullptr;
    int after = 0;
    std::atomic<int> seen{0};
    void eventFinished(unsigned, EventId const&, EventStatus, Clock::time_point) override {
      if (++seen == after) processor->requestStop();
    }
  } stopper;
  EventProcessor processor(config, registry);
  stopper.processor = &processor;
  stopper.after = events;
  processor.addObserver(&stopper);
  return processor.run();
}

PluginRegistry testRegistry(Observations& observations) {
  PluginRegistry registry;
  auto* obs = &observations;
  registry.addSource({"count", ""}, [obs](Options const& o) { return std::unique_ptr<Source>(new CountSource(o, *obs)); });
  registry.addModule({"add", ""}, [obs](std::string const& l, Options const& o) {
    return std::unique_ptr<Module>(new GlobalAdder(l, o, *obs));
  });
  registry.addModule({"stream-add", ""}, [obs](std::string const& l, Options const& o) {
    return std::unique_ptr<Module>(new StreamAdder(l, o, *obs));
  });
  registry.addModule({"one-probe", ""}, [obs](std::string const& l, Options const&) {
    return std::unique_ptr<Module>(new OneProbe(l, *obs));
  });
  registry.addModule({"limited-probe", ""}, [obs](std::string const& l, Options const& o) {
    return std::unique_ptr<Module>(new SharedProbe<limited::Analyzer>(*obs, l, static_cast<unsigned>(o.getInt("limit", 2))));
  });
  registry.addModule({"global-probe", ""}, [obs](std::string const& l, Options const&) {
    return std::unique_ptr<Module>(new SharedProbe<global::Analyzer>(*obs, l));
  });
  registry.addModule({"even", ""}, [](std::string const& l, Options const& o) {
    return std::unique_ptr<Module>(new EvenFilter(l, o));
  });
  registry.addModule({"throw", ""}, [](std::string const& l, Options const& o) {
    return std::unique_ptr<Module>(new Thrower(l, o));
  });
  registry.addModule({"external", ""}, [obs](std::string const& l, Options const& o) {
    return std::unique_ptr<Module>(new External(l, o, *obs));
  });
  registry.addOutput({"collect", ""}, [obs](std::string const& l, Options const& o) {
    return std::unique_ptr<OutputModule>(new Collect(l, o, *obs));
  });
  return registry;
}

JobConfig job(std::string const& source) {
  JobConfig config;
  config.source = PluginSpec::parse(source);
  return config;
}

}  // namespace lanes::test
