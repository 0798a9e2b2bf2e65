#include "lanes/core/LibraryVersions.h"

namespace lanes {

LibraryVersions& LibraryVersions::instance() {
  static LibraryVersions libraries;
  return libraries;
}

void LibraryVersions::add(std::string key, std::function<std::string()> version) {
  libraries_[std::move(key)] = std::move(version);
}

std::map<std::string, std::string> LibraryVersions::versions() const {
  std::map<std::string, std::string> versions;
  for (auto const& [key, version] : libraries_) versions[key] = version();
  return versions;
}

}  // namespace lanes
