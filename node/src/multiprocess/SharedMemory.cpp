#include "SharedMemory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lanes/core/Exception.h"

namespace lanes::node {

void systemError(std::string const& what) {
  throw Exception("multi-process job: " + what + ": " + std::strerror(errno));
}

int createSharedMemory(char const* name, std::size_t bytes, std::string const& what) {
  int const fd = ::memfd_create(name, 0);
  if (fd < 0) systemError("cannot create " + what);
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    ::close(fd);
    systemError("cannot size " + what);
  }
  return fd;
}

void* mapSharedMemory(int fd, std::size_t bytes, std::string const& what) {
  void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (address == MAP_FAILED) systemError("cannot map " + what);
  return address;
}

}  // namespace lanes::node
