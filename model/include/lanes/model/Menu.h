#pragma once
// What `lanes model` replays: a job's schedule and the costs its calls had,
// read from the job's run report (its `schedule`, `call_times`, module totals,
// path report, and the `accel` section and accelerator modules' details when
// it ran on the emulated device).

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/ProcessingObserver.h"
#include "lanes/model/Distribution.h"

namespace lanes::model {

// What a prerequisite of a module is: a producer module, or a product of the source.
struct Prerequisite {
  bool fromSource = false;
  unsigned index = 0;      // the producer's index in Menu::modules, or the source product's
  unsigned announced = 0;  // the productReady() calls it brings an output that asks for them
};

// What one call of an accelerator module enqueues on the device, on average.
struct DeviceWork {
  double kernelSeconds = 0;
  unsigned copiesToDevice = 0;
  double toDeviceBytes = 0;  // all of the call's copies together
  bool toHost = false;       // its result is copied back (else it stays on the device)
  double toHostBytes = 0;
};

// Immutable after reading.
struct MenuModule {
  std::string label, plugin, kind, concurrency;
  unsigned limit = 0;  // calls at once: 1 for `one`, N for `limited`, 0 for no limit
  bool externalWork = false;
  bool productReady = false;  // an output that asks for productReady() calls
  bool output = false;
  bool sleeps = false;  // its calls' time is a thread's, not a core's (details {"work": "sleep"})
  double acceptance = 1;  // the share of the events it sees that it accepts
  Distribution event, acquire, announce, external;  // a call's, a productReady()'s, an external wait's
  std::optional<DeviceWork> device;  // an accelerator module on the device
  std::vector<Prerequisite> prerequisites;  // in the order the scheduler ensures them
};

struct MenuPath {
  std::string name;
  std::vector<unsigned> modules;
};

struct MenuOutput {
  unsigned module = 0;
  std::vector<unsigned> select;  // paths; empty: every event
};

// The five completion strategies of plugins/accel/Settings.h, by their names.
enum class Strategy { SyncSingle, SyncMulti, ExternalWorker, ExternalWorkerD2H, WaitingPool };

// The emulated device and the strategy (the report's `accel` section).
struct DeviceSettings {
  Strategy strategy = Strategy::ExternalWorker;
  unsigned slots = 4;
  double hostToDeviceBytesPerS = 12e9;
  double deviceToHostBytesPerS = 12e9;
  double launchSeconds = 5e-6;
  unsigned maxQueues = 0;  // 0: as many as the lanes need; sync-single: 1
  unsigned waitingThreads = 2;
  double sleepOvershoot = 0;  // what each copy and kernel took beyond its time (the emulated device's sleeps)
};

// Immutable value type: what a measured run gave, to set a prediction beside.
struct MeasuredPoint {
  unsigned threads = 0, lanes = 0, processes = 1;  // threads and lanes per process
  std::uint64_t events = 0;
  double eventsPerSecond = 0;
  double cpuSeconds = 0;
  std::string report;  // its path
};

// The point of a run report (single or multi-process) found at `path`.
MeasuredPoint measuredPoint(nlohmann::json const& report, std::string const& path);

// One event's calls as its run's trace recorded them (seconds; NaN: none):
// replayed together, they keep what the histograms lose, that an event slow
// in one module may be slow in all.
struct RecordedEvent {
  std::vector<float> event, acquire;  // by module
};

// Immutable after reading.
struct Menu {
  std::vector<MenuModule> modules;
  std::vector<MenuPath> paths;
  std::vector<MenuOutput> outputs;
  bool replicatedSource = true;
  SourceReads sourceReads = SourceReads::Inline;
  std::vector<unsigned> sourceConsumers;  // by source product: the modules that consume it
  Distribution sourceNext, sourceRead;
  std::optional<DeviceSettings> device;
  // CPU time outside the calls (scheduling, the OS's work for sleeping
  // calls), per call: the measured CPU less the busy calls' time, at most
  // kMaxOverheadPerCall (what is left over beyond that is taken for oneTBB's
  // spinning in idle threads, which takes no thread from work).
  double overheadPerCall = 0;
  std::vector<RecordedEvent> recorded;  // from the run's trace, if read: events replayed in turn
  MeasuredPoint measured;
  nlohmann::json provenance;  // the measured job's
};

inline constexpr double kMaxOverheadPerCall = 25e-6;

// Reads `report` (a run report of a single process, or a multi-process one,
// whose workers' schedule and call times it reads); `name` names it in errors.
// Throws lanes::Exception, in one line, for a report it cannot model: not a
// run report, one without a schedule and call times (an older lanes), a
// failed job, no events, a device other than the emulated one.
Menu readMenu(nlohmann::json const& report, std::string const& name);

// Reads the run's trace (`lanes run --trace`, a call per line) into
// `menu.recorded`: each event's calls by module label. Throws
// lanes::Exception, in one line, for a file that is no lanes trace or a trace
// of another job (none of its calls' modules is the menu's).
void readTrace(Menu& menu, std::string const& path);

char const* toString(Strategy strategy);

}  // namespace lanes::model
