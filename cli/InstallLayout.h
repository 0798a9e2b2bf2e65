#pragma once
// Where lanes finds its own files (the Python tools, the default job's
// product profile): an installed lanes (`cmake --install build --prefix P`,
// running as P/bin/lanes) in P/share/lanes, a lanes in its build tree in its
// source tree; the layout below either is the same (tools/, data/profiles/).
// Thread-safe: the answer is found once.

#include <string>

namespace lanes::cli {

// The path of `relative` ("tools/scan.py") among lanes' files.
std::string lanesFile(std::string const& relative);

}  // namespace lanes::cli
