#pragma once
// The names a file is written under until it is complete, in one place, so
// that whoever looks for leftovers (a new job, `lanes clean`) agrees with
// whoever writes them: "out.root" is written as "out.root.partial-PID" and
// renamed to "out.root" when complete; a killed job leaves its partial file.
// Free functions without state: thread-safe.

#include <optional>
#include <string>
#include <vector>

namespace lanes {

// "out.root", 1234 -> "out.root.partial-1234".
std::string partialPath(std::string const& path, long pid);

struct PartialName {
  std::string target;  // the file it was to become
  long pid = 0;        // the process that wrote it
};
// The inverse of partialPath(), or nothing for a name it did not make.
std::optional<PartialName> parsePartial(std::string const& path);

// Whether process `pid` runs (one of another user's counts; a zombie does not).
bool processAlive(long pid);

// The partial files of `path` and of its multi-process parts (partPath()
// with "worker-N") whose process is gone, sorted by name.
std::vector<std::string> stalePartials(std::string const& path);

}  // namespace lanes
