#pragma once
// Writes a file so that it is either complete or absent: the content goes to
// `path.partial-PID`, which is renamed to `path` (lanes::commitFile(): it
// checks this job's claim on `path`, if it took one) only once it is fully
// written.

#include <functional>
#include <ostream>
#include <string>

namespace lanes {

// Throws lanes::Exception "cannot write 'PATH': CAUSE" when the file cannot
// be created, written, closed or renamed; the temporary is removed then.
void writeAtomically(std::string const& path, std::function<void(std::ostream&)> const& write);

}  // namespace lanes
