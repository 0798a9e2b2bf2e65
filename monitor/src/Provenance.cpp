#include "lanes/monitor/Provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <ctime>
#include <fstream>

#include <tbb/version.h>

#include "lanes/core/LibraryVersions.h"

namespace lanes {

namespace {

std::string hostName() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return {};
  return name.data();
}

// The first "model name" of /proc/cpuinfo (x86; "Processor" or "cpu model"
// on some other architectures); empty when it names none.
std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    auto const colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    if (key != "model name" && key != "Processor" && key != "cpu model") continue;
    auto const value = line.find_first_not_of(" \t", colon + 1);
    return value == std::string::npos ? std::string() : line.substr(value);
  }
  return {};
}

std::string kernelName() {
  struct utsname name {};
  if (::uname(&name) != 0) return {};
  return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

std::string compilerVersion() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

std::string utcNow() {
  auto const now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

// A figure not known (empty, or 0) is null.
nlohmann::json known(std::string const& text) { return text.empty() ? nlohmann::json() : nlohmann::json(text); }
nlohmann::json known(unsigned count) { return count == 0 ? nlohmann::json() : nlohmann::json(count); }

}  // namespace

Provenance Provenance::current() {
  Provenance provenance;
  provenance.host = hostName();
  provenance.cpuModel = cpuModelName();
  auto const online = ::sysconf(_SC_NPROCESSORS_ONLN);
  provenance.logicalCores = online > 0 ? static_cast<unsigned>(online) : 0;
  provenance.kernel = kernelName();
  provenance.lanesVersion = LANES_VERSION;
  provenance.libraries = LibraryVersions::instance().versions();
  provenance.tbbVersion = std::string(TBB_runtime_version()) + " (headers " TBB_VERSION_STRING ")";
  provenance.compiler = compilerVersion();
  provenance.started = utcNow();
  return provenance;
}

nlohmann::json Provenance::toJson() const {
  nlohmann::json json{
      {"command", command},
      {"menu", menu.empty() ? nlohmann::json() : nlohmann::json{{"path", menu}, {"sha256", menuSha256}}},
      {"host", known(host)},
      {"cpu_model", known(cpuModel)},
      {"cores", {{"logical", known(logicalCores)}, {"physical", known(physicalCores)}}},
      {"numa_nodes", known(numaNodes)},
      {"kernel", known(kernel)},
      {"lanes_version", lanesVersion},
      {"git_commit", gitCommit.empty() ? nlohmann::json() : nlohmann::json{{"commit", gitCommit}, {"dirty", gitDirty}}}};
  for (auto const& [key, version] : libraries) json[key] = version;
  json["tbb_version"] = tbbVersion;
  json["compiler"] = compiler;
  json["started"] = known(started);
  return json;
}

}  // namespace lanes
