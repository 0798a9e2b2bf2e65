#pragma once
// `lanes model`'s engine: an event-driven simulation that replays lanes' own
// scheduling rules (core/src/Lane.cpp, LimitedTaskQueue, the accelerator
// strategies of plugins/accel, the multi-process event distribution) for a
// menu on a layout, drawing every call's time from what the menu's run
// measured. Deterministic for a seed.
//
// What it replays: each lane's event, its paths as tasks (all but the first
// spawned), producers started on demand and run inline by the thread that
// needs them, waiters notified by the thread that completes what they wait
// for (last added first), `one`/`limited` queues that keep their slot while
// items wait and let it go before a call's continuation (what follows the
// module in its lane) runs, the shared source's serial
// queue, outputs after the paths, external work that holds no thread, and
// the emulated device's in-order queues, kernel slots, copy engines and
// completion strategies. Each worker thread runs its own last-spawned task
// first, then external work's completions, then steals the oldest task of
// another thread. With fewer cores than threads, busy calls share the cores
// (processor sharing); sleeping calls hold a thread only.
//
// Not replayed: memory bandwidth, caches, NUMA, SMT, the OS scheduler's
// latencies, oneTBB's own costs beyond the measured overhead per call,
// failures, run and lumi boundaries (see Simulation.cpp: admitEvent()).

#include "lanes/model/Menu.h"
#include "lanes/model/Prediction.h"

namespace lanes::model {

// Throws lanes::Exception for a layout the menu cannot run on (0 threads,
// 0 events).
Prediction simulate(Menu const& menu, Layout const& layout);

}  // namespace lanes::model
