// The ROOT outputs under contention (more lanes than threads, several
// outputs at once, parallel outputs with fewer buffers than lanes), read back
// with ROOT's own readers: every event exactly once, with its values. A
// failed job leaves no file behind.

#include <gtest/gtest.h>

#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <TFile.h>
#include <TTree.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/OutputSupport.h"
#include "root/SerializeOutput.h"

namespace lanes::rootio::test {
namespace {

using mimicry::test::expectMentions;
using mimicry::test::optionsOf;

using JetPts = std::map<std::uint64_t, std::vector<float>>;  // by event number

JetPts jetPtsOfTree(std::string const& path, bool arrays) {
  TFile file(path.c_str());
  auto* tree = file.Get<TTree>("Events");
  if (!tree) return {};
  ULong64_t event = 0;
  UInt_t nJet = 0;
  std::vector<float> leafArray(1000);
  std::vector<float>* vector = nullptr;
  tree->SetBranchAddress("event", &event);
  if (arrays) {
    tree->SetBranchAddress("nJet", &nJet);
    tree->SetBranchAddress("Jet_pt", leafArray.data());
  } else {
    tree->SetBranchAddress("Jet_pt", &vector);
  }
  JetPts values;
  for (Long64_t entry = 0; entry < tree->GetEntries(); ++entry) {
    tree->GetEntry(entry);
    auto const inserted =
        values.emplace(event, arrays ? std::vector<float>(leafArray.begin(), leafArray.begin() + nJet) : *vector).second;
    EXPECT_TRUE(inserted) << "event " << event << " written twice to " << path;
  }
  tree->ResetBranchAddresses();
  delete vector;
  return values;
}

JetPts jetPtsOfNtuple(std::string const& path) {
  auto reader = ROOT::RNTupleReader::Open("Events", path);
  auto event = reader->GetView<std::uint64_t>("event");
  auto pt = reader->GetView<std::vector<float>>("Jet_pt");
  JetPts values;
  for (auto entry : reader->GetEntryRange()) {
    EXPECT_TRUE(values.emplace(event(entry), pt(entry)).second) << "event " << event(entry) << " written twice";
  }
  return values;
}

TEST(RootOutputsTest, EveryOutputOfOneJobHoldsEveryEventOnceWithItsValues) {
  ScratchDirectory scratch;
  auto const config = rootJob("root:file=" + dataFile(kNanoAod),
                              {"root:file=" + scratch.path("tree.root") + ",writer=serial",
                               "root:file=" + scratch.path("imt.root") + ",imt=true,compression=lz4,level=4",
                               "root:file=" + scratch.path("chosen.root"),  // parallel, a buffer per thread
                               "parallel-root:file=" + scratch.path("merged.root") + ",concurrency=2,flush=7",
                               "rntuple:file=" + scratch.path("serial.ntuple"),
                               "rntuple-parallel:file=" + scratch.path("parallel.ntuple") + ",concurrency=3",
                               // Clusters of a few events: many flush tasks, running while writes fill other contexts.
                               "rntuple-parallel:file=" + scratch.path("flushed.ntuple") +
                                   ",concurrency=2,flush=framework,cluster=200000"},
                              /*threads=*/4, /*lanes=*/8);
  EventProcessor processor(config);
  auto const summary = processor.run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 200u);

  auto const input = jetPtsOfTree(dataFile(kNanoAod), /*arrays=*/true);
  ASSERT_EQ(input.size(), 200u);
  for (auto const* name : {"tree.root", "imt.root", "chosen.root", "merged.root"}) {
    EXPECT_EQ(jetPtsOfTree(scratch.path(name), false), input) << name;
  }
  for (auto const* name : {"serial.ntuple", "parallel.ntuple", "flushed.ntuple"}) {
    EXPECT_EQ(jetPtsOfNtuple(scratch.path(name)), input) << name;
  }
  EXPECT_EQ(scratch.files(), (std::vector<std::string>{"chosen.root", "flushed.ntuple", "imt.root", "merged.root",
                                                       "parallel.ntuple", "serial.ntuple", "tree.root"}))
      << "no temporary file is left";

  std::vector<std::string> writers;  // of the TTree outputs, in their order: "WRITER BUFFERS"
  for (auto const& text : processor.moduleDetails()) {
    auto const details = nlohmann::json::parse(text);
    if (details.contains("writer")) {
      writers.push_back(details["writer"].get<std::string>() + " " + details.value("buffers", nlohmann::json(0)).dump());
    }
    EXPECT_EQ(details["events_written"], 200) << text;
    EXPECT_EQ(details["committed"], true) << text;
    EXPECT_GT(details["bytes"].get<std::uint64_t>(), 0u) << text;
    if (details.contains("flush_tasks")) {
      EXPECT_GT(details["flush_tasks"].get<std::uint64_t>(), 1u) << text;
    }
  }
  EXPECT_EQ(writers, (std::vector<std::string>{"serial 0", "serial 0", "parallel 4", "parallel 2"}));
}

// `root` fills one TTree an event at a time in a job of one thread or one
// lane, and TBufferMerger buffers from several events at once in a job of
// more (a buffer per thread that can write); writer= chooses either, and
// the options of one writer choose it or are refused with the other.
TEST(RootOutputsTest, TheRootOutputsWriterFollowsTheJobUnlessChosen) {
  auto const made = [](std::string const& options, unsigned threads, unsigned lanes) -> std::string {
    try {
      auto const output = PluginRegistry::instance().makeOutput("root", "out", optionsOf("file=/tmp/x.root" + options),
                                                                {threads, lanes});
      if (output->concurrency() == Concurrency::One) return "serial";
      EXPECT_EQ(output->concurrency(), Concurrency::Limited);
      return "parallel " + std::to_string(output->concurrencyLimit());
    } catch (Exception const& error) {
      return error.what();
    }
  };
  struct Case {
    char const* options;
    unsigned threads, lanes;
    char const* writer;
  };
  for (auto const& [options, threads, lanes, writer] : std::vector<Case>{
           {"", 1, 1, "serial"},
           {"", 1, 4, "serial"},
           {"", 2, 1, "serial"},
           {"", 2, 2, "parallel 2"},
           {"", 8, 4, "parallel 4"},
           {"", 64, 128, "parallel 64"},
           {",writer=serial", 4, 4, "serial"},
           {",imt=true", 4, 4, "serial"},
           {",autoflush=1000", 4, 4, "serial"},
           {",writer=parallel", 1, 1, "parallel 1"},
           {",concurrency=3", 1, 1, "parallel 3"},
           {",writer=parallel,concurrency=3,flush=7", 4, 4, "parallel 3"}}) {
    EXPECT_EQ(made(options, threads, lanes), writer)
        << options << " at " << threads << " threads, " << lanes << " lanes";
  }
  expectMentions(made(",writer=parallel,imt=true", 4, 4), {"'imt'", "serial writer"});
  expectMentions(made(",concurrency=2,autoflush=100", 4, 4), {"'autoflush'", "serial writer"});
  expectMentions(made(",writer=serial,concurrency=2", 4, 4), {"'concurrency'", "parallel writer"});
  expectMentions(made(",writer=both", 4, 4), {"writer", "both"});
}

TEST(RootOutputsTest, AFailedJobLeavesNoFile) {
  ScratchDirectory scratch;
  auto config = rootJob("root:file=" + dataFile(kNanoAod),
                        {"root:file=" + scratch.path("tree.root"),
                         "parallel-root:file=" + scratch.path("merged.root") + ",flush=2",
                         "rntuple:file=" + scratch.path("serial.root"),
                         "rntuple-parallel:file=" + scratch.path("parallel.root")},
                        2, 4);
  config.modules = {{"boom", PluginSpec::parse("fault:at=227291410")}};  // an event of the file
  auto const summary = mimicry::test::runJob(config);
  EXPECT_TRUE(summary.failed);
  EXPECT_TRUE(scratch.files().empty()) << "left: " << scratch.files().front();
}

// A file that does not read back complete is never committed: ROOT loses
// some failed writes (TBufferMerger's, RNTuple's at close) without a word.
TEST(RootOutputsTest, AFileThatReadsBackShortIsNotCommittedAndTheReportSaysWhy) {
  ScratchDirectory scratch;
  auto const config = rootJob("root:file=" + dataFile(kNanoAod), {"root:file=" + scratch.path("tree.root")}, 2, 2);
  ASSERT_FALSE(mimicry::test::runJob(config).failed);
  // What committing `file` throws, expecting `events` entries of `tree`.
  auto const commitError = [](OutputFile& file, std::uint64_t events, std::string const& tree) -> std::string {
    try {
      file.commit(events, treeEntries(tree));
    } catch (Exception const& error) {
      return error.what();
    }
    return "committed";
  };

  OutputFile file(scratch.path("short.root"));
  file.begin("");
  std::filesystem::copy_file(scratch.path("tree.root"), file.temporaryPath());
  EXPECT_EQ(commitError(file, 201, "Events"),
            "cannot write '" + scratch.path("short.root") + "': it reads back 200 of 201 entries");
  EXPECT_EQ(scratch.files(), std::vector<std::string>{"tree.root"}) << "neither the file nor its temporary";
  auto const details = nlohmann::json::parse(fileDetails(file, 201));
  EXPECT_EQ(details["failed"], true);
  EXPECT_EQ(details["error"], "it reads back 200 of 201 entries");
  EXPECT_EQ(details["committed"], false);

  OutputFile truncated(scratch.path("truncated.root"));
  truncated.begin("");
  std::filesystem::copy_file(scratch.path("tree.root"), truncated.temporaryPath());
  std::filesystem::resize_file(truncated.temporaryPath(), std::filesystem::file_size(truncated.temporaryPath()) / 2);
  EXPECT_THROW(truncated.commit(200, treeEntries("Events")), Exception);
  EXPECT_EQ(scratch.files(), std::vector<std::string>{"tree.root"});

  // Every output writes its tree, if only an empty one: a file without it lost it (the file holds
  // Events, LuminosityBlocks and Runs).
  OutputFile treeless(scratch.path("treeless.root"));
  treeless.begin("");
  std::filesystem::copy_file(scratch.path("tree.root"), treeless.temporaryPath());
  EXPECT_EQ(commitError(treeless, 0, "Missing"), "cannot write '" + scratch.path("treeless.root") + "': it cannot be read back");
  EXPECT_EQ(scratch.files(), std::vector<std::string>{"tree.root"});
}

TEST(RootOutputsTest, AnOutputPathThatCannotBeWrittenFailsBeforeTheJob) {
  auto error = [](std::string const& output) {
    return mimicry::test::errorOf([&] { EventProcessor processor(rootJob("empty:events=1", {output})); });
  };
  for (std::string plugin : {"root", "parallel-root", "rntuple", "rntuple-parallel"}) {
    expectMentions(error(plugin + ":file=/nonexistent/out.root"), {"/nonexistent/out.root", "does not exist"});
    expectMentions(error(plugin + ":file=/proc/out.root"), {"/proc/out.root", "cannot write"});
  }
  expectMentions(error("root:file=/tmp/x.root,compression=brotli"), {"compression", "brotli"});
  expectMentions(error("rntuple:file=/tmp/x.root,level=12"), {"level", "0..9"});
}

TEST(RootOutputsTest, ProductsRootCannotStoreAreNamed) {
  ScratchDirectory scratch;
  // Synthetic products have no ROOT dictionary.
  auto const summary = mimicry::test::runJob(rootJob("synthetic:size.blob=10,events=3", {"root:file=" + scratch.path("x.root")}));
  EXPECT_TRUE(summary.failed);
  expectMentions(summary.error, {"'blob'", "no dictionary", "keep="});
  EXPECT_TRUE(scratch.files().empty());
}

TEST(SerializeOutputTest, MeasuresEveryKeptProductOfEveryEvent) {
  auto const config = rootJob("root:file=" + dataFile(kNanoAod), {"serialize:keep=Jet_pt,keep=MET_pt"}, 2, 4);
  EventProcessor processor(config);
  ASSERT_FALSE(processor.run().failed);
  auto const details = nlohmann::json::parse(processor.moduleDetails().front());
  EXPECT_EQ(details["events_written"], 200);
  ASSERT_EQ(details["products"].size(), 2u);
  for (auto const& product : details["products"]) {
    EXPECT_EQ(product["calls"], 200);
    EXPECT_GT(product["ns"].get<std::uint64_t>(), 0u);
  }
  auto const& met = details["products"][1];
  EXPECT_EQ(met["label"], "MET_pt");
  EXPECT_EQ(met["bytes"], 200 * sizeof(float));
  EXPECT_EQ(details["calls"], 400);
}

}  // namespace
}  // namespace lanes::rootio::test
