#include "lanes/monitor/TraceMerge.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"

namespace lanes {
namespace {

std::string tempPath(std::string const& name) { return testing::TempDir() + "lanes-merge-" + name; }

// A part as TraceRecorder writes it: the origin in the first line, an event per line.
void writePart(std::string const& path, std::int64_t originNs, int pid) {
  std::ofstream out(path);
  out << "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"clock_origin_ns\": " << originNs << "}, \"traceEvents\": [\n"
      << R"({"ph":"M","name":"process_name","pid":)" << pid << R"(,"tid":0,"args":{"name":"lanes"}})" << ",\n"
      << R"({"ph":"X","name":"tracks","cat":"event","ts":10,"dur":5,"pid":)" << pid << R"(,"tid":1})" << ",\n"
      << R"({"ph":"M","name":"thread_name","pid":)" << pid << R"(,"tid":1,"args":{"name":"thread 7"}})" << "\n]}\n";
}

nlohmann::json merged(std::string const& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(TraceMerge, PutsEveryPartOnTheParentsClockUnderItsOwnTrack) {
  auto const one = tempPath("one.json"), two = tempPath("two.json"), out = tempPath("out.json");
  writePart(one, 1'000'000, 111);    // started 1 ms after the parent
  writePart(two, 3'000'000, 99999);  // 3 ms after; its pid is the part's, not the file's
  mergeTraces(out, {0, 10, {{one, 11, "worker-0"}, {two, 12, "worker-1"}, {tempPath("none"), 13, "worker-2"}},
                    {{"merge the parts", 4'000'000, 4'500'000}}});
  std::map<int, std::string> names;
  std::map<int, double> calls;
  std::vector<nlohmann::json> notes, work;
  auto const trace = merged(out);
  for (auto const& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "process_name") {
      EXPECT_TRUE(names.emplace(event.at("pid").get<int>(), event.at("args").at("name")).second) << event;
    }
    if (event.at("ph") == "X" && event.at("cat") == "event") calls[event.at("pid").get<int>()] = event.at("ts").get<double>();
    if (event.at("ph") == "X" && event.at("cat") == "parent") work.push_back(event);
    if (event.at("ph") == "i") notes.push_back(event);
  }
  EXPECT_EQ(names, (std::map<int, std::string>{{10, "lanes parent (pid 10)"}, {11, "worker-0 (pid 11)"},
                                               {12, "worker-1 (pid 12)"}, {13, "worker-2 (pid 13)"}}));
  EXPECT_EQ(calls, (std::map<int, double>{{11, 1010.0}, {12, 3010.0}}));  // µs on the parent's clock
  ASSERT_EQ(work.size(), 1u);
  EXPECT_EQ(work[0].at("pid"), 10);
  EXPECT_EQ(work[0].at("ts"), 4000.0);
  EXPECT_EQ(work[0].at("dur"), 500.0);
  ASSERT_EQ(notes.size(), 1u);  // the part that was never written
  EXPECT_EQ(notes[0].at("name"), "worker-2 wrote no trace");
  for (auto const& path : {one, two, out}) std::filesystem::remove(path);
}

// An MPI job's: the parent is rank 0, whose own part shares its track; a part
// from another host comes with its clock's offset to the parent's.
TEST(TraceMerge, MovesAPartOfAnotherClockByItsOffsetAndNamesTheParentsTrack) {
  auto const mine = tempPath("rank0.json"), other = tempPath("rank1.json"), out = tempPath("ranks.json");
  writePart(mine, 2'000'000, 10);
  writePart(other, 50'000'000, 11);  // its clock runs 49 ms ahead of the parent's
  TraceMergeInput input{1'000'000, 10, {{mine, 10, "rank 0"}, {other, 11, "rank 1", -49'000'000}}, {}, "rank 0"};
  mergeTraces(out, input);
  std::map<int, std::string> names;
  std::map<int, double> calls;
  auto const trace = merged(out);
  for (auto const& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "process_name") {
      EXPECT_TRUE(names.emplace(event.at("pid").get<int>(), event.at("args").at("name")).second) << event;
    }
    if (event.at("ph") == "X" && event.at("cat") == "event") calls[event.at("pid").get<int>()] = event.at("ts").get<double>();
  }
  EXPECT_EQ(names, (std::map<int, std::string>{{10, "rank 0 (pid 10)"}, {11, "rank 1 (pid 11)"}}));
  EXPECT_EQ(calls, (std::map<int, double>{{10, 1010.0}, {11, 10.0}}));  // µs after the parent's origin
  for (auto const& path : {mine, other, out}) std::filesystem::remove(path);
}

TEST(TraceMerge, APartThatIsNotATraceFailsNamingItAndLeavesNoFile) {
  auto const part = tempPath("garbage.json"), out = tempPath("failed.json");
  std::ofstream(part) << "not a trace\n";
  try {
    mergeTraces(out, {0, 10, {{part, 11, "worker-0"}}, {}});
    FAIL() << "expected lanes::Exception";
  } catch (Exception const& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
  std::filesystem::remove(part);
}

}  // namespace
}  // namespace lanes
