// The `root` source on real experiment files, checked against ROOT's
// classic reading (SetBranchAddress and TTree::GetEntry): product types, values, event ids, selection, several files,
// per-lane handles, and every bad input naming its file.

#include "root/TreeSource.h"

#include <gtest/gtest.h>

#include <TClass.h>
#include <TFile.h>
#include <TROOT.h>
#include <TTree.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <set>
#include <thread>
#include <tuple>

#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"
#include "root/RootSupport.h"

namespace lanes::rootio::test {
namespace {

using mimicry::test::errorOf;
using mimicry::test::expectMentions;
using mimicry::test::optionsOf;

TreeSource nanoAod(std::string const& extra = "") {
  return TreeSource(optionsOf("file=" + dataFile(kNanoAod) + extra));
}

TEST(TreeSourceTest, EveryBranchButTheIdIsAProductOfItsNaturalType) {
  auto source = nanoAod();
  EXPECT_EQ(source.products().size(), 947u - 3u);
  auto typeOf = [&](std::string const& label) { return std::type_index(source.products()[indexOf(source, label)].type); };
  EXPECT_EQ(typeOf("Jet_pt"), std::type_index(typeid(std::vector<float>)));
  EXPECT_EQ(typeOf("nJet"), std::type_index(typeid(std::uint32_t)));
  EXPECT_EQ(typeOf("MET_pt"), std::type_index(typeid(float)));
  EXPECT_EQ(typeOf("Flag_HBHENoiseFilter"), std::type_index(typeid(bool)));
  EXPECT_EQ(typeOf("Electron_charge"), std::type_index(typeid(std::vector<std::int32_t>)));
  EXPECT_THROW(indexOf(source, "event"), std::runtime_error);
}

// Read ahead or not, into a lane's slots (vacated between events, so that
// the source trades objects with them) or into fresh slots every event.
class TreeSourceValues : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(TreeSourceValues, ValuesAndIdsMatchRootsOwnReader) {
  auto const [readAhead, vacated] = GetParam();
  auto source = nanoAod(readAhead);
  TFile file(dataFile(kNanoAod).c_str());
  auto* tree = file.Get<TTree>("Events");
  ULong64_t event = 0;
  UInt_t run = 0, nJet = 0;
  std::vector<Float_t> jetPt(1000);
  tree->SetBranchAddress("event", &event);
  tree->SetBranchAddress("run", &run);
  tree->SetBranchAddress("nJet", &nJet);
  tree->SetBranchAddress("Jet_pt", jetPt.data());
  auto const jetPtIndex = indexOf(source, "Jet_pt");
  auto const nJetIndex = indexOf(source, "nJet");
  Long64_t events = 0;
  SourceEvent position;
  ProductSlot lanePt, laneN;
  while (source.next(position)) {
    ASSERT_GT(tree->GetEntry(events), 0);
    EXPECT_EQ(position.id.event, event);
    EXPECT_EQ(position.id.run, run);
    ProductSlot freshPt, freshN;
    auto& pt = vacated ? lanePt : freshPt;
    auto& n = vacated ? laneN : freshN;
    pt.vacate();
    n.vacate();
    source.read(position, jetPtIndex, pt);
    source.read(position, nJetIndex, n);
    EXPECT_EQ(*static_cast<std::uint32_t const*>(n.object()), nJet);
    auto const& values = *static_cast<std::vector<float> const*>(pt.object());
    ASSERT_EQ(values.size(), nJet);
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], jetPt[i]);
    if (nJet > 0) {
      EXPECT_GE(pt.bytes(), nJet * sizeof(float)) << "a product weighs the bytes read";
    }
    ++events;
  }
  EXPECT_EQ(events, 200);
}

INSTANTIATE_TEST_SUITE_P(ReadAheadAndSlots, TreeSourceValues,
                         ::testing::Combine(::testing::Values(",readahead=1", ",readahead=3", ""),
                                            ::testing::Bool()));

// A shared source serves two lanes whose reads come out of order: each pair
// of events is read later one first, so the earlier one lies before the
// read-ahead window and is read alone. Values still match ROOT's.
// The jets of the NanoAOD file as ROOT's classic reading gives them: what a
// source's nJet and Jet_pt products of an entry must hold.
class JetsOfNanoAod {
 public:
  explicit JetsOfNanoAod(Source const& source)
      : file_(dataFile(kNanoAod).c_str()),
        tree_(file_.Get<TTree>("Events")),
        nJet_(indexOf(source, "nJet")),
        jetPt_(indexOf(source, "Jet_pt")) {
    tree_->SetBranchAddress("nJet", &n_);
    tree_->SetBranchAddress("Jet_pt", pt_.data());
  }
  // Reads the two products of `event` into `n` and `pt` (vacated first, as
  // for a lane's next event), and compares them with ROOT's.
  void expectSame(Source& source, SourceEvent const& event, ProductSlot& n, ProductSlot& pt) {
    n.vacate();
    pt.vacate();
    source.read(event, jetPt_, pt);
    source.read(event, nJet_, n);
    ASSERT_GT(tree_->GetEntry(static_cast<Long64_t>(event.entry)), 0);
    EXPECT_EQ(*static_cast<std::uint32_t const*>(n.object()), n_) << "entry " << event.entry;
    EXPECT_EQ(*static_cast<std::vector<float> const*>(pt.object()), std::vector<float>(pt_.begin(), pt_.begin() + n_))
        << "entry " << event.entry;
  }

 private:
  TFile file_;
  TTree* tree_;
  std::size_t nJet_, jetPt_;
  UInt_t n_ = 0;
  std::vector<Float_t> pt_ = std::vector<Float_t>(1000);
};

TEST(TreeSourceTest, AnEventOvertakenByAnotherLaneReadsItsOwnValues) {
  auto source = nanoAod(",handles=shared,readahead=4");
  JetsOfNanoAod jets(source);
  SourceEvent earlier, later;
  ProductSlot pt[2], n[2];  // each lane's
  int pairs = 0;
  while (source.next(earlier) && source.next(later)) {
    jets.expectSame(source, later, n[1], pt[1]);
    jets.expectSame(source, earlier, n[0], pt[0]);
    ++pairs;
  }
  EXPECT_EQ(pairs, 100);
}

TEST(TreeSourceTest, BranchesAndExcludeSelectProducts) {
  auto source = nanoAod(",branches=Jet_*,branches=nJet,exclude=Jet_btag*");
  for (auto const& product : source.products()) {
    EXPECT_TRUE(product.label == "nJet" || product.label.rfind("Jet_", 0) == 0) << product.label;
    EXPECT_NE(product.label.rfind("Jet_btag", 0), 0u) << product.label;
  }
  EXPECT_NO_THROW(indexOf(source, "Jet_pt"));
}

std::size_t readAheadOf(TreeSource const& source) {
  return nlohmann::json::parse(source.details()).at("readahead").get<std::size_t>();
}

// 64 entries a branch by default, fewer where they would hold over 8 MiB;
// the run report says which (the source's details).
TEST(TreeSourceTest, TheDefaultReadAheadHoldsAtMostEightMebibytes) {
  EXPECT_EQ(readAheadOf(nanoAod()), 64u);  // 314 bytes an entry
  EXPECT_EQ(readAheadOf(nanoAod(",readahead=5")), 5u);
  ScratchDirectory scratch;
  {
    TFile file(scratch.path("large.root").c_str(), "RECREATE");
    TTree tree("Events", "Events");
    std::vector<double> values(32768);  // 256 KiB an entry
    tree.Branch("values", &values);
    for (int entry = 0; entry < 4; ++entry) tree.Fill();
    file.Write();
  }
  TreeSource large(optionsOf("file=" + scratch.path("large.root")));
  EXPECT_LT(readAheadOf(large), 32u);  // 32 entries of 256 KiB and their vectors' headers
  EXPECT_GE(readAheadOf(large), 30u);
}

TEST(TreeSourceTest, SeveralFilesAreOneSequence) {
  auto const path = dataFile(kNanoAod);
  TreeSource source(optionsOf("file=" + path + ",file=" + path));
  SourceEvent first, position;
  ASSERT_TRUE(source.next(first));
  std::size_t events = 1;
  while (source.next(position)) {
    if (events == 200) {
      EXPECT_EQ(position.id, first.id) << "the second file starts again";
    }
    ++events;
  }
  EXPECT_EQ(events, 400u);
}

TEST(TreeSourceTest, AListFileNamesFilesRelativeToItself) {
  ScratchDirectory scratch;
  std::filesystem::copy_file(dataFile(kNanoAod), scratch.path("a.root"));
  std::ofstream(scratch.path("files.txt")) << "# two passes\na.root\n\n" << scratch.path("a.root") << "\n";
  TreeSource source(optionsOf("files=" + scratch.path("files.txt")));
  std::size_t events = 0;
  for (SourceEvent position; source.next(position);) ++events;
  EXPECT_EQ(events, 400u);
}

TEST(TreeSourceTest, PerLaneHandlesReplicateAndAddressByOrdinal) {
  auto shared = nanoAod(",handles=shared");
  EXPECT_EQ(shared.replicate(), nullptr);
  auto source = nanoAod();  // handles=lane, the default
  auto copy = source.replicate();
  ASSERT_NE(copy, nullptr);
  SourceEvent viaNext, viaAt;
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(source.next(viaNext));
  ASSERT_TRUE(copy->at(5, viaAt));
  EXPECT_EQ(viaAt.id, viaNext.id);
  EXPECT_FALSE(copy->at(200, viaAt));
}

int openFiles() { return gROOT->GetListOfFiles()->GetSize(); }

// The file the source was built from stays open for the first copy that
// reads it: its TTree is read once, not once more for the first lane.
TEST(TreeSourceTest, TheFirstCopyReadsTheFileTheSourceWasBuiltFrom) {
  auto const before = openFiles();
  auto source = nanoAod();
  EXPECT_EQ(openFiles(), before + 1) << "kept open for the first copy";
  auto first = source.replicate();
  auto second = source.replicate();
  SourceEvent event;
  ASSERT_TRUE(first->at(0, event));
  EXPECT_EQ(openFiles(), before + 1) << "taken over, not opened again";
  ASSERT_TRUE(second->at(1, event));
  EXPECT_EQ(openFiles(), before + 2) << "the second copy opens its own";
  SourceEvent alone;
  ASSERT_TRUE(nanoAod().next(alone));  // entry 0, read by a source of its own
  first.reset();  // its file and tree go
  ASSERT_TRUE(second->at(0, event)) << "the second copy reads its own file's tree";
  EXPECT_EQ(event.id, alone.id);
}

// A descriptor opened before a fork would share its offset with the other processes.
TEST(TreeSourceTest, AForkClosesTheFileTheSourceWasBuiltFrom) {
  for (bool const parent : {true, false}) {
    auto const before = openFiles();
    auto source = nanoAod();
    parent ? source.beforeFork() : source.afterFork();
    EXPECT_EQ(openFiles(), before);
    auto copy = source.replicate();
    SourceEvent event;
    ASSERT_TRUE(copy->at(0, event)) << "opened anew";
    EXPECT_EQ(openFiles(), before + 1);
  }
}

TEST(TreeSourceTest, ALanesCopyGoesBackToTheRunItTookFromAnotherLane) {
  // Near a job's end a lane that has finished takes the back half of another
  // lane's run (ClaimedRuns::steal): its copy goes back, past its windows,
  // and reads on from there.
  auto source = nanoAod(",readahead=4");
  source.useReplicaChunk(50);
  auto copy = source.replicate();
  JetsOfNanoAod jets(source);
  ProductSlot pt, n;
  for (std::uint64_t ordinal : {150, 151, 152, 153, 154, 155, 120, 121, 122, 123, 124, 125, 126, 199, 40}) {
    SourceEvent event;
    ASSERT_TRUE(copy->at(ordinal, event));
    jets.expectSame(*copy, event, n, pt);
  }
}

// A TTree of one scalar branch of each fundamental type, 100 entries, whose
// value at an entry is scalarValue(branch, entry), two arrays (one of a
// count branch's length, one of a fixed length) and two std::vectors. In baskets of 37 entries,
// or (embedded) all in the last basket, which the tree's own record holds.
struct ScalarBranch {
  char const* name;
  char const* leaves;
  std::size_t size;
};
ScalarBranch const kScalars[] = {{"b", "b/O", 1}, {"c", "c/B", 1}, {"uc", "uc/b", 1}, {"s", "s/S", 2},
                                 {"us", "us/s", 2}, {"i", "i/I", 4}, {"ui", "ui/i", 4}, {"l", "l/L", 8},
                                 {"ul", "ul/l", 8}, {"f", "f/F", 4}, {"d", "d/D", 8}};

// The bytes of branch k's value at `entry`, as its type holds them.
std::array<std::byte, 8> scalarValue(std::size_t k, long long entry) {
  std::array<std::byte, 8> bytes{};
  auto const put = [&](auto value) { std::memcpy(bytes.data(), &value, sizeof value); };
  auto const n = static_cast<int>(entry * 11 + static_cast<long long>(k));
  switch (k) {
    case 0: put(static_cast<Bool_t>(entry % 3 == 0)); break;
    case 1: put(static_cast<Char_t>(n % 120 - 60)); break;
    case 2: put(static_cast<UChar_t>(n % 250)); break;
    case 3: put(static_cast<Short_t>(-n)); break;
    case 4: put(static_cast<UShort_t>(n * 3)); break;
    case 5: put(static_cast<Int_t>(-n * 1000)); break;
    case 6: put(static_cast<UInt_t>(n) * 4000000u); break;
    case 7: put(-static_cast<Long64_t>(n) << 40); break;
    case 8: put(static_cast<ULong64_t>(n) << 50); break;
    case 9: put(static_cast<Float_t>(n) * 0.25f); break;
    default: put(static_cast<Double_t>(n) * -1e-3); break;
  }
  return bytes;
}

// Entry e's arrays: v[n] of n = e % 5 floats e + j/8, and fixed[3] of shorts -e - j.
std::vector<float> variableArray(long long entry) {
  std::vector<float> values;
  for (int j = 0; j < entry % 5; ++j) values.push_back(static_cast<float>(entry) + static_cast<float>(j) / 8);
  return values;
}
std::vector<std::int16_t> fixedArray(long long entry) {
  return {static_cast<std::int16_t>(-entry), static_cast<std::int16_t>(-entry - 1), static_cast<std::int16_t>(-entry - 2)};
}

std::vector<bool> boolVector(long long entry) {
  std::vector<bool> values;
  for (int j = 0; j < entry % 4; ++j) values.push_back((entry + j) % 3 == 0);
  return values;
}

void fillFundamentals(TTree& tree) {
  std::array<std::array<std::byte, 8>, std::size(kScalars)> values{};
  for (std::size_t k = 0; k < std::size(kScalars); ++k) tree.Branch(kScalars[k].name, values[k].data(), kScalars[k].leaves);
  Int_t n = 0;
  std::array<Float_t, 5> variable{};
  std::array<Short_t, 3> fixed{};
  tree.Branch("n", &n, "n/I");
  tree.Branch("v", variable.data(), "v[n]/F");
  tree.Branch("fixed", fixed.data(), "fixed[3]/S");
  std::vector<float> vectorOfFloats;
  std::vector<bool> vectorOfBools;
  tree.Branch("vf", &vectorOfFloats);
  tree.Branch("vb", &vectorOfBools);
  for (long long entry = 0; entry < 100; ++entry) {
    for (std::size_t k = 0; k < std::size(kScalars); ++k) values[k] = scalarValue(k, entry);
    auto const v = variableArray(entry);
    n = static_cast<Int_t>(v.size());
    std::copy(v.begin(), v.end(), variable.begin());
    auto const f = fixedArray(entry);
    std::copy(f.begin(), f.end(), fixed.begin());
    vectorOfFloats = v;
    vectorOfBools = boolVector(entry);
    tree.Fill();
  }
}

void writeFundamentals(std::string const& path, bool embedded) {
  if (embedded) {
    TTree tree("Events", "scalars");
    tree.SetDirectory(nullptr);  // no file to flush baskets to: all stay in the tree's record
    fillFundamentals(tree);
    TFile(path.c_str(), "RECREATE").WriteTObject(&tree);
  } else {
    TFile file(path.c_str(), "RECREATE");
    TTree tree("Events", "scalars");  // in the file: flushed every 37 entries
    tree.SetAutoFlush(37);
    fillFundamentals(tree);
    tree.Write();
  }
}

// Checks the value of every product of `entry` in `slots`, by product index (see fillFundamentals).
void expectFundamentalsIn(Source const& copy, long long entry, std::vector<ProductSlot> const& slots) {
  for (std::size_t k = 0; k < std::size(kScalars); ++k) {
    auto const& slot = slots[indexOf(copy, kScalars[k].name)];
    auto const expected = scalarValue(k, entry);
    EXPECT_EQ(std::memcmp(slot.object(), expected.data(), kScalars[k].size), 0) << kScalars[k].name;
    EXPECT_EQ(slot.bytes(), kScalars[k].size) << kScalars[k].name;
  }
  auto const& v = slots[indexOf(copy, "v")];
  EXPECT_EQ(*static_cast<std::vector<float> const*>(v.object()), variableArray(entry));
  EXPECT_EQ(v.bytes(), variableArray(entry).size() * sizeof(float));
  EXPECT_EQ(*static_cast<std::vector<std::int16_t> const*>(slots[indexOf(copy, "fixed")].object()), fixedArray(entry));
  auto const& vf = slots[indexOf(copy, "vf")];
  EXPECT_EQ(*static_cast<std::vector<float> const*>(vf.object()), variableArray(entry));
  EXPECT_EQ(vf.bytes(), 10 + variableArray(entry).size() * sizeof(float)) << "a streamed vector's bytes";
  EXPECT_EQ(*static_cast<std::vector<bool> const*>(slots[indexOf(copy, "vb")].object()), boolVector(entry));
}

// Reads every product of `entry` through `copy`, one at a time, and checks its value.
void expectFundamentals(Source& copy, long long entry, std::string const& where) {
  SCOPED_TRACE(where + ", entry " + std::to_string(entry));
  SourceEvent event;
  ASSERT_TRUE(copy.at(static_cast<std::uint64_t>(entry), event));
  std::vector<ProductSlot> slots(copy.products().size());
  for (std::size_t p = 0; p < slots.size(); ++p) copy.read(event, p, slots[p]);
  expectFundamentalsIn(copy, entry, slots);
}

TEST(TreeSourceTest, BranchesReadFromTheirBasketsHoldTheirValuesInAnyOrder) {
  // A lane's copy reads branches of fundamental types a basket at a time
  // and converts each value as it hands it over: every type, arrays and
  // vectors too, across basket boundaries, going back and forth; a basket
  // held in the tree's record is read entry by entry instead.
  ScratchDirectory scratch;
  for (bool const embedded : {false, true}) {
    auto const path = scratch.path(embedded ? "embedded.root" : "baskets.root");
    writeFundamentals(path, embedded);
    {
      TFile file(path.c_str());
      ASSERT_EQ(file.Get<TTree>("Events")->GetBranch("i")->GetWriteBasket(), embedded ? 0 : 3) << "the layout tested";
    }
    TreeSource source(optionsOf("file=" + path));
    EXPECT_EQ(nlohmann::json::parse(source.details()).at("branches_from_baskets"), 16) << "every branch";
    for (auto const chunk : {10u, 1000u}) {  // baskets of 37 entries that span lanes' runs (shared), or not
      source.useReplicaChunk(chunk);
      auto copy = source.replicate();
      for (long long entry : {0, 1, 36, 37, 38, 73, 74, 99, 98, 50, 5, 36, 37, 0, 99}) {
        expectFundamentals(*copy, entry, embedded ? "embedded" : "chunk " + std::to_string(chunk));
      }
    }
  }
}

// A basket that holds entries of two lanes' runs is decompressed by the
// first lane that needs it and read by both from one copy, kept until the
// lane of the other run came; then, once no lane holds it, the next lane to
// need it decompresses it again.
TEST(TreeSourceTest, ABasketInTwoLanesRunsIsDecompressedOnce) {
  ScratchDirectory scratch;
  auto const path = scratch.path("baskets.root");
  writeFundamentals(path, false);  // baskets of 37 entries
  TreeSource source(optionsOf("file=" + path));
  source.useReplicaChunk(30);  // runs [0, 30), [30, 60), ...: the basket [0, 37) spans the first two, [37, 74) the next
  auto first = source.replicate(), second = source.replicate();
  auto const shared = [&] { return nlohmann::json::parse(source.details()).value("baskets_shared", nlohmann::json{}); };
  EXPECT_TRUE(shared().is_null()) << "nothing shared yet";
  expectFundamentals(*first, 5, "the first lane");
  // One basket of each branch read from baskets (not every branch: one laid out otherwise is read by ROOT).
  auto const branches = shared().at("decompressed").get<int>();
  EXPECT_GE(branches, static_cast<int>(std::size(kScalars)));
  expectFundamentals(*first, 40, "the first lane moves on, to the next basket");
  EXPECT_EQ(shared().at("decompressed"), 2 * branches);
  expectFundamentals(*second, 31, "the second lane, after the first let go of the basket");
  expectFundamentals(*second, 62, "the second lane moves on");
  EXPECT_EQ(shared().at("decompressed"), 2 * branches) << "both kept for the second lane";
  EXPECT_EQ(shared().at("reused"), 2 * branches);
  second.reset();
  auto third = source.replicate();
  expectFundamentals(*third, 6, "a lane back at a basket that both runs' lanes read, which no lane holds");
  EXPECT_EQ(shared().at("decompressed"), 3 * branches) << "decompressed again";
  for (long long entry = 0; entry < 100; ++entry) expectFundamentals(*first, entry, "every entry, one lane");
}

// Two lanes read the same entries at once, each event's products together
// (as a job's lanes do): every basket spans several lanes' runs, so they
// share them, and one often wants a basket the other is decompressing and
// waits for it: every value is right, in every round, whichever lane made
// which basket.
TEST(TreeSourceTest, TwoLanesWantingTheSameBasketsAtOnceReadEveryValue) {
  ScratchDirectory scratch;
  auto const path = scratch.path("baskets.root");
  writeFundamentals(path, false);  // baskets of 37 entries
  TreeSource source(optionsOf("file=" + path));
  source.useReplicaChunk(10);
  std::vector<ProductIndex> every(source.products().size());
  std::iota(every.begin(), every.end(), ProductIndex{0});
  auto const readEveryEntry = [&](Source& copy) {
    std::vector<ProductSlot> slots(every.size());
    for (long long entry = 0; entry < 100; ++entry) {
      SourceEvent event;
      ASSERT_TRUE(copy.at(static_cast<std::uint64_t>(entry), event));
      copy.readProducts(event, every.data(), every.size(), slots.data());
      expectFundamentalsIn(copy, entry, slots);
    }
  };
  constexpr int kRounds = 40;
  for (int round = 0; round < kRounds && !HasFailure(); ++round) {
    auto first = source.replicate(), second = source.replicate();  // the second reads products last to first
    std::thread other([&] { readEveryEntry(*second); });
    readEveryEntry(*first);
    other.join();
  }
  auto const shared = nlohmann::json::parse(source.details()).at("baskets_shared");
  EXPECT_GT(shared.at("reused").get<int>(), 0);
  RecordProperty("waited_for", std::to_string(shared.at("waited_for").get<int>()));
}

TEST(TreeSourceTest, ObjectBranchesAreTheirClassesAndUnknownClassesAreEmulated) {
  TreeSource hzz(optionsOf("file=" + dataFile(kHzz) + ",tree=events"));
  auto const p = indexOf(hzz, "MC_lepton");
  EXPECT_EQ(hzz.products()[p].typeName, "TVector3");
  SourceEvent position;
  ASSERT_TRUE(hzz.next(position));
  EXPECT_EQ(position.id.event, 1u) << "no id branches: numbered from 1";
  ProductSlot slot;
  hzz.read(position, p, slot);
  EXPECT_EQ(slot.type(), *TClass::GetClass("TVector3")->GetTypeInfo());
  // No dictionary for vector<TLorentzVector> here: ROOT emulates it.
  EXPECT_EQ(std::type_index(hzz.products()[indexOf(hzz, "jetp4")].type), std::type_index(typeid(EmulatedObject)));

  TreeSource split(optionsOf("file=" + dataFile(kFullSplit) + ",tree=tree"));
  auto const& evt = split.products()[indexOf(split, "evt")];
  EXPECT_EQ(evt.typeName, "Event");
  ASSERT_TRUE(split.next(position));
  split.read(position, indexOf(split, "evt"), slot);
  ASSERT_EQ(slot.type(), typeid(EmulatedObject));
  EXPECT_STREQ(static_cast<EmulatedObject const*>(slot.object())->rootClass()->GetName(), "Event");
}

// Loading dictionaries changes the process for good (the classes stop being
// emulated), so this runs in a child process of its own.
TEST(TreeSourceDeathTest, DictionariesMakeEmulatedClassesReal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ScratchDirectory cache;
  auto buildAndCheck = [&] {
    for (auto const& [file, tree, branch, cls] :
         {std::tuple{kHzz, "events", "jetp4", "vector<TLorentzVector>"}, std::tuple{kFullSplit, "tree", "evt", "Event"}}) {
      TreeSource source(optionsOf("file=" + dataFile(file) + ",tree=" + tree + ",dictionaries=" + cache.path("")));
      auto const& product = source.products()[indexOf(source, branch)];
      if (product.typeName != cls || product.type == typeid(EmulatedObject)) std::exit(1);
      SourceEvent position;
      ProductSlot slot;
      if (!source.next(position)) std::exit(2);
      source.read(position, indexOf(source, branch), slot);
      if (std::type_index(slot.type()) != product.type) std::exit(3);
    }
    std::exit(cache.files().size() == 2 ? 0 : 4);  // one cached build per set of classes
  };
  EXPECT_EXIT(buildAndCheck(), ::testing::ExitedWithCode(0), "");
}

// text.root (not a ROOT file) and truncated.root (the first 100 kB of a real one).
void writeBrokenFiles(ScratchDirectory const& scratch) {
  std::ofstream(scratch.path("text.root")) << "not a ROOT file\n";
  std::ifstream in(dataFile(kNanoAod), std::ios::binary);
  std::string head(100000, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  std::ofstream(scratch.path("truncated.root"), std::ios::binary) << head;
}

TEST(TreeSourceTest, BadInputNamesTheFile) {
  ScratchDirectory scratch;
  writeBrokenFiles(scratch);
  auto error = [](std::string const& options) { return errorOf([&] { TreeSource source(optionsOf(options)); }); };
  expectMentions(error("file=" + scratch.path("missing.root")), {"missing.root", "does not exist"});
  expectMentions(error("file=" + scratch.path("text.root")), {"text.root", "not a readable ROOT file"});
  expectMentions(error("file=" + scratch.path("truncated.root")), {"truncated.root"});
  expectMentions(error("file=" + dataFile(kHzz)), {kHzz.c_str(), "no TTree 'Events'", "events"});
  expectMentions(error("file=" + dataFile(kMuons)), {kMuons.c_str(), "'Events' is of class ROOT::RNTuple, not TTree"});
  expectMentions(error("file=" + dataFile(kNanoAod) + ",branches=Jet_ptt"),
                 {kNanoAod.c_str(), "branches=Jet_ptt matches no branch"});
  expectMentions(error("file=" + dataFile(kNanoAod) + ",exclude=Jet_*,exclude=Jets_*"),
                 {kNanoAod.c_str(), "exclude=Jets_* matches no branch"});
  expectMentions(error("files=" + scratch.path("nolist.txt")), {"nolist.txt"});
  expectMentions(error("tree=Events"), {"no input"});
  // A dictionary cache that cannot be made fails before any build.
  expectMentions(error("file=" + dataFile(kHzz) + ",tree=events,dictionaries=/proc/lanes-dictionaries"),
                 {"cannot build dictionaries", kHzz.c_str(), "/proc/lanes-dictionaries"});
}

// A shared source counts each later file when it reaches it: at start-up it
// only checks that the file can be read and starts as a ROOT file does.
TEST(TreeSourceTest, ALaterBadFileFailsAtStartUpOrWhenReached) {
  ScratchDirectory scratch;
  writeBrokenFiles(scratch);
  auto const good = "file=" + dataFile(kNanoAod) + ",branches=nJet,file=";
  auto error = [](std::string const& options) { return errorOf([&] { TreeSource source(optionsOf(options)); }); };
  expectMentions(error(good + scratch.path("missing.root")), {"missing.root", "does not exist"});
  expectMentions(error(good + scratch.path("text.root")), {"text.root", "not a readable ROOT file"});

  TreeSource source(optionsOf(good + scratch.path("truncated.root")));
  SourceEvent event;
  std::uint64_t events = 0;
  auto const reachEnd = [&] {
    while (source.next(event)) ++events;
  };
  expectMentions(errorOf(reachEnd), {"truncated.root"});
  EXPECT_EQ(events, 200u) << "every event of the good file came first";
}

// Per-lane copies count later files as they reach them too, and share what
// they learn: a copy addresses an entry in a file no copy has counted yet.
TEST(TreeSourceTest, PerLaneCopiesCountLaterFilesWhenReached) {
  ScratchDirectory scratch;
  writeBrokenFiles(scratch);
  auto const file = dataFile(kNanoAod);
  TreeSource source(optionsOf("handles=lane,branches=nJet,file=" + file + ",file=" + file + ",file=" +
                              scratch.path("truncated.root")));
  auto first = source.replicate();
  auto second = source.replicate();
  SourceEvent event;
  ASSERT_TRUE(first->at(399, event));
  EXPECT_EQ(event.entry, 399u);
  ASSERT_TRUE(second->at(250, event)) << "the second file, counted by the other copy";
  EXPECT_EQ(event.entry, 250u);
  expectMentions(errorOf([&] { first->at(400, event); }), {"truncated.root"});
}

// --chunk file: a process counts its own files, and is told the entries of
// the others' (which it never opens, even to move past them): here the
// truncated file, told to have 200 entries, is skipped without being opened.
TEST(TreeSourceTest, FilesCountedElsewhereAreSkippedWithoutBeingOpened) {
  ScratchDirectory scratch;
  writeBrokenFiles(scratch);
  auto const file = dataFile(kNanoAod);
  TreeSource source(optionsOf("branches=nJet,file=" + file + ",file=" + scratch.path("truncated.root") +
                              ",file=" + file));
  ASSERT_EQ(source.fileList().size(), 3u);
  EXPECT_EQ(source.fileList()[1], scratch.path("truncated.root"));
  EXPECT_EQ(source.fileEntries(2), 200u);
  expectMentions(errorOf([&] { source.fileEntries(1); }), {"truncated.root"});
  source.learnFileEntries(1, 200);
  EXPECT_TRUE(source.skip(450));
  SourceEvent event;
  ASSERT_TRUE(source.next(event));
  EXPECT_EQ(event.entry, 450u);
  TreeSource alone(optionsOf("branches=nJet,file=" + file));
  SourceEvent expected;
  ASSERT_TRUE(alone.skip(50) && alone.next(expected));
  EXPECT_EQ(event.id, expected.id) << "entry 50 of the third file";
  EXPECT_EQ(source.origin(), file);
}

TEST(TreeSourceTest, ASharedSourceSkipsAcrossFilesItHasNotCountedYet) {
  auto const file = dataFile(kNanoAod);
  TreeSource source(optionsOf("file=" + file + ",file=" + file + ",file=" + file + ",branches=nJet"));
  EXPECT_TRUE(source.skip(350));
  SourceEvent event;
  ASSERT_TRUE(source.next(event));
  EXPECT_EQ(event.entry, 350u);
  EXPECT_TRUE(source.skip(248));
  ASSERT_TRUE(source.next(event));
  EXPECT_EQ(event.entry, 599u);
  EXPECT_FALSE(source.skip(1)) << "600 entries in all";
  EXPECT_FALSE(source.next(event));
}


// The NanoAOD file with every branch an object (std::vector<T>) and the ids in
// the leaf list EventID (run, lumi, event).
TreeSource vectors(std::string const& extra = "") {
  return TreeSource(optionsOf("file=" + dataFile(kVectors) + ",id=EventID" + extra));
}

struct EventIdLeaves {
  UInt_t run;
  UInt_t lumi;
  ULong64_t event;
};

// The run report's source.tree_cache: by default none for a file on local
// storage (where ROOT's TTreeCache only copies every basket once more) and
// ROOT's automatic size elsewhere; cache=BYTES wherever the file is.
TEST(TreeSourceTest, TheTreeCacheIsNoneOnLocalStorageUnlessCacheIsGiven) {
  auto cacheOf = [](TreeSource const& source) {
    return nlohmann::json::parse(source.details()).at("tree_cache").get<std::string>();
  };
  EXPECT_EQ(cacheOf(nanoAod()), onLocalStorage(dataFile(kNanoAod)) ? "none: the first file is on local storage"
                                                                    : "ROOT's automatic size");
  EXPECT_EQ(cacheOf(nanoAod(",cache=1000000")), "1000000 bytes (cache=)");
  EXPECT_EQ(cacheOf(nanoAod(",cache=0")), "0 bytes (cache=)");
}

// The run report's source.branches_from_baskets: what a lane's copy reads a
// basket at a time (every branch of both NanoAOD files), and none where no
// copy does (a shared source; readahead=1, entry by entry).
TEST(TreeSourceTest, TheReportSaysWhichBranchesAreReadFromTheirBaskets) {
  auto fromBaskets = [](TreeSource const& source) {
    return nlohmann::json::parse(source.details()).at("branches_from_baskets").get<std::size_t>();
  };
  EXPECT_EQ(fromBaskets(nanoAod()), 944u);
  EXPECT_EQ(fromBaskets(vectors()), vectors().products().size());
  EXPECT_EQ(fromBaskets(nanoAod(",handles=shared")), 0u);
  EXPECT_EQ(fromBaskets(nanoAod(",readahead=1")), 0u);
}

TEST(TreeSourceTest, IdsComeFromTheLeavesOfALeafListBranch) {
  auto source = vectors();
  EXPECT_THROW(indexOf(source, "EventID"), std::runtime_error) << "the id branch is no product";
  TFile file(dataFile(kVectors).c_str());
  auto* tree = file.Get<TTree>("Events");
  EventIdLeaves id{};
  tree->SetBranchAddress("EventID", &id);
  SourceEvent position;
  Long64_t entry = 0;
  while (source.next(position)) {
    ASSERT_GT(tree->GetEntry(entry++), 0);
    EXPECT_EQ(position.id, (EventId{id.run, id.lumi, id.event}));
  }
  EXPECT_EQ(entry, 200);
  EXPECT_NE(id.event, 200u) << "real event numbers, not ordinals";
  auto lanes = vectors(",handles=lane");
  auto copy = lanes.replicate();
  ASSERT_TRUE(copy->at(199, position));
  EXPECT_EQ(position.id, (EventId{id.run, id.lumi, id.event}));
}

TEST(TreeSourceTest, ABadIdBranchIsRefusedNamingIt) {
  auto error = [](std::string const& options) {
    return errorOf([&] { TreeSource source(optionsOf("file=" + dataFile(kVectors) + "," + options)); });
  };
  expectMentions(error("id=Nope"), {kVectors.c_str(), "no branch 'Nope'", "id="});
  expectMentions(error("id=HTXS_Higgs_pt"), {kVectors.c_str(), "id branch 'HTXS_Higgs_pt'", "no integer leaf 'run'"});
  expectMentions(error("id="), {"id= names no branch"});
  // Without id= the leaf list would be a product, which it cannot be.
  expectMentions(error("exclude=Jet_pt"),
                 {"1 selected branch cannot be read here: 'EventID' (it has 3 leaves", "exclude=EventID"});
}

// An object product is a view of a pooled object: once the event that had it
// lets its slot go, a later event's product is read into the same object. A
// lane's slot, vacated between events, gets back the object it held (read
// straight into it, or through a window of objects read ahead); a slot that
// lets go of it (reset) gives it back to the pool.
TEST(TreeSourceTest, ObjectProductsReuseTheObjectsOfEarlierEvents) {
  for (auto const& [readAhead, vacated, most] :
       {std::tuple{1, true, 1u}, std::tuple{4, true, 5u}, std::tuple{4, false, 5u}}) {
    SCOPED_TRACE("readahead=" + std::to_string(readAhead) + (vacated ? ", vacated" : ", reset"));
    auto source = vectors(",branches=Jet_pt,readahead=" + std::to_string(readAhead));
    auto const p = indexOf(source, "Jet_pt");
    TFile file(dataFile(kVectors).c_str());
    auto* tree = file.Get<TTree>("Events");
    std::vector<float>* expected = nullptr;
    tree->SetBranchAddress("Jet_pt", &expected);
    std::set<void const*> objects;
    ProductSlot slot;
    SourceEvent position;
    Long64_t entry = 0;
    while (source.next(position)) {
      // As the lane does when it starts its next event; or as a slot that lets go.
      vacated ? slot.vacate() : slot.reset();
      source.read(position, p, slot);
      ASSERT_GT(tree->GetEntry(entry++), 0);
      ASSERT_EQ(*static_cast<std::vector<float> const*>(slot.object()), *expected) << "entry " << entry - 1;
      objects.insert(slot.object());
    }
    tree->ResetBranchAddresses();
    delete expected;  // made by ROOT for the null address, ours to delete
    EXPECT_EQ(entry, 200);
    EXPECT_LE(objects.size(), most) << "the read-ahead window's and the slot's, not one per event";
  }
}

// What keeps products beyond their events (a repeat cache keeps the slots)
// keeps them intact, even after the source that lent them is gone.
TEST(TreeSourceTest, KeptProductsStayIntactAfterTheSourceIsGone) {
  std::vector<std::unique_ptr<ProductSlot>> kept;
  {
    auto source = vectors(",branches=Jet_pt,handles=lane,chunk=7");
    auto copy = source.replicate();
    auto const p = indexOf(source, "Jet_pt");
    SourceEvent position;
    for (std::uint64_t ordinal = 0; copy->at(ordinal, position); ++ordinal) {
      kept.push_back(std::make_unique<ProductSlot>());
      copy->read(position, p, *kept.back());
    }
  }
  ASSERT_EQ(kept.size(), 200u);
  TFile file(dataFile(kVectors).c_str());
  auto* tree = file.Get<TTree>("Events");
  std::vector<float>* expected = nullptr;
  tree->SetBranchAddress("Jet_pt", &expected);
  for (Long64_t entry = 0; entry < 200; ++entry) {
    ASSERT_GT(tree->GetEntry(entry), 0);
    EXPECT_EQ(*static_cast<std::vector<float> const*>(kept[entry]->object()), *expected) << "entry " << entry;
  }
  tree->ResetBranchAddresses();
  delete expected;  // made by ROOT for the null address, ours to delete
}

}  // namespace
}  // namespace lanes::rootio::test
