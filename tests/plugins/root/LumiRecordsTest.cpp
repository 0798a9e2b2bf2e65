// Runs and lumis through the ROOT sources and outputs, on small NanoAOD-like
// files made here (Events with run/luminosityBlock ids, and the record trees
// LuminosityBlocks and Runs): the stretches the sources give, the empty lumis
// of record rows without events, run and lumi products summed over files,
// and the LuminosityBlocks and Runs every output writes beside its events,
// one row per (run, lumi), read back with ROOT. TTree and RNTuple alike.

#include <gtest/gtest.h>

#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <TFile.h>
#include <TLeaf.h>
#include <TTree.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"
#include "root/TreeRecords.h"
#include "root/NTupleSource.h"
#include "root/TreeSource.h"

namespace lanes::rootio::test {
namespace {

using mimicry::test::expectMentions;
using mimicry::test::optionsOf;

// ---------------------------------------------------------------- files made here

struct Id {
  std::uint32_t run, lumi;
};
struct LumiRow {
  std::uint32_t run, lumi;
  double weight;
  std::vector<double> sums;
};
struct RunRow {
  std::uint32_t run;
  std::int64_t count;
};
// What a file holds: its events' ids (event numbers count on from `firstEvent`), and its records.
struct Content {
  std::vector<Id> ids;
  std::vector<LumiRow> lumis;
  std::vector<RunRow> runs;
  std::uint64_t firstEvent = 1;
};

void writeTreeFile(std::string const& path, Content const& content) {
  TFile file(path.c_str(), "RECREATE");
  std::uint32_t run = 0, lumi = 0, n = 0;
  std::uint64_t event = 0;
  float x = 0;
  double weight = 0, sums[16] = {};
  std::int64_t count = 0;
  auto* events = new TTree("Events", "Events");
  events->Branch("run", &run, "run/i");
  events->Branch("luminosityBlock", &lumi, "luminosityBlock/i");
  events->Branch("event", &event, "event/l");
  events->Branch("x", &x, "x/F");
  for (std::size_t e = 0; e < content.ids.size(); ++e) {
    run = content.ids[e].run, lumi = content.ids[e].lumi, event = content.firstEvent + e, x = static_cast<float>(event);
    events->Fill();
  }
  if (!content.lumis.empty()) {
    auto* lumis = new TTree("LuminosityBlocks", "LuminosityBlocks");
    lumis->Branch("run", &run, "run/i");
    lumis->Branch("luminosityBlock", &lumi, "luminosityBlock/i");
    lumis->Branch("weight", &weight, "weight/D");
    lumis->Branch("nSums", &n, "nSums/i");
    lumis->Branch("sums", sums, "sums[nSums]/D");
    for (auto const& row : content.lumis) {
      run = row.run, lumi = row.lumi, weight = row.weight, n = static_cast<std::uint32_t>(row.sums.size());
      std::copy(row.sums.begin(), row.sums.end(), sums);
      lumis->Fill();
    }
  }
  if (!content.runs.empty()) {
    auto* runs = new TTree("Runs", "Runs");
    runs->Branch("run", &run, "run/i");
    runs->Branch("genEventCount", &count, "genEventCount/L");
    for (auto const& row : content.runs) {
      run = row.run, count = row.count;
      runs->Fill();
    }
  }
  file.Write();
}

void writeNTupleFile(std::string const& path, Content const& content) {
  {
    auto model = ROOT::RNTupleModel::Create();
    auto run = model->MakeField<std::uint32_t>("run");
    auto lumi = model->MakeField<std::uint32_t>("luminosityBlock");
    auto event = model->MakeField<std::uint64_t>("event");
    auto x = model->MakeField<float>("x");
    auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "Events", path);
    for (std::size_t e = 0; e < content.ids.size(); ++e) {
      *run = content.ids[e].run, *lumi = content.ids[e].lumi, *event = content.firstEvent + e;
      *x = static_cast<float>(*event);
      writer->Fill();
    }
  }
  TFile file(path.c_str(), "UPDATE");
  if (!content.lumis.empty()) {
    auto model = ROOT::RNTupleModel::Create();
    auto run = model->MakeField<std::uint32_t>("run");
    auto lumi = model->MakeField<std::uint32_t>("luminosityBlock");
    auto weight = model->MakeField<double>("weight");
    auto sums = model->MakeField<std::vector<double>>("sums");
    auto writer = ROOT::RNTupleWriter::Append(std::move(model), "LuminosityBlocks", file);
    for (auto const& row : content.lumis) {
      *run = row.run, *lumi = row.lumi, *weight = row.weight, *sums = row.sums;
      writer->Fill();
    }
  }
  if (!content.runs.empty()) {
    auto model = ROOT::RNTupleModel::Create();
    auto run = model->MakeField<std::uint32_t>("run");
    auto count = model->MakeField<std::int64_t>("genEventCount");
    auto writer = ROOT::RNTupleWriter::Append(std::move(model), "Runs", file);
    for (auto const& row : content.runs) {
      *run = row.run, *count = row.count;
      writer->Fill();
    }
  }
}

// The source plugin under test, as the test parameter.
struct Format {
  char const* plugin;  // root or rntuple
  void (*write)(std::string const&, Content const&);
  char const* output;  // the output of that format
};

std::unique_ptr<Source> sourceOf(Format const& format, std::vector<std::string> const& files) {
  std::string spec;
  for (auto const& file : files) spec += (spec.empty() ? "file=" : ",file=") + file;
  if (std::string(format.plugin) == "root") return std::make_unique<TreeSource>(optionsOf(spec));
  return std::make_unique<NTupleSource>(optionsOf(spec));
}

// "run:lumi [first,end) empty run:lumi...", or "end [first,end) ..." for the input's end (whose lumi means nothing).
std::string str(LumiStretch const& stretch) {
  std::string text = stretch.first == stretch.end
                         ? std::string("end")
                         : std::to_string(stretch.lumi.run) + ":" + std::to_string(stretch.lumi.luminosityBlock);
  text += " [" + std::to_string(stretch.first) + "," + std::to_string(stretch.end) + ")";
  for (auto const& empty : stretch.emptyBefore) {
    text += " empty " + std::to_string(empty.run) + ":" + std::to_string(empty.luminosityBlock);
  }
  return text;
}

class LumiSourceTest : public ::testing::TestWithParam<Format> {
 protected:
  std::string file(std::string const& name, Content const& content) {
    auto const path = scratch_.path(name);
    GetParam().write(path, content);
    return path;
  }
  ScratchDirectory scratch_;
};

// Two files: lumi 1:2 goes on from the first into the second.
Content const kFirst{{{1, 1}, {1, 1}, {1, 1}, {1, 2}, {1, 2}}, {}, {}};
Content const kSecond{{{1, 2}, {1, 2}, {2, 1}}, {}, {}, 6};

TEST_P(LumiSourceTest, StretchesFollowTheIdsAndStopAtEachFilesEnd) {
  auto source = sourceOf(GetParam(), {file("a.root", kFirst), file("b.root", kSecond)});
  auto copy = source->replicate();
  for (auto* reader : {source.get(), copy.get()}) {
    EXPECT_EQ(str(*reader->stretchAt(1)), "1:1 [0,3)");
    EXPECT_EQ(str(*reader->stretchAt(3)), "1:2 [3,5)");
    EXPECT_EQ(str(*reader->stretchAt(6)), "1:2 [5,7)");
    EXPECT_EQ(str(*reader->stretchAt(7)), "2:1 [7,8)");
    EXPECT_EQ(str(*reader->stretchAt(8)), "end [8,8)") << "the input's end";
    EXPECT_EQ(str(*reader->stretchAt(20)), "end [20,20)");
  }
}

TEST_P(LumiSourceTest, ARowWithoutEventsIsAnEmptyLumiAtItsFilesEnd) {
  auto first = kFirst;
  first.lumis = {{1, 1, 1.0, {}}, {1, 9, 2.0, {}}, {1, 2, 3.0, {}}};
  auto second = kSecond;
  second.lumis = {{1, 2, 4.0, {}}, {3, 3, 5.0, {}}, {2, 1, 6.0, {}}};
  auto source = sourceOf(GetParam(), {file("a.root", first), file("b.root", second)});
  EXPECT_EQ(str(*source->stretchAt(5)), "1:2 [5,7) empty 1:9") << "the first file's, as the second begins";
  EXPECT_EQ(str(*source->stretchAt(6)), "1:2 [5,7)") << "asked for at that very ordinal only";
  EXPECT_EQ(str(*source->stretchAt(8)), "end [8,8) empty 3:3");
  EXPECT_EQ(str(*source->stretchAt(9)), "end [9,9)");
  auto const details = nlohmann::json::parse(source->details());
  EXPECT_EQ(details["lumi_records"]["rows_without_events"], 2);
  EXPECT_EQ(details["lumi_records"]["lumis_without_row"], 0);
}

TEST_P(LumiSourceTest, RecordsAreProductsThatAddUpOverTheFiles) {
  auto first = kFirst;
  first.lumis = {{1, 1, 1.5, {1, 2}}, {1, 2, 2.5, {10, 20}}};
  first.runs = {{1, 100}};
  auto second = kSecond;
  second.lumis = {{1, 2, 4.0, {100, 200}}};  // none for 2:1
  second.runs = {{1, 1000}, {2, 7}};
  auto source = sourceOf(GetParam(), {file("a.root", first), file("b.root", second)});
  auto const lumiIndex = [&](std::string const& label) {
    for (std::size_t i = 0; i < source->lumiProducts().size(); ++i) {
      if (source->lumiProducts()[i].label == label) return i;
    }
    throw std::runtime_error("no lumi product " + label);
  };
  auto const weight = lumiIndex("weight"), sums = lumiIndex("sums");
  EXPECT_TRUE(source->lumiProducts()[weight].merge) << "numbers add up";
  std::vector<ProductSlot> slots(source->lumiProducts().size());
  source->readLumi({1, 2}, slots.data());
  EXPECT_EQ(*static_cast<double const*>(slots[weight].object()), 6.5);
  EXPECT_EQ(*static_cast<std::vector<double> const*>(slots[sums].object()), (std::vector<double>{110, 220}));
  std::vector<ProductSlot> none(slots.size());
  source->readLumi({2, 1}, none.data());
  EXPECT_FALSE(none[weight].filled()) << "a lumi no file lists has no products";
  ASSERT_EQ(source->runProducts().size(), 1u);
  ProductSlot count;
  source->readRun(1, &count);
  EXPECT_EQ(*static_cast<std::int64_t const*>(count.object()), 1100);
  auto const details = nlohmann::json::parse(source->details());
  EXPECT_EQ(details["lumi_records"]["lumis_without_row"], 1);
  EXPECT_EQ(details["lumi_records"]["runs"], 2);
}

TEST_P(LumiSourceTest, AnIdOfZeroIsRefusedNamingTheFileAndEntry) {
  auto const path = file("zero.root", {{{1, 1}, {1, 1}, {1, 0}}, {}, {}});
  auto source = sourceOf(GetParam(), {path});
  try {
    source->stretchAt(0);
    FAIL() << "no error";
  } catch (Exception const& error) {
    expectMentions(error.what(), {path.c_str(), "entry 2", "lumi number 0 (1:0)"});
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
  }
}

TEST_P(LumiSourceTest, ABranchOfRecordsThatIsNoNumberIsRefusedNamingIt) {
  auto const path = scratch_.path("text.root");
  if (std::string(GetParam().plugin) == "root") {
    writeTreeFile(path, kFirst);
    TFile file(path.c_str(), "UPDATE");
    auto* runs = new TTree("Runs", "Runs");
    std::uint32_t run = 1;
    char name[8] = "x";
    runs->Branch("run", &run, "run/i");
    runs->Branch("name", name, "name/C");
    runs->Fill();
    file.Write();
  } else {
    writeNTupleFile(path, kFirst);
    TFile file(path.c_str(), "UPDATE");
    auto model = ROOT::RNTupleModel::Create();
    *model->MakeField<std::uint32_t>("run") = 1;
    model->MakeField<std::string>("name");
    ROOT::RNTupleWriter::Append(std::move(model), "Runs", file)->Fill();
  }
  try {
    sourceOf(GetParam(), {path});
    FAIL() << "no error";
  } catch (Exception const& error) {
    expectMentions(error.what(), {path.c_str(), "'Runs'", "'name'", "cannot be a run or lumi product"});
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, LumiSourceTest,
                         ::testing::Values(Format{"root", &writeTreeFile, "root"},
                                           Format{"rntuple", &writeNTupleFile, "rntuple"}),
                         [](auto const& info) { return std::string(info.param.plugin); });

// ---------------------------------------------------------------- outputs

// Counts each lumi's and run's events (LumiSum, RunSum) and puts them as
// the lumi and run product "counted"; with text=true also a lumi product
// "label", a std::string, which cannot be merged.
class LumiCounter : public global::Analyzer {
 public:
  LumiCounter(std::string label, Options const& options)
      : Analyzer(std::move(label)),
        text_(options.getBool("text", false)),
        lumiCount_(producesLumi<std::uint64_t>("counted")),
        runCount_(producesRun<std::uint64_t>("counted")),
        label_(producesLumi<std::string>("label")) {}
  void analyze(Event const& event) const override {
    ++lumiEvents_[event];
    ++runEvents_[event];
  }
  void endLumi(Lumi& lumi) const override {
    lumi.put(lumiCount_, lumiEvents_.total(lumi));
    if (text_) lumi.put(label_, std::to_string(lumi.luminosityBlock()));
  }
  void endRun(Run& run) const override { run.put(runCount_, runEvents_.total(run)); }

 private:
  bool text_;
  LumiToken<std::uint64_t> lumiCount_;
  RunToken<std::uint64_t> runCount_;
  LumiToken<std::string> label_;
  LumiSum<std::uint64_t> lumiEvents_{*this};
  RunSum<std::uint64_t> runEvents_{*this};
};
RegisterModule<LumiCounter> const lumiCounter("test-lumi-counter", "counts each lumi's and run's events");

// A record row as a test reads it back: events, and numbers by column.
struct Row {
  std::uint64_t events = 0;
  std::map<std::string, double> values;
};
using Rows = std::map<std::pair<std::uint32_t, std::uint32_t>, Row>;

Rows treeRows(std::string const& path, char const* name, std::vector<std::string> const& columns) {
  TFile file(path.c_str());
  auto* tree = file.Get<TTree>(name);
  if (!tree) return {};
  Rows rows;
  for (Long64_t entry = 0; entry < tree->GetEntries(); ++entry) {
    tree->GetEntry(entry);
    auto const leaf = [&](char const* branch) { return tree->GetLeaf(branch)->GetValue(); };
    auto const lumi = std::string(name) == "Runs" ? 0u : static_cast<std::uint32_t>(leaf("luminosityBlock"));
    auto& row = rows[{static_cast<std::uint32_t>(leaf("run")), lumi}];
    EXPECT_EQ(row.events, 0u) << name << " has run " << leaf("run") << " lumi " << lumi << " twice in " << path;
    row.events = static_cast<std::uint64_t>(leaf("events"));
    for (auto const& column : columns) row.values[column] = tree->GetLeaf(column.c_str())->GetValue();
  }
  return rows;
}

Rows ntupleRows(std::string const& path, char const* name, std::vector<std::string> const& columns) {
  auto reader = ROOT::RNTupleReader::Open(name, path);
  Rows rows;
  auto run = reader->GetView<std::uint32_t>("run");
  auto events = reader->GetView<std::uint64_t>("events");
  bool const lumis = std::string(name) != "Runs";
  auto const& descriptor = reader->GetDescriptor();
  auto const number = [&](std::string const& column, std::uint64_t entry) {
    auto const type = descriptor.GetFieldDescriptor(descriptor.FindFieldId(column)).GetTypeName();
    if (type == "double") return reader->GetView<double>(column)(entry);
    if (type == "std::int64_t") return static_cast<double>(reader->GetView<std::int64_t>(column)(entry));
    return static_cast<double>(reader->GetView<std::uint64_t>(column)(entry));
  };
  for (auto entry : reader->GetEntryRange()) {
    auto const lumi = lumis ? reader->GetView<std::uint32_t>("luminosityBlock")(entry) : 0u;
    auto& row = rows[{run(entry), lumi}];
    EXPECT_EQ(row.events, 0u) << name << " has a row twice in " << path;
    row.events = events(entry);
    for (auto const& column : columns) row.values[column] = number(column, entry);
  }
  return rows;
}

class LumiOutputTest : public LumiSourceTest {
 protected:
  RunSummary run(std::vector<std::string> const& files, std::string const& module, std::vector<std::string> const& outputs,
                 unsigned threads = 2, unsigned lanes = 4) {
    std::string spec = std::string(GetParam().plugin) + ":";
    for (auto const& path : files) spec += (spec.back() == ':' ? "file=" : ",file=") + path;
    auto config = rootJob(spec, outputs, threads, lanes);
    config.modules.push_back({"counter", PluginSpec::parse(module)});
    config.concurrentLumis = 2;
    EventProcessor processor(config);
    return processor.run();
  }
};

// A lumi that comes back (3, 4, 3), run numbers that go back, a lumi that
// goes on in the next file, a record row without events: one row per (run,
// lumi) in every output, its events counted, the modules' products summed
// over the entries, the source's products the sum of the files' rows.
TEST_P(LumiOutputTest, EveryOutputWritesOneRowPerLumiAndRun) {
  Content const first{{{2, 3}, {2, 3}, {2, 4}, {1, 1}, {2, 3}, {2, 3}, {2, 3}},
                      {{2, 3, 1.0, {}}, {2, 4, 2.0, {}}, {1, 1, 4.0, {}}},
                      {{1, 10}, {2, 20}}};
  Content const second{{{2, 3}, {2, 3}}, {{2, 3, 16.0, {}}, {1, 7, 8.0, {}}}, {{2, 40}}, 8};
  auto const files = std::vector<std::string>{file("a.root", first), file("b.root", second)};
  std::string const format = GetParam().output;
  std::string const parallel = format == "root" ? "parallel-root" : "rntuple-parallel";
  auto const outputs = std::vector<std::string>{format + ":file=" + scratch_.path("one.root"),
                                                parallel + ":file=" + scratch_.path("parallel.root") + ",concurrency=2"};
  auto const summary = run(files, "test-lumi-counter", outputs, 2, 4);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.repeatedLumis, 1u) << "2:3 comes back after 1:1, and goes on into the second file";
  EXPECT_EQ(summary.repeatedRuns, 2u) << "run 2 after run 1, and run 1 for the empty 1:7";
  EXPECT_EQ(summary.emptyLumis, 1u) << "1:7, at the input's end";
  Rows const lumis{{{1, 1}, {1, {{"counted", 1}, {"weight", 4.0}}}},
                   {{1, 7}, {0, {{"counted", 0}, {"weight", 8.0}}}},
                   {{2, 3}, {7, {{"counted", 7}, {"weight", 17.0}}}},
                   {{2, 4}, {1, {{"counted", 1}, {"weight", 2.0}}}}};
  Rows const runs{{{1, 0}, {1, {{"counted", 1}, {"genEventCount", 10}}}},
                  {{2, 0}, {8, {{"counted", 8}, {"genEventCount", 60}}}}};
  for (auto const* name : {"one.root", "parallel.root"}) {
    auto const path = scratch_.path(name);
    auto const rowsOf = format == "root" ? &treeRows : &ntupleRows;
    auto const written = rowsOf(path, "LuminosityBlocks", {"counted", "weight"});
    ASSERT_EQ(written.size(), lumis.size()) << path;
    for (auto const& [key, row] : lumis) {
      auto const found = written.find(key);
      ASSERT_NE(found, written.end()) << "lumi " << key.first << ":" << key.second << " in " << path;
      EXPECT_EQ(found->second.events, row.events) << "lumi " << key.first << ":" << key.second << " in " << path;
      EXPECT_EQ(found->second.values, row.values) << "lumi " << key.first << ":" << key.second << " in " << path;
    }
    auto const writtenRuns = rowsOf(path, "Runs", {"counted", "genEventCount"});
    ASSERT_EQ(writtenRuns.size(), runs.size()) << path;
    for (auto const& [key, row] : runs) {
      EXPECT_EQ(writtenRuns.at(key).events, row.events) << "run " << key.first << " in " << path;
      EXPECT_EQ(writtenRuns.at(key).values, row.values) << "run " << key.first << " in " << path;
    }
  }
}

TEST_P(LumiOutputTest, AProductThatMustBeMergedAndCannotFailsTheJobNamingIt) {
  auto const files = std::vector<std::string>{file("a.root", {{{1, 3}, {1, 4}, {1, 3}}, {}, {}})};
  auto const path = scratch_.path("out.root");
  auto const summary = run(files, "test-lumi-counter:text=true", {std::string(GetParam().output) + ":file=" + path}, 1, 1);
  ASSERT_TRUE(summary.failed);
  expectMentions(summary.error, {"lumi product 'label'", "lumi 1:3", "cannot be"});
  EXPECT_EQ(summary.error.find('\n'), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path)) << "a failed job leaves no file";
}

INSTANTIATE_TEST_SUITE_P(Formats, LumiOutputTest,
                         ::testing::Values(Format{"root", &writeTreeFile, "root"},
                                           Format{"rntuple", &writeNTupleFile, "rntuple"}),
                         [](auto const& info) { return std::string(info.param.plugin); });

// The parent of a multi-process job merges the parts' rows as a job merges
// its entries: a product that cannot be merged is named.
TEST(TreeRecordsTest, RowsOfPartsMergeByRunAndLumiAndAProductThatCannotIsNamed) {
  ProductRegistry lumis, runs;
  lumis.add({"count", typeid(std::uint64_t), {}, mergerOf<std::uint64_t>()}, 0, "counter");
  lumis.add({"text", typeid(std::string), {}, nullptr}, 0, "counter");
  TreeRecords records(runs, lumis);
  std::vector<ProductSlot> part(2);
  part[0].emplace(std::uint64_t{3}, 8);
  records.absorb(Level::Lumi, {1, 2}, 3, part);
  records.absorb(Level::Lumi, {1, 2}, 4, part);
  records.absorb(Level::Lumi, {1, 1}, 1, part);
  auto const& rows = records.lumis().rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows.at({1, 2}).events, 7u);
  EXPECT_EQ(*static_cast<std::uint64_t const*>(rows.at({1, 2}).products[0]->object()), 6u);
  part[1].emplace(std::string("a"), 1);
  records.absorb(Level::Lumi, {1, 2}, 0, part);  // the first part that has it: taken
  try {
    records.absorb(Level::Lumi, {1, 2}, 0, part);
    FAIL() << "no error";
  } catch (Exception const& error) {
    expectMentions(error.what(), {"lumi product 'text' of lumi 1:2", "must be merged", "cannot be"});
  }
}

TEST(TreeRecordsTest, AProductNamedAsAColumnOfTheRecordsIsRefused) {
  ProductRegistry lumis, runs;
  runs.add({"events", typeid(std::uint64_t), {}, mergerOf<std::uint64_t>()}, 0, "counter");
  try {
    TreeRecords records(runs, lumis);
    FAIL() << "no error";
  } catch (ConfigurationError const& error) {
    expectMentions(error.what(), {"run product 'events'", "Runs"});
  }
}

}  // namespace
}  // namespace lanes::rootio::test
