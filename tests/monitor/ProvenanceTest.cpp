// In lanes_monitor_json_tests: a binary without the plugins, so no library
// registers a version (lanes_tests, which links the ROOT plugins, checks
// root_version in RunReportTest).
#include "lanes/monitor/Provenance.h"

#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

namespace lanes {
namespace {

TEST(Provenance, DescribesThisProcess) {
  auto const provenance = Provenance::current();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_EQ(provenance.host, host);
  EXPECT_EQ(provenance.logicalCores, static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_EQ(provenance.kernel.rfind("Linux ", 0), 0u) << provenance.kernel;
#if defined(__x86_64__)
  // Which CPU of its model name: /proc/cpuinfo's family, model and stepping.
  EXPECT_EQ(provenance.cpuIdentity.rfind("family ", 0), 0u) << provenance.cpuIdentity;
  EXPECT_NE(provenance.cpuIdentity.find(" model "), std::string::npos) << provenance.cpuIdentity;
  EXPECT_NE(provenance.cpuIdentity.find(" stepping "), std::string::npos) << provenance.cpuIdentity;
#endif
  EXPECT_FALSE(provenance.lanesVersion.empty());
  EXPECT_NE(provenance.tbbVersion.find("(headers "), std::string::npos) << provenance.tbbVersion;
  ASSERT_EQ(provenance.started.size(), 20u) << provenance.started;  // 2025-01-31T12:34:56Z
  EXPECT_EQ(provenance.started[10], 'T');
  EXPECT_EQ(provenance.started.back(), 'Z');
  EXPECT_TRUE(provenance.libraries.empty()) << "no plugin in this binary registers a library";
}

TEST(Provenance, JsonNamesWhatIsNotKnownNull) {
  auto provenance = Provenance::current();
  auto json = provenance.toJson();
  std::set<std::string> keys;
  for (auto const& item : json.items()) keys.insert(item.key());
  EXPECT_EQ(keys, (std::set<std::string>{"command", "menu", "host", "cpu_model", "cpu_id", "cores", "numa_nodes",
                                         "kernel", "lanes_version", "git_commit", "tbb_version", "compiler",
                                         "started"}));
  EXPECT_TRUE(json["menu"].is_null());
  EXPECT_TRUE(json["git_commit"].is_null());
  EXPECT_TRUE(json["cores"]["physical"].is_null()) << "only the node layer knows";
  EXPECT_TRUE(json["numa_nodes"].is_null());
  EXPECT_EQ(json["cores"]["logical"], provenance.logicalCores);
}

TEST(Provenance, JsonHasWhatTheLayersAbove) {
  auto provenance = Provenance::current();
  provenance.command = {"lanes", "run", "--menu", "m.toml"};
  provenance.menu = "/work/m.toml";
  provenance.menuSha256 = "ab12";
  provenance.gitCommit = "0123456789abcdef0123456789abcdef01234567";
  provenance.gitDirty = true;
  provenance.physicalCores = 8;
  provenance.numaNodes = 2;
  provenance.libraries = {{"root_version", "6.40/00"}};
  auto const json = provenance.toJson();
  EXPECT_EQ(json["command"], nlohmann::json({"lanes", "run", "--menu", "m.toml"}));
  EXPECT_EQ(json["menu"], nlohmann::json({{"path", "/work/m.toml"}, {"sha256", "ab12"}}));
  EXPECT_EQ(json["git_commit"], nlohmann::json({{"commit", "0123456789abcdef0123456789abcdef01234567"}, {"dirty", true}}));
  EXPECT_EQ(json["cores"], nlohmann::json({{"logical", provenance.logicalCores}, {"physical", 8}}));
  EXPECT_EQ(json["numa_nodes"], 2);
  EXPECT_EQ(json["root_version"], "6.40/00");
}

}  // namespace
}  // namespace lanes
