#pragma once
// The parent of a multi-process job merges its workers' hdf5 parts by
// appending each part's datasets, one part after another.

#include <string>
#include <vector>

#include "hdf5/Hdf5Writer.h"

namespace lanes::hdf5 {

// Writes at `path` a new file holding the events of every file of `parts`
// (hdf5 outputs of one job: the same layout and products), in that order.
// Takes lockLibrary(); throws lanes::Exception naming the part at fault.
void mergeFiles(std::vector<std::string> const& parts, std::string const& path, WriteSettings settings);

}  // namespace lanes::hdf5
