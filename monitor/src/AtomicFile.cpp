#include "lanes/monitor/AtomicFile.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "lanes/core/Exception.h"
#include "lanes/core/PathClaim.h"
#include "lanes/core/TemporaryName.h"

namespace lanes {

namespace {
// Removes the temporary and says why `path` could not be written; `error`
// is the errno of the failed call (a stream keeps no errno of its own, so it
// is read right after the call that failed).
[[noreturn]] void fail(std::string const& path, std::string const& temporary, int error) {
  std::remove(temporary.c_str());
  throw Exception("cannot write '" + path + "': " + std::strerror(error ? error : EIO));
}
}  // namespace

void writeAtomically(std::string const& path, std::function<void(std::ostream&)> const& write) {
  auto const temporary = partialPath(path, ::getpid());
  errno = 0;
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, temporary, errno);
  try {
    write(out);
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
  if (!out) fail(path, temporary, errno);  // the first failed write's errno: later writes are not attempted
  out.close();
  if (!out) fail(path, temporary, errno);
  try {
    commitFile(temporary, path);
  } catch (Exception const&) {
    std::remove(temporary.c_str());
    throw;
  }
}

}  // namespace lanes
