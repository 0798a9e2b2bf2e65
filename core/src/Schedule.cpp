#include "Schedule.h"

#include <algorithm>
#include <map>
#include <set>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include "Lane.h"
#include "lanes/core/Exception.h"
#include "lanes/core/OutputModule.h"
#include "lanes/core/RepeatingSource.h"
#include "lanes/core/detail/TbbHandOff.h"

namespace lanes::detail {

namespace {

[[noreturn]] void invalid(std::string const& message) { throw Exception(message); }

// repeat= caches its events in memory: more than this is a typo, not a job.
constexpr std::int64_t kMaxRepeat = 100'000'000;

// Thread-safe: oneTBB calls on_scheduler_entry from each thread entering the
// arena. Observes the one arena it is given from construction to destruction
// (a default-constructed observer would see only the calling thread's
// implicit arena, never the job's).
class ThreadEntryObserver : public tbb::task_scheduler_observer {
 public:
  ThreadEntryObserver(tbb::task_arena& arena, std::function<void()> const& hook)
      : tbb::task_scheduler_observer(arena), hook_(hook) {
    observe(true);
  }
  ~ThreadEntryObserver() override { observe(false); }
  void on_scheduler_entry(bool) override { hook_(); }

 private:
  std::function<void()> const& hook_;
};

// `make()`, noted as `runner`'s construction while it runs (RunningScope).
template <class Make>
auto constructing(RunnerName const& runner, Make&& make) {
  RunningScope const running(runner, Transition::Construction);
  return make();
}

}  // namespace

Schedule::Schedule(JobConfig config_, PluginRegistry const& plugins)
    : config(std::move(config_)), lanes(config.lanes ? config.lanes : std::max(1u, config.threads)), runs(lanes) {
  if (config.threads == 0) invalid("the number of threads must be at least 1");
  if (config.timingSample == 0) invalid("the timing sample must be at least 1 (one event in N timed)");
  if (config.concurrentLumis == 0) invalid("--concurrent-lumis must be at least 1 (lumis in flight at once)");
  if (config.concurrentRuns == 0) invalid("--concurrent-runs must be at least 1 (runs in flight at once)");
  conditions = std::make_unique<ConditionsService>(config.conditions, group);
  info.threads = config.threads;
  info.lanes = lanes;
  info.timingSample = config.timingSample;
  buildSource(plugins);
  buildModules(plugins);
  buildOutputs(plugins);
  resolveDependencies();
  countSourceConsumers();
  checkNoCycle();
  buildPaths();
  findSoleStarters();
  boundaries->build();
  info.lumisTracked = boundaries->tracking();
  info.concurrentLumis = boundaries->lumiSlots();
  info.concurrentRuns = boundaries->runSlots();
  info.lumisSerialisedBy = boundaries->lumisSerialisedBy();
  info.runsSerialisedBy = boundaries->runsSerialisedBy();
  describeSchedule();
  for (unsigned lane = 0; lane < lanes; ++lane) lanes_.push_back(std::make_unique<Lane>(*this, lane));
}

Schedule::~Schedule() = default;

std::vector<LaneActivity> Schedule::laneActivity() const {
  std::vector<LaneActivity> activity;
  if (!watched) return activity;
  for (auto const& lane : lanes_) activity.push_back(lane->activity());
  return activity;
}

void Schedule::describeSchedule() {
  for (unsigned m = 0; m < workers.size(); ++m) {
    auto const& worker = *workers[m];
    auto& module = info.modules[m];
    module.concurrencyLimit = worker.module().concurrencyLimit();
    module.externalWork = worker.module().hasExternalWork();
    module.productReady = worker.readyListener() != nullptr;
    for (unsigned k = 0; k < worker.prerequisites.size(); ++k) {
      auto const& prerequisite = worker.prerequisites[k];
      auto const announced = module.productReady ? static_cast<unsigned>(worker.productsOf[k].size()) : 0u;
      module.prerequisites.push_back({prerequisite.producer, prerequisite.product, announced});
    }
  }
  for (auto const& path : paths) info.paths.push_back({path.name, path.modules});
  for (auto const& output : outputs) info.outputs.push_back({output.worker, output.selectPaths});
  info.replicatedSource = replicatedSource;
  info.sourceReads = sourceReads();
}

void Schedule::buildSource(PluginRegistry const& plugins) {
  Options options = config.source.options;
  auto repeat = options.take("repeat");
  auto numbering = LumiNumbering::take(options, config.source.name);
  source = constructing(sourceRunner, [&] { return plugins.makeSource(config.source.name, options); });
  if (numbering && !repeat && !source->numbersByOrdinal()) {
    invalid("source '" + config.source.name +
            "': events-per-lumi=, lumis-per-run=, first-run= and lumi-seed= apply to sources whose events are "
            "numbered in order (empty, synthetic, test-products) and to repeat=: this source's runs and lumis "
            "come from its input");
  }
  boundaries = std::make_unique<Boundaries>(*this, std::move(numbering));
  if (repeat) {
    Options parsed;
    parsed.add("repeat", *repeat);
    auto events = parsed.getInt("repeat", 0);
    if (events <= 0 || events > kMaxRepeat) {
      invalid("source option 'repeat' must be a number of events from 1 to " + std::to_string(kMaxRepeat) + ", got '" +
              shortened(*repeat) + "'");
    }
    try {
      source = constructing(sourceRunner, [&] {
        return std::make_unique<RepeatingSource>(std::move(source), static_cast<std::size_t>(events));
      });
    } catch (...) {
      std::rethrow_exception(withContext(std::current_exception(), {"source", Transition::Construction, {}, {}, {}}));
    }
  }
  info.source = config.source.name;
  if (source->endless() && config.maxEvents == 0 && !config.endless) {
    invalid("source '" + config.source.name + (repeat ? ":repeat=" + *repeat : "") +
            "' never ends and -n is 0: give -n COUNT, or --endless to run until a signal stops the job");
  }
  info.expectedEvents = expectedEvents();
  replicaChunk = lanesRun(source->replicaChunk() > 1 ? source->replicaChunk() : kLeastRun, info.expectedEvents);
  source->useReplicaChunk(replicaChunk);
  spareReplica_ = constructing(sourceRunner, [&] { return source->replicate(); });
  replicatedSource = spareReplica_ != nullptr;
  if (!replicatedSource) replicaChunk = 1;
  inlineSourceReads = source->concurrentReads();
  for (auto const& description : source->products()) registry.add(description, kSourceProducer, "the source");
  for (auto const& description : source->runProducts()) runRegistry.add(description, kSourceProducer, "the source");
  for (auto const& description : source->lumiProducts()) lumiRegistry.add(description, kSourceProducer, "the source");
  sourceProducts = registry.size();
}

std::uint64_t Schedule::lanesRun(std::uint64_t sourceChunk, std::uint64_t events) const {
  // A file's cluster can hold all of a short job's events: runs that long
  // would leave every lane but one without an event.
  auto const share = events ? (events + lanes - 1) / lanes : sourceChunk;
  return std::max<std::uint64_t>(1, std::min(sourceChunk, share));
}

std::unique_ptr<Source> Schedule::takeReplica() {
  return spareReplica_ ? std::move(spareReplica_) : source->replicate();
}

void Schedule::addWorker(std::string const& label, std::string const& plugin,
                         std::vector<std::unique_ptr<Module>> instances) {
  for (auto const& worker : workers) {
    if (worker->label() == label) invalid("two modules are labelled '" + label + "'");
  }
  auto& module = *instances.front();
  info.modules.push_back({label, plugin, module.kind(), module.concurrency()});
  workers.push_back(std::make_unique<Worker>(plugin, std::move(instances), static_cast<int>(workers.size())));
}

void Schedule::buildModules(PluginRegistry const& plugins) {
  std::vector<ModuleSpec> specs = config.modules;
  // Waiters: one module per source product, or one for the whole event, each
  // on a path of its own so that they run concurrently within the event.
  for (auto const& waiter : config.waiters) {
    auto const& plugin = plugins.moduleInfo(waiter.name);
    if (plugin.role == PluginRole::Module) invalid("'" + waiter.name + "' is a module, not a waiter");
    if (plugin.role == PluginRole::Waiter) {
      specs.push_back({waiter.name, waiter});
      continue;
    }
    Options options = waiter.options;
    auto patterns = options.takeAll("products");
    std::set<std::string> unmatched(patterns.begin(), patterns.end());
    if (sourceProducts == 0) {
      // Its options are checked all the same (a bad value is refused as for
      // any waiter), then the waiter: it would never run.
      Options probe = options;
      probe.add("product", "(none)");
      RunnerName const runner{waiter.name.c_str(), waiter.name.c_str(), static_cast<int>(workers.size())};
      constructing(runner, [&] { return plugins.makeModule(waiter.name, waiter.name, probe); });
      invalid("waiter '" + waiter.name + "' has nothing to wait on: the source '" + config.source.name +
              "' has no products (leave the waiter out)");
    }
    for (std::size_t p = 0; p < sourceProducts; ++p) {
      auto const& product = registry[p].description.label;
      bool selected = patterns.empty();
      for (auto const& pattern : patterns) {
        if (!globMatch(pattern, product)) continue;
        selected = true;
        unmatched.erase(pattern);
      }
      if (!selected) continue;
      PluginSpec spec{waiter.name, options};
      spec.options.add("product", product);
      specs.push_back({waiter.name + "/" + product, std::move(spec)});
    }
    if (!unmatched.empty()) {
      invalid("waiter '" + waiter.name + "': products=" + *unmatched.begin() + " matches no product of the source");
    }
  }
  for (auto const& spec : specs) {
    RunnerName const runner{spec.label.c_str(), spec.plugin.name.c_str(), static_cast<int>(workers.size())};
    auto const make = [&] { return plugins.makeModule(spec.plugin.name, spec.label, spec.plugin.options); };
    std::vector<std::unique_ptr<Module>> instances;
    instances.push_back(constructing(runner, make));
    if (instances.front()->kind() == ModuleKind::Output) {
      invalid("module '" + spec.label + "' is an output: declare it with --output or [[output]]");
    }
    if (instances.front()->concurrency() == Concurrency::Stream) {
      while (instances.size() < lanes) {
        instances.push_back(constructing(runner, make));
      }
    }
    auto const index = static_cast<unsigned>(workers.size());
    // A stream module's instances each put their part of a run or lumi
    // product, merged: all declare it under the first one's index.
    for (auto [level, products] : {std::pair{Level::Event, &registry}, std::pair{Level::Run, &runRegistry},
                                   std::pair{Level::Lumi, &lumiRegistry}}) {
      products->registerProducts(*instances.front(), index, level);
      for (std::size_t i = 1; i < instances.size(); ++i) products->registerReplica(*instances[i], *instances.front(), level);
    }
    addWorker(spec.label, spec.plugin.name, std::move(instances));
  }
}

void Schedule::buildOutputs(PluginRegistry const& plugins) {
  for (auto const& spec : config.outputs) {
    RunnerName const runner{spec.label.c_str(), spec.plugin.name.c_str(), static_cast<int>(workers.size())};
    auto output = constructing(runner, [&] {
      return plugins.makeOutput(spec.plugin.name, spec.label, spec.plugin.options, {config.threads, lanes});
    });
    output->selectProducts(registry, &runRegistry, &lumiRegistry);
    for (auto level : {Level::Event, Level::Lumi, Level::Run}) {
      if (!output->produced(level).empty()) invalid("output '" + spec.label + "' must not produce products");
    }
    std::vector<std::unique_ptr<Module>> instances;
    instances.push_back(std::move(output));
    if (instances.front()->concurrency() == Concurrency::Stream) {
      invalid("output '" + spec.label + "' is a stream module; outputs are global, one or limited");
    }
    addWorker(spec.label, spec.plugin.name, std::move(instances));
  }
}

void Schedule::resolveDependencies() {
  for (unsigned m = 0; m < workers.size(); ++m) {
    auto& worker = *workers[m];
    for (auto& instance : worker.instances()) {
      registry.resolveConsumed(*instance);
      runRegistry.resolveConsumed(*instance, Level::Run);
      lumiRegistry.resolveConsumed(*instance, Level::Lumi);
      resolveConditions(*instance);
    }
    for (auto const& declaration : worker.module().conditionsConsumed()) worker.conditions.push_back(declaration.index);
    std::map<unsigned, std::size_t> byProducer;  // producer -> position in prerequisites
    for (auto const& declaration : worker.module().consumed()) {
      auto const product = declaration.index;
      auto const producer = registry[product].producer;
      if (producer == m) invalid("module '" + worker.label() + "' consumes its own product '" + declaration.label + "'");
      if (producer == kSourceProducer) {
        worker.prerequisites.push_back({producer, product});
        worker.productsOf.push_back({product});
        continue;
      }
      auto [it, added] = byProducer.try_emplace(producer, worker.prerequisites.size());
      if (added) {
        worker.prerequisites.push_back({producer, product});
        worker.productsOf.emplace_back();
      }
      worker.productsOf[it->second].push_back(product);
    }
    auto const& module = worker.module();
    if (module.concurrency() == Concurrency::One || module.concurrency() == Concurrency::Limited) {
      worker.gate = std::make_unique<LimitedTaskQueue>(group, module.concurrencyLimit());
    }
  }
}

void Schedule::resolveConditions(Module& module) const {
  for (auto& declaration : module.conditionsConsumed_) declaration.index = conditions->index(declaration.record, module.label());
}

void Schedule::countSourceConsumers() {
  sourceConsumers.assign(sourceProducts, 0);
  for (auto const& worker : workers) {
    for (auto const& prerequisite : worker->prerequisites) {
      if (prerequisite.producer == kSourceProducer) ++sourceConsumers[prerequisite.product];
    }
  }
  for (ProductIndex p = 0; p < sourceProducts; ++p) {
    if (sourceConsumers[p] > 0) consumedSourceProducts.push_back(p);
    if (sourceConsumers[p] > 1) sharedSourceProducts.push_back(p);
  }
  for (auto& worker : workers) {
    for (unsigned k = 0; k < worker->prerequisites.size(); ++k) {
      auto const& prerequisite = worker->prerequisites[k];
      if (prerequisite.producer == kSourceProducer && sourceConsumers[prerequisite.product] == 1) {
        worker->soloReads.push_back(k);
        worker->soloProducts.push_back(prerequisite.product);
      } else {
        worker->coordinated.push_back(k);
      }
    }
  }
}

void Schedule::checkNoCycle() const {
  enum class Mark { New, Active, Finished };
  std::vector<Mark> marks(workers.size(), Mark::New);
  std::vector<unsigned> stack;
  auto visit = [&](auto&& self, unsigned m) -> void {
    marks[m] = Mark::Active;
    stack.push_back(m);
    for (auto const& prerequisite : workers[m]->prerequisites) {
      if (prerequisite.producer == kSourceProducer) continue;
      unsigned const next = prerequisite.producer;
      if (marks[next] == Mark::Active) {
        std::string cycle;
        auto from = std::find(stack.begin(), stack.end(), next);
        for (auto it = from; it != stack.end(); ++it) cycle += "'" + workers[*it]->label() + "' -> ";
        invalid("dependency cycle: " + cycle + "'" + workers[next]->label() + "' (each consumes a product of the next)");
      }
      if (marks[next] == Mark::New) self(self, next);
    }
    stack.pop_back();
    marks[m] = Mark::Finished;
  };
  for (unsigned m = 0; m < workers.size(); ++m) {
    if (marks[m] == Mark::New) visit(visit, m);
  }
}

void Schedule::buildPaths() {
  std::map<std::string, unsigned> byLabel;
  for (unsigned m = 0; m < workers.size(); ++m) byLabel[workers[m]->label()] = m;
  std::set<unsigned> onPath;
  for (auto const& spec : config.paths) {
    Path path{spec.name, {}};
    for (auto const& label : spec.modules) {
      auto it = byLabel.find(label);
      if (it == byLabel.end()) invalid("path '" + spec.name + "' names module '" + label + "', which is not defined");
      if (workers[it->second]->output()) invalid("path '" + spec.name + "' names output '" + label + "'; outputs are not on paths");
      path.modules.push_back(it->second);
      onPath.insert(it->second);
    }
    paths.push_back(std::move(path));
  }
  // A filter or analyzer on no path (waiters, --module) runs on a path of its
  // own named after it; producers run on demand.
  for (unsigned m = 0; m < workers.size(); ++m) {
    auto const kind = workers[m]->module().kind();
    if ((kind == ModuleKind::Filter || kind == ModuleKind::Analyzer) && !onPath.count(m)) {
      paths.push_back({workers[m]->label(), {m}});
    }
  }
  std::map<std::string, unsigned> pathIndex;
  for (unsigned p = 0; p < paths.size(); ++p) {
    if (!pathIndex.emplace(paths[p].name, p).second) invalid("two paths are named '" + paths[p].name + "'");
  }
  for (std::size_t o = 0; o < config.outputs.size(); ++o) {
    OutputRoute route{static_cast<unsigned>(workers.size() - config.outputs.size() + o), {}};
    for (auto const& name : config.outputs[o].selectPaths) {
      auto it = pathIndex.find(name);
      if (it == pathIndex.end()) invalid("output '" + config.outputs[o].label + "' selects path '" + name + "', which is not defined");
      route.selectPaths.push_back(it->second);
    }
    outputs.push_back(std::move(route));
  }
}

// The places in a lane's event that start a module (Lane::ensure): a step of
// a path, a consumer's start, an output's route. A module with only one is
// started by it alone, with no claim that another could race.
void Schedule::findSoleStarters() {
  std::vector<unsigned> starters(workers.size(), 0);
  for (auto const& path : paths) {
    for (auto module : path.modules) ++starters[module];
  }
  for (auto const& worker : workers) {
    for (auto k : worker->coordinated) {
      if (auto const producer = worker->prerequisites[k].producer; producer != kSourceProducer) ++starters[producer];
    }
  }
  for (auto const& route : outputs) ++starters[route.worker];
  for (unsigned m = 0; m < workers.size(); ++m) workers[m]->soleStarter = starters[m] == 1;
}

RunSummary Schedule::run() {
  beginJob();
  auto summary = process({});
  endJob();
  if (jobFailed_ && !summary.failed) {
    summary.failed = true;
    summary.error = jobError_;
  }
  summary.configurationError = configurationError_;
  return summary;
}

void Schedule::beginJob() {
  if (step_ != Step::Constructed) throw Exception("a job runs once: construct a new EventProcessor to run again");
  step_ = Step::Begun;
  runJobTransition(Transition::BeginJob, Modules::AllButOutputs, {});
}

RunSummary Schedule::process(ProcessPart const& part) {
  if (step_ != Step::Begun) throw Exception("process() runs between beginJob() and endJob()");
  RunSummary summary;
  listen();
  for (auto* observer : observers) observer->jobStarted(info);
  startPart(part);
  // oneTBB caps its workers at the machine's cores unless told otherwise; a
  // job that asks for more threads (oversubscription studies) gets them.
  auto const threads = part.threads ? part.threads : config.threads;
  tbb::global_control const allowThreads(tbb::global_control::max_allowed_parallelism, threads);
  // A part's own arena: a worker forked after an earlier part must not
  // inherit one whose threads it does not have.
  arena = std::make_shared<tbb::task_arena>(static_cast<int>(threads));
  std::optional<ThreadEntryObserver> threadEntry;  // attaching initialises the arena
  if (threadEntryHook) threadEntry.emplace(*arena, threadEntryHook);
  // Outputs begin (and end, below) in the part's arena: one that hands work
  // to oneTBB from its calls (ROOT's implicit multi-threading, which attaches
  // to the arena it is enabled in) finds the job's threads there.
  if (!jobFailed_) {
    arena->execute([&] { runJobTransition(Transition::BeginJob, Modules::Outputs, part.name, part.sink); });
  }
  bool const started = !jobFailed_;
  if (started) {
    boundaries->start();
    tsanRelease(&arena);  // what was built so far, for the arena's threads (TbbHandOff.h)
    arena->execute([this] {
      tsanAcquire(&arena);
      // A lane is idle from here until its first event, however late its task runs.
      auto const since = timing() ? clock.now() : Clock::time_point{};
      for (auto& lane : lanes_) group.run(handedOver([lane = lane.get(), since] { lane->start(since); }, &group));
      group.wait();
      joined(&group);
      tsanRelease(&arena);
    });
    tsanAcquire(&arena);
    auto const counts = boundaries->finish();
    summary.runs = counts.runs;
    summary.lumis = counts.lumis;
    summary.repeatedRuns = counts.repeatedRuns;
    summary.repeatedLumis = counts.repeatedLumis;
    summary.emptyLumis = counts.emptyLumis;
    summary.conditions = conditions->summaries();
  }
  if (firstError_) failJob(describe(firstError_));
  // Outputs end in the part's arena: one that finishes its buffers in
  // parallel does so on the job's threads, not in a default arena's.
  arena->execute([&] { runJobTransition(Transition::EndJob, Modules::Outputs, part.name); });
  summary.failed = jobFailed_;
  summary.configurationError = configurationError_;
  summary.error = jobError_;
  if (started) {
    for (auto const& lane : lanes_) summary.eventsProcessed += lane->eventsDone();
  }
  summary.eventsSkipped = eventsSkipped.load();
  summary.runsStolen = runs.steals();
  summary.stopRequested = stopRequested.load();
  for (auto* observer : observers) observer->jobFinished();
  return summary;
}

void Schedule::listen() {
  callObservers.clear();
  waitObservers.clear();
  eventObservers.clear();
  blockObservers.clear();
  for (auto* observer : observers) {
    auto const hooks = observer->hooks();
    if (hooks & ProcessingObserver::kCalls) callObservers.push_back(observer);
    if (hooks & ProcessingObserver::kWaits) waitObservers.push_back(observer);
    if (hooks & ProcessingObserver::kEvents) eventObservers.push_back(observer);
    if (hooks & ProcessingObserver::kBlocks) blockObservers.push_back(observer);
  }
  clock = timing() ? FastClock::calibrated() : FastClock::steady();
  info.clock = clock;
}

void Schedule::endJob() {
  if (step_ != Step::Begun) throw Exception("endJob() runs once, after beginJob()");
  step_ = Step::Ended;
  runJobTransition(Transition::EndJob, Modules::AllButOutputs, {});
}

void Schedule::afterFork() {
  source->afterFork();
  for (auto& lane : lanes_) lane->afterFork();
}

void Schedule::beforeFork() {
  source->beforeFork();
  for (auto& lane : lanes_) lane->beforeFork();
}

void Schedule::startPart(ProcessPart const& part) {
  dispenser_ = part.events;
  wholeJob_ = part.name.empty();
  conditions->startPart();
  eventsSkipped.store(0);
  runs.clear(clock);
  if (!stopRequested.load()) {
    cancelled.store(jobFailed_);
    halted.store(jobFailed_);
  }
  if (!replicatedSource && !sourceQueue) sourceQueue = std::make_unique<LimitedTaskQueue>(group, 1);
}

void Schedule::runJobTransition(Transition transition, Modules which, std::string const& part, BatchSink* sink) {
  JobContext context{registry, lanes, config.threads, part};
  context.runRegistry = &runRegistry;
  context.lumiRegistry = &lumiRegistry;
  context.lastEventNumber = lastEventNumber();
  context.hasEventNumber = [this](std::uint64_t number) { return hasEventNumber(number); };
  context.ranWholeJob = [this] { return wholeJob_ && !jobFailed_ && !stopRequested.load(); };
  unsigned outputNumber = 0;
  for (auto& worker : workers) {
    if ((worker->output() != nullptr) != (which == Modules::Outputs)) continue;
    if (sink && worker->output()) {
      context.shipBatch = [sink, output = outputNumber](void const* bytes, std::size_t size) {
        sink->ship(output, bytes, size);
      };
      context.maxBatchBytes = sink->maxBatchBytes();
    }
    if (worker->output()) ++outputNumber;
    RunningScope const running(worker->runner(), transition);
    for (auto& instance : worker->instances()) {
      try {
        if (transition == Transition::BeginJob) {
          instance->beginJob(context);
        } else if (jobFailed_ && worker->output()) {
          worker->output()->abandon();  // a failed job leaves no output that looks complete
        } else {
          instance->endJob();
        }
      } catch (ConfigurationError const&) {
        if (!jobFailed_) configurationError_ = true;
        failJob(describe(withContext(std::current_exception(), {worker->label(), transition, {}, {}, {}})));
      } catch (...) {
        failJob(describe(withContext(std::current_exception(), {worker->label(), transition, {}, {}, {}})));
        // An output whose end failed drops what it wrote, as a failed job's do.
        if (transition == Transition::EndJob && worker->output()) worker->output()->abandon();
      }
    }
  }
}

std::uint64_t Schedule::expectedEvents() const {
  auto const count = source->eventCount();
  if (!count) return config.maxEvents;
  return config.maxEvents ? std::min(config.maxEvents, *count) : *count;
}

std::uint64_t Schedule::lastEventNumber() const { return source->numbersByOrdinal() ? expectedEvents() : 0; }

std::optional<bool> Schedule::hasEventNumber(std::uint64_t number) const {
  if (auto const last = lastEventNumber()) return number >= 1 && number <= last;
  auto const events = expectedEvents();  // 0: until the source ends
  if (events == 0 && source->endless()) return std::nullopt;
  auto copy = source->lookAhead();
  if (!copy) return std::nullopt;
  SourceEvent event;
  for (std::uint64_t ordinal = 0; (events == 0 || ordinal < events) && copy->at(ordinal, event); ++ordinal) {
    if (event.id.event == number) return true;
  }
  return false;
}

bool Schedule::readShared(std::uint64_t ordinal, SourceEvent& event) {
  auto& position = sharedSourcePosition;
  if (ordinal < position) throw std::logic_error("event dispenser went backwards: a shared source only moves forward");
  bool const more = source->skip(ordinal - position) && source->next(event);
  position = ordinal + 1;
  return more;
}

void Schedule::failJob(std::string error) {
  if (!jobFailed_) jobError_ = std::move(error);
  jobFailed_ = true;
}

void Schedule::fail(std::exception_ptr error) {
  std::call_once(failOnce_, [&] { firstError_ = error; });
  cancelled.store(true, std::memory_order_release);
  halted.store(true, std::memory_order_release);
}

}  // namespace lanes::detail
