#pragma once
// The run report's `startup` (docs/reports.md): how long the process took
// from its start to its first event, phase by phase (lanes/core/StartupMarks.h).
//
// Externally synchronised by start-up: beginStartup() runs first thing in
// main(), before any thread; startupJson() after the job's first event.

#include <nlohmann/json.hpp>

namespace lanes::cli {

// Times the phases from now on, and notes how long the process took to get
// here (loading its libraries and their static initialisation).
void beginStartup();

// {loading_s (from the process's start, as the kernel stamps it, in its
// 10 ms ticks, to main()), phases: [{phase, s}] in order, to_first_event_s
// (loading_s and every phase up to the first event's end; absent if no event
// finished), main_clock_s (steady_clock at main(), CLOCK_MONOTONIC's seconds:
// a tool that started the process can time the loading itself)}.
nlohmann::json startupJson();

}  // namespace lanes::cli
