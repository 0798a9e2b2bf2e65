#pragma once
// How a mimicry module spends its cost: burning CPU or sleeping.

#include <string>

#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

enum class WorkMode {
  Busy,   // burns the calling thread's CPU time (burnCpu)
  Sleep,  // sleeps: the thread is blocked, the core is free
};

// Reads option `key` (busy|sleep), defaulting to busy.
WorkMode readWorkMode(PluginOptions const& options, std::string const& key);

// Spends `seconds` in the given mode on the calling thread. Thread-safe.
void spend(WorkMode mode, double seconds);

// A module's details (Module::details()) that say how it spends its time,
// {"work": "busy"} or {"work": "sleep"}: `lanes model` counts a sleeping
// call's time as a thread's, not a core's.
std::string workDetails(WorkMode mode);

}  // namespace lanes::mimicry
