#include "lanes/monitor/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {
[[noreturn]] void fail(std::string const& path, std::string const& what, int error) {
  ErrorContext context;
  context.file = path;
  throw Exception(what + ": " + std::strerror(error)).addContext(std::move(context));
}
}  // namespace

void writeAtomically(std::string const& path, std::function<void(std::ostream&)> const& write) {
  auto const temporary = path + ".tmp";
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, "cannot create '" + temporary + "'", errno);
  try {
    write(out);
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
  out.close();
  if (!out) {
    int const error = errno;
    std::remove(temporary.c_str());
    fail(path, "cannot write '" + temporary + "'", error);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    int const error = errno;
    std::remove(temporary.c_str());
    fail(path, "cannot rename '" + temporary + "'", error);
  }
}

}  // namespace lanes
