#pragma once
// Memory the processes of a multi-process job share: a memfd, inherited by a
// fork and passed by descriptor across an exec, mapped by every process.

#include <cstddef>
#include <string>

namespace lanes::node {

// Throws lanes::Exception "multi-process job: WHAT: <errno's text>".
[[noreturn]] void systemError(std::string const& what);

// A new memfd of `bytes` zero bytes, not close-on-exec (a worker started with
// exec, --no-fork, inherits it). `what` names it in errors ("the workers' board").
int createSharedMemory(char const* name, std::size_t bytes, std::string const& what);

// Maps `bytes` of `fd`, shared, for reading and writing.
void* mapSharedMemory(int fd, std::size_t bytes, std::string const& what);

}  // namespace lanes::node
