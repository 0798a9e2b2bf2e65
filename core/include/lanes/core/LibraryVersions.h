#pragma once
// The libraries that plugins link, by version, for every report's provenance
// (lanes/monitor/Provenance.h): the core and the monitor know no library, the
// plugin that links one says which.
//
//   namespace {
//   lanes::RegisterLibraryVersion root("root_version", [] { return std::string(ROOT_RELEASE); });
//   }

#include <functional>
#include <map>
#include <string>

namespace lanes {

// Registration happens during static initialisation (single-threaded); after
// main() starts the registry is only read.
class LibraryVersions {
 public:
  static LibraryVersions& instance();

  // `key` names the library in a report (e.g. "root_version"); `version` is
  // asked when a report is made (after main() starts: the library is then
  // initialised).
  void add(std::string key, std::function<std::string()> version);
  std::map<std::string, std::string> versions() const;

 private:
  std::map<std::string, std::function<std::string()>> libraries_;
};

struct RegisterLibraryVersion {
  RegisterLibraryVersion(std::string key, std::function<std::string()> version) {
    LibraryVersions::instance().add(std::move(key), std::move(version));
  }
};

}  // namespace lanes
