#pragma once
// `lanes pin`: runs a command confined to the PUs a pinning strategy picks.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "lanes/core/EventProcessor.h"
#include "lanes/node/Pinning.h"

namespace lanes::cli {

// `lanes run --pin STRATEGY`: the pinner that binds each thread of the job
// to its own PU of those STRATEGY picks on this machine (its
// pinCallingThread() is for EventProcessor::onThreadEntry), having said so
// on stdout; keep it alive until the job ends. Null for "none" or an empty
// STRATEGY. Throws lanes::Exception on an unknown strategy or too few PUs.
// In a multi-process job, worker `seat` of `seats` gets its own PUs, disjoint
// from the others'; seats == 0 (the parent before the fork) pins nothing.
std::unique_ptr<node::ThreadPinner> pinJobThreads(std::string const& strategy, EventProcessor const& processor,
                                                  unsigned seat = 0, unsigned seats = 1);

// The run report's `pinning` section: {strategy, pus, threads_pinned, error}.
nlohmann::json pinningReport(std::string const& strategy, node::ThreadPinner const& pinner);

// `exitCode` receives the command's exit status.
void addPinCommand(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
