#include "lanes/monitor/Provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <ctime>
#include <fstream>
#include <utility>
#include <vector>

#include <tbb/version.h>

#include "lanes/core/LibraryVersions.h"

namespace lanes {

namespace {

std::string hostName() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return {};
  return name.data();
}

// The first processor's fields of /proc/cpuinfo, {key, value}, in order.
std::vector<std::pair<std::string, std::string>> firstProcessorInfo() {
  std::vector<std::pair<std::string, std::string>> fields;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line) && !line.empty();) {
    auto const colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    auto const value = line.find_first_not_of(" \t", colon + 1);
    fields.emplace_back(std::move(key), value == std::string::npos ? std::string() : line.substr(value));
  }
  return fields;
}

// "model name" (x86; "Processor" or "cpu model" on some other
// architectures); empty when it names none.
std::string cpuModelNameOf(std::vector<std::pair<std::string, std::string>> const& info) {
  for (auto const& [key, value] : info) {
    if (key == "model name" || key == "Processor" || key == "cpu model") return value;
  }
  return {};
}

// Which CPU within its model name, which a cloud's CPUs of several
// generations share ("AMD EPYC"): x86's family, model and stepping, or ARM's
// implementer, part and revision; empty when it names none.
std::string cpuIdentityOf(std::vector<std::pair<std::string, std::string>> const& info) {
  static constexpr std::array<std::pair<char const*, char const*>, 6> kFields{{{"cpu family", "family"},
                                                                            {"model", "model"},
                                                                            {"stepping", "stepping"},
                                                                            {"CPU implementer", "implementer"},
                                                                            {"CPU part", "part"},
                                                                            {"CPU revision", "revision"}}};
  std::string identity;
  for (auto const& [key, value] : info) {
    for (auto const& [field, name] : kFields) {
      if (key != field || value.empty()) continue;
      identity += (identity.empty() ? "" : " ") + std::string(name) + " " + value;
    }
  }
  return identity;
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
  auto const cpuinfo = firstProcessorInfo();
  provenance.cpuModel = cpuModelNameOf(cpuinfo);
  provenance.cpuIdentity = cpuIdentityOf(cpuinfo);
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
      {"cpu_id", known(cpuIdentity)},
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
