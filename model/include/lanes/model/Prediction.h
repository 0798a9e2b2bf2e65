#pragma once
// The layout a menu is simulated on (threads, lanes, processes, cores,
// devices, events) and what the simulation predicts for it, with the same
// figures a run report gives (Prediction.cpp turns one into the other).

#include <cstdint>
#include <string>
#include <vector>

#include "lanes/monitor/LogHistogram.h"

namespace lanes::model {

// Immutable value type: where the menu runs.
struct Layout {
  unsigned threads = 1;    // per process
  unsigned lanes = 0;      // per process; 0: as many as threads
  unsigned processes = 1;
  unsigned cores = 0;      // of the node, shared by every process's threads; 0: one per thread
  unsigned devices = 0;    // emulated devices, process p using device p % devices; 0: one per process
  std::uint64_t events = 1000;  // the job's, over all processes
  bool roundRobin = false;      // processes take every P-th event; else chunks from a shared queue
  std::uint64_t chunk = 10;     // the shared queue's chunks (events)
  std::uint64_t seed = 1;
  // How long an idle thread takes to take a task another spawned (the OS's
  // and oneTBB's wake-up): meanwhile the spawning thread may take it itself.
  double wakeLatency = 0;

  unsigned lanesPerProcess() const { return lanes ? lanes : threads; }
  unsigned totalThreads() const { return threads * processes; }
  unsigned totalCores() const { return cores ? cores : totalThreads(); }
};

// Immutable value type: one module's simulated calls, as a run report counts them.
struct ModulePrediction {
  std::uint64_t calls = 0;   // acquire and event calls
  std::uint64_t events = 0;  // event calls
  double totalSeconds = 0;   // their time, productReady() calls included
  double stallSeconds = 0;   // runnable, waiting for its queue and a thread
  double externalSeconds = 0;  // waiting for its external work, the acquire() calls taken out
};

// Immutable value type: how busy one serialising resource was: a `one` or
// `limited` module's queue, the shared source's, the device's kernel slots,
// copy engines and waiting pool, the cores, the threads. A module's queue is
// held a little longer than its calls take: while items wait, the thread
// that holds a slot runs the next one before anything else.
struct ResourceUse {
  std::string name;
  std::string kind;       // one, limited, source, kernel slots, copy engine, waiting pool, cores, threads
  unsigned capacity = 1;  // at once, over all processes
  double busySeconds = 0;  // its own work: calls, copies, kernels (slot-seconds)
  double heldSeconds = 0;  // a queue's slots held (slot-seconds); the busy time for the others
  double waitSeconds = 0;  // what the calls waited for a slot (a module's queue: its stall)
  bool queues = false;     // a module's queue: held and waited for

  double utilization(double wallSeconds) const { return share(busySeconds, wallSeconds); }
  double held(double wallSeconds) const { return share(queues ? heldSeconds : busySeconds, wallSeconds); }
  // Held nearly all the time, by calls that waited for it (a queue: half as
  // long as they ran, at least): the rate cannot grow past it.
  bool saturated(double wallSeconds, double threshold) const {
    return held(wallSeconds) >= threshold && (!queues || 2 * waitSeconds >= busySeconds);
  }

 private:
  double share(double seconds, double wallSeconds) const {
    return wallSeconds > 0 ? seconds / (capacity * wallSeconds) : 0.0;
  }
};

// Immutable value type.
struct PathPrediction {
  std::uint64_t accepted = 0;
  std::vector<std::uint64_t> rejectedAt;  // by step: the events its module at that step rejected
};

// Immutable value type: the simulated job's figures.
struct Prediction {
  Layout layout;
  std::uint64_t events = 0;
  double wallSeconds = 0;
  double cpuSeconds = 0;  // busy calls, spinning waits and the overhead between calls
  double sourceSeconds = 0;
  double outputsSeconds = 0;
  double overheadSeconds = 0;  // CPU between the calls
  std::vector<ModulePrediction> modules;  // indexed like Menu::modules
  std::vector<double> laneIdleSeconds;    // by lane (process after process): waiting for an event
  std::vector<PathPrediction> paths;      // indexed like Menu::paths
  LogHistogram eventTimes;                // each event's, from its source read to its end
  double longestEvent = 0;
  std::vector<ResourceUse> resources;
  double simulationSeconds = 0;  // what the simulation itself took

  double eventsPerSecond() const { return wallSeconds > 0 ? static_cast<double>(events) / wallSeconds : 0.0; }
  double cpuEfficiency() const {
    auto const threadSeconds = layout.totalThreads() * wallSeconds;
    return threadSeconds > 0 ? cpuSeconds / threadSeconds : 0.0;
  }
};

}  // namespace lanes::model
