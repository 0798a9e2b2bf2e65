#pragma once
// The parts of a job's outputs that its processes wrote, and what becomes
// of them at the end: merged into the final files when the job succeeded,
// removed otherwise. Used by every driver that splits a job into parts (the
// multi-process parent, rank 0 of an MPI job).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/EventProcessor.h"

namespace lanes::node {

struct PartsMerge {
  std::string error;    // why the merge failed; empty if it did not
  double seconds = 0;   // how long merging (or discarding) took
};

// Discards the `lost` parts and merges the `written` ones; if the job
// `failed`, or the merge fails, every part is discarded instead and nothing
// is left under the final names.
PartsMerge finishOutputParts(EventProcessor& processor, std::vector<std::string> written, std::vector<std::string> lost,
                             bool failed);

// The merged files as the outputs describe them, each with its label and
// the events its parts hold (summed over the parts' run reports; a module's
// index is the same in every part: they run one job). Failed outputs are
// listed with their error.
nlohmann::json describeMergedOutputs(EventProcessor const& processor, std::vector<nlohmann::json const*> const& partReports);

}  // namespace lanes::node
