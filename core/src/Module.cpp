#include "lanes/core/Module.h"

namespace lanes {

char const* toString(ModuleKind kind) {
  switch (kind) {
    case ModuleKind::Producer: return "producer";
    case ModuleKind::Filter: return "filter";
    case ModuleKind::Analyzer: return "analyzer";
    case ModuleKind::Output: return "output";
  }
  return "?";
}

char const* toString(Concurrency concurrency) {
  switch (concurrency) {
    case Concurrency::Global: return "global";
    case Concurrency::Stream: return "stream";
    case Concurrency::One: return "one";
    case Concurrency::Limited: return "limited";
  }
  return "?";
}

namespace detail {
void setTransitions(Module& module, unsigned bits) { module.transitions_ = bits; }
}  // namespace detail

std::string partPath(std::string const& path, std::string const& part) {
  if (part.empty()) return path;
  // The part goes before the extension, if the file name has one.
  auto const slash = path.find_last_of('/');
  auto const nameStart = slash == std::string::npos ? 0 : slash + 1;
  auto const dot = path.find_last_of('.');
  bool const hasExtension = dot != std::string::npos && dot > nameStart;
  auto const stem = hasExtension ? path.substr(0, dot) : path;
  auto const extension = hasExtension ? path.substr(dot) : std::string();
  return stem + "." + part + extension;
}

}  // namespace lanes
