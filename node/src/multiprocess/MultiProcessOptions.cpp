#include "lanes/node/MultiProcessJob.h"

#include "lanes/core/Exception.h"

namespace lanes::node {

OutputMode parseOutputMode(std::string const& name) {
  if (name == "merge") return OutputMode::Merge;
  if (name == "shared-writer") return OutputMode::SharedWriter;
  throw Exception("--output-mode must be 'merge' or 'shared-writer', not '" + name + "'");
}

char const* toString(OutputMode mode) { return mode == OutputMode::Merge ? "merge" : "shared-writer"; }

void validate(MultiProcessOptions const& options) {
  if (options.processes < 1) throw Exception("--processes must be at least 1");
  if (options.outputMode == OutputMode::SharedWriter && options.retryLost) {
    // The batches a crashed worker shipped are in the output already; its
    // replacement would write those events again.
    throw Exception("--output-mode shared-writer cannot take --retry-lost: a crashed worker's batches are already "
                    "written, and its replacement would write them twice");
  }
  if (options.chunk < 1) throw Exception("--chunk must be at least 1");
  if (!options.fork && options.eventsBeforeFork) {
    throw Exception("--events-before-fork needs forked workers: with --no-fork there is no fork");
  }
}

void validate(MultiProcessOptions const& options, EventProcessor const& processor) {
  validate(options);
  if (options.outputMode == OutputMode::SharedWriter) requireOutputsThatShareAWriter(processor);
}

void requireOutputsThatShareAWriter(EventProcessor const& processor) {
  auto const refusals = processor.sharedWriterRefusals();
  if (refusals.empty()) return;
  std::string names;
  for (auto const& refusal : refusals) names += (names.empty() ? "" : ", ") + refusal;
  throw Exception("--output-mode shared-writer: output " + names +
                  " cannot ship batches to a shared writer (the root and parallel-root outputs can); use --output-mode merge");
}

}  // namespace lanes::node
