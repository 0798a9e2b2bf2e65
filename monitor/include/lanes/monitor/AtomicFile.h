#pragma once
// Writes a file so that it is either complete or absent: the content goes to
// `path + ".tmp"`, which is renamed to `path` only once it is fully written.

#include <functional>
#include <ostream>
#include <string>

namespace lanes {

// Throws lanes::Exception "cannot write 'PATH': CAUSE" when the file cannot
// be created, written, closed or renamed; the temporary is removed then.
void writeAtomically(std::string const& path, std::function<void(std::ostream&)> const& write);

}  // namespace lanes
