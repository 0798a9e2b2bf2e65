// The `rntuple` source on CMS Open Data muons, checked against ROOT's
// RNTupleReader: product types, values, numbering, selection and errors.

#include "root/NTupleSource.h"

#include <gtest/gtest.h>

#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <ROOT/RVec.hxx>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"
#include "root/EmulatedRecord.h"
#include "root/corners/NTupleCorners.h"

namespace lanes::rootio::test {
namespace {

using mimicry::test::errorOf;
using mimicry::test::expectMentions;
using mimicry::test::optionsOf;

TEST(NTupleSourceTest, ProjectedFieldsAreTypedProductsAndUntypedRecordsAreNot) {
  NTupleSource source(optionsOf("file=" + dataFile(kMuons)));
  std::vector<std::string> labels;
  for (auto const& product : source.products()) labels.push_back(product.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass", "Muon_charge", "nMuon"}));
  EXPECT_EQ(std::type_index(source.products()[0].type), std::type_index(typeid(std::vector<float>)));
  EXPECT_EQ(std::type_index(source.products()[4].type), std::type_index(typeid(std::vector<std::int32_t>)));
  EXPECT_EQ(std::type_index(source.products()[5].type), std::type_index(typeid(std::uint32_t)));
}

TEST(NTupleSourceTest, ValuesMatchRootsOwnReader) {
  NTupleSource source(optionsOf("file=" + dataFile(kMuons) + ",handles=lane"));
  auto reader = ROOT::RNTupleReader::Open("Events", dataFile(kMuons));
  auto pt = reader->GetView<ROOT::RVec<float>>("Muon_pt");
  auto charge = reader->GetView<ROOT::RVec<std::int32_t>>("Muon_charge");
  auto const ptIndex = indexOf(source, "Muon_pt");
  auto const chargeIndex = indexOf(source, "Muon_charge");
  auto const nIndex = indexOf(source, "nMuon");
  auto copy = source.replicate();
  ASSERT_NE(copy, nullptr);
  // Backwards, through the per-lane copy, to read out of order.
  for (std::uint64_t entry = reader->GetNEntries(); entry-- > 0;) {
    SourceEvent position;
    ASSERT_TRUE(copy->at(entry, position));
    EXPECT_EQ(position.id.event, entry + 1) << "no id fields: numbered from 1";
    ProductSlot ptSlot, chargeSlot, nSlot;
    copy->read(position, ptIndex, ptSlot);
    copy->read(position, chargeIndex, chargeSlot);
    copy->read(position, nIndex, nSlot);
    auto const& expected = pt(entry);
    auto const& values = *static_cast<std::vector<float> const*>(ptSlot.object());
    ASSERT_EQ(values.size(), expected.size());
    EXPECT_TRUE(std::equal(values.begin(), values.end(), expected.begin()));
    auto const& charges = *static_cast<std::vector<std::int32_t> const*>(chargeSlot.object());
    EXPECT_TRUE(std::equal(charges.begin(), charges.end(), charge(entry).begin()));
    EXPECT_EQ(*static_cast<std::uint32_t const*>(nSlot.object()), expected.size());
  }
  SourceEvent past;
  EXPECT_FALSE(copy->at(reader->GetNEntries(), past));
}

TEST(NTupleSourceTest, FieldsAndExcludeSelectProducts) {
  NTupleSource source(optionsOf("file=" + dataFile(kMuons) + ",fields=Muon_*,exclude=Muon_mass"));
  std::vector<std::string> labels;
  for (auto const& product : source.products()) labels.push_back(product.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"Muon_pt", "Muon_eta", "Muon_phi", "Muon_charge"}));
}

TEST(NTupleSourceTest, BadInputNamesTheFile) {
  auto error = [](std::string const& options) { return errorOf([&] { NTupleSource source(optionsOf(options)); }); };
  expectMentions(error("file=" + dataFile(kNanoAod)),
                 {kNanoAod.c_str(), "'Events' is of class TTree, not ROOT::RNTuple"});
  expectMentions(error("file=" + dataFile(kMuons) + ",fields=Muon_ptt"),
                 {kMuons.c_str(), "fields=Muon_ptt matches no field"});
  expectMentions(error("file=" + dataFile(kMuons) + ",exclude=Muon_*,exclude=Jet_*"),
                 {kMuons.c_str(), "exclude=Jet_* matches no field"});
  expectMentions(error("file=" + dataFile(kMuons) + ",ntuple=Muons"), {"no RNTuple 'Muons'", "Events"});
  expectMentions(error("file=/nonexistent.root"), {"/nonexistent.root", "does not exist"});
}

// Later files are counted when a copy reaches them, and per-lane copies
// share the counts: a copy addresses an entry in a file no copy has counted
// yet, and a truncated later file fails then, naming it.
TEST(NTupleSourceTest, LaterFilesAreCountedWhenReached) {
  ScratchDirectory scratch;
  auto const muons = dataFile(kMuons);
  std::ifstream in(muons, std::ios::binary);
  std::string head(10000, '\0');  // of 27 kB
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  std::ofstream(scratch.path("truncated.root"), std::ios::binary) << head;

  auto const files = "file=" + muons + ",file=" + muons + ",file=" + scratch.path("truncated.root");
  NTupleSource source(optionsOf("handles=lane," + files));
  auto first = source.replicate();
  auto second = source.replicate();
  SourceEvent event;
  ASSERT_TRUE(first->at(1999, event));
  EXPECT_EQ(event.id.event, 2000u);
  ASSERT_TRUE(second->at(1500, event)) << "the second file, counted by the other copy";
  EXPECT_EQ(event.id.event, 1501u);
  expectMentions(errorOf([&] { first->at(2000, event); }), {"truncated.root"});

  NTupleSource shared(optionsOf(files));
  EXPECT_TRUE(shared.skip(1999));
  ASSERT_TRUE(shared.next(event));
  EXPECT_EQ(event.id.event, 2000u);
  expectMentions(errorOf([&] { shared.next(event); }), {"truncated.root"});
}


// Object fields read into pooled objects: reused once an event lets go, and
// intact for as long as a slot keeps them, the source gone or not.
TEST(NTupleSourceTest, ObjectProductsAreReusedAndKeptProductsStayIntact) {
  auto reader = ROOT::RNTupleReader::Open("Events", dataFile(kMuons));
  auto pt = reader->GetView<ROOT::RVec<float>>("Muon_pt");
  auto equals = [&](ProductSlot const& slot, std::uint64_t entry) {
    auto const& values = *static_cast<std::vector<float> const*>(slot.object());
    auto const& expected = pt(entry);
    return std::equal(values.begin(), values.end(), expected.begin(), expected.end());
  };
  std::vector<std::unique_ptr<ProductSlot>> kept;
  {
    NTupleSource source(optionsOf("file=" + dataFile(kMuons) + ",fields=Muon_pt"));
    std::set<void const*> laneObjects, objects;
    ProductSlot laneSlot, slot;
    SourceEvent position;
    for (std::uint64_t entry = 0; source.next(position); ++entry) {
      laneSlot.vacate();  // as the lane does when it starts its next event: it keeps the object for the next read
      source.read(position, 0, laneSlot);
      ASSERT_TRUE(equals(laneSlot, entry)) << "entry " << entry;
      laneObjects.insert(laneSlot.object());
      slot.reset();  // a slot that lets go gives the object back to the pool
      source.read(position, 0, slot);
      ASSERT_TRUE(equals(slot, entry)) << "entry " << entry;
      objects.insert(slot.object());
      if (entry % 100 == 0) {
        kept.push_back(std::make_unique<ProductSlot>());
        source.read(position, 0, *kept.back());
      }
    }
    EXPECT_EQ(laneObjects.size(), 1u) << "read straight into the object the lane's slot kept";
    EXPECT_LE(objects.size(), 2u) << "reused, not one object per event";
  }
  ASSERT_EQ(kept.size(), 10u);
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_TRUE(equals(*kept[i], i * 100)) << "entry " << i * 100;
}

// PHYSLITE's ElementLinks (AuxDyn fields of an xAOD ElementLink, a
// std::vector of them, or a std::vector of such vectors), read emulated: ROOT
// 6.40 cannot emulate those it wrote with ROOT 6.34's type names, so the
// source puts their fields together (emulatedField()). Each link holds the
// key and index that ROOT reads from their columns, entry by entry.
TEST(NTupleSourceTest, PhysliteElementLinksHoldWhatRootReadsFromTheirColumns) {
  struct Link {  // ElementLinkBase, as an emulated record lays it out
    std::uint32_t key, index;
  };
  auto const path = dataFile(kPhyslite);
  auto reader = ROOT::RNTupleReader::Open("EventData", path);
  std::vector<std::string> links;
  std::string fields;
  for (auto const& field : reader->GetDescriptor().GetTopLevelFields()) {
    auto const& name = field.GetFieldName();
    if (name.find("AuxDyn:") == std::string::npos || field.GetTypeName().find("ElementLink<") == std::string::npos) continue;
    links.push_back(name);
    fields += ",fields=" + name;
  }
  ASSERT_EQ(links.size(), 76u);
  NTupleSource source(optionsOf("file=" + path + ",ntuple=EventData" + fields));
  ASSERT_EQ(source.products().size(), links.size());
  std::size_t values = 0;
  for (std::size_t p = 0; p < links.size(); ++p) {
    auto const& name = links[p];
    auto const type = reader->GetDescriptor().GetFieldDescriptor(reader->GetDescriptor().FindFieldId(name)).GetTypeName();
    int const depth = type.rfind("std::vector<std::vector<", 0) == 0 ? 2 : type.rfind("std::vector<", 0) == 0 ? 1 : 0;
    std::string item = name;
    for (int d = 0; d < depth; ++d) item += "._0";
    auto key = reader->GetView<std::uint32_t>(item + ".:_0.m_persKey");
    auto index = reader->GetView<std::uint32_t>(item + ".:_0.m_persIndex");
    // Compares the links of `range` (items of the field's innermost collection) with those at `bytes`.
    auto const expectLinks = [&](ROOT::RNTupleLocalRange const& range, std::vector<char> const& bytes) {
      ASSERT_EQ(bytes.size(), range.size() * sizeof(Link)) << name;
      auto const* read = reinterpret_cast<Link const*>(bytes.data());
      for (auto const at : range) {
        ASSERT_EQ(read->key, key(at)) << name;
        ASSERT_EQ(read->index, index(at)) << name;
        ++read, ++values;
      }
    };
    std::optional<ROOT::RNTupleCollectionView> outerView, innerView;
    if (depth > 0) outerView.emplace(reader->GetCollectionView(name));
    if (depth > 1) innerView.emplace(reader->GetCollectionView(name + "._0"));
    SourceEvent event;
    for (std::uint64_t entry = 0; source.at(entry, event); ++entry) {
      ProductSlot slot;
      source.read(event, p, slot);
      auto const* object = static_cast<EmulatedRecord const*>(slot.object())->object();
      if (depth == 0) {
        auto const& link = *static_cast<Link const*>(object);
        ASSERT_EQ(link.key, key(entry)) << name;
        ASSERT_EQ(link.index, index(entry)) << name;
        ++values;
        continue;
      }
      // An emulated std::vector holds its items' bytes as a std::vector<char>; an item of a nested one is such a vector.
      auto const& outer = *static_cast<std::vector<char> const*>(object);
      auto const range = outerView->GetCollectionRange(entry);
      if (depth == 1) {
        expectLinks(range, outer);
        continue;
      }
      ASSERT_EQ(outer.size(), range.size() * sizeof(std::vector<char>)) << name;
      auto const* items = reinterpret_cast<std::vector<char> const*>(outer.data());
      for (auto const at : range) expectLinks(innerView->GetCollectionRange(at), *items++);
    }
  }
  EXPECT_GT(values, 10000u) << "links compared";
}

// The value of `entry` of the emulated field `p` of `source`, which ROOT lays
// out as it does a `T` (std::vector<char> of items, items in place).
template <typename T>
T const& emulatedAs(Source& source, std::size_t p, std::uint64_t entry, ProductSlot& slot) {
  SourceEvent event;
  source.at(entry, event);
  source.read(event, p, slot);
  return *static_cast<T const*>(static_cast<EmulatedRecord const*>(slot.object())->object());
}

// The other AuxDyn fields of PHYSLITE that lanes reads emulated, nested
// std::vectors and pairs of types ROOT has no dictionary for here: each
// value equals what ROOT reads through a view of the type.
TEST(NTupleSourceTest, PhysliteNestedCollectionsReadEmulatedHoldWhatRootReads) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  using Strings = std::vector<std::vector<std::string>>;
  using Numbers = std::vector<std::vector<std::uint32_t>>;
  auto const path = dataFile(kPhyslite);
  auto reader = ROOT::RNTupleReader::Open("EventData", path);
  NTupleSource source(optionsOf("file=" + path + ",ntuple=EventData,fields=*AuxDyn:*,unreadable=skip"));
  std::size_t checked = 0;
  for (std::size_t p = 0; p < source.products().size(); ++p) {
    auto const& product = source.products()[p];
    if (product.type != typeid(EmulatedRecord) || product.typeName.find("ElementLink<") != std::string::npos) continue;
    auto const compare = [&](auto tag) {
      using T = decltype(tag);
      auto view = reader->GetView<T>(product.label);
      for (std::uint64_t entry = 0; entry < reader->GetNEntries(); ++entry) {
        ProductSlot slot;
        ASSERT_EQ(emulatedAs<T>(source, p, entry, slot), view(entry)) << product.label << ", entry " << entry;
      }
      ++checked;
    };
    if (product.typeName == "std::vector<std::pair<std::string,std::string>>") {
      compare(Pairs());
    } else if (product.typeName == "std::vector<std::vector<std::string>>") {
      compare(Strings());
    } else {
      ASSERT_EQ(product.typeName, "std::vector<std::vector<std::uint32_t>>") << product.label;
      compare(Numbers());
    }
  }
  EXPECT_EQ(checked, 6u);
}

// The corner-case RNTuples of tests/root/corners, written by a program of
// their own (lanes_ntuple_corners), whose classes lanes has no dictionary
// for: each field reads, through a view of its type or emulated, with the
// value written in each entry, as a `T`; or it is refused, named.
class NTupleCornersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    written_ = new ScratchDirectory;
    auto const command = std::string(LANES_NTUPLE_CORNERS) + " write '" + written_->path("") + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  static void TearDownTestSuite() { delete written_; }

  static std::string file(std::string const& name) { return written_->path(name + ".root"); }

  // Calls `check(value, i)` with the value of `field` of `corner` in each
  // entry i, as a T (an emulated record is laid out as the type it emulates).
  template <typename T, typename Check>
  static void forEachValue(std::string const& corner, std::string const& field, Check check) {
    NTupleSource source(optionsOf("file=" + file(corner) + ",ntuple=ntuple,fields=" + field));
    ASSERT_EQ(source.products().size(), 1u);
    SourceEvent event;
    int i = 0;
    for (; source.at(static_cast<std::uint64_t>(i), event); ++i) {
      ProductSlot slot;
      source.read(event, 0, slot);
      auto const* object = slot.type() == typeid(EmulatedRecord)
                               ? static_cast<EmulatedRecord const*>(slot.object())->object()
                               : slot.object();
      check(*static_cast<T const*>(object), i);
    }
    EXPECT_EQ(i, corners::kEntries) << field;
  }

  // Expects `field` of `corner` to hold `expected(i)` in each entry i.
  template <typename T, typename Expected>
  static void expectValues(std::string const& corner, std::string const& field, Expected expected) {
    forEachValue<T>(corner, field, [&](T const& value, int i) { EXPECT_EQ(value, expected(i)) << field << ", entry " << i; });
  }

  static ScratchDirectory* written_;
};

ScratchDirectory* NTupleCornersTest::written_ = nullptr;

TEST_F(NTupleCornersTest, StandardTypes) {
  expectValues<std::bitset<42>>("std", "bits", corners::bitsOf);
  expectValues<std::int32_t>("std", "counter", [](int i) { return i; });  // std::atomic<std::int32_t>
  expectValues<std::array<float, 3>>("std", "triple", corners::tripleOf);
  expectValues<std::map<std::int64_t, double>>("std", "by_id", corners::byIdOf);
  expectValues<std::set<std::int32_t>>("std", "ids", corners::idsOf);
  expectValues<std::unordered_set<std::int64_t>>("std", "unique", corners::uniqueOf);
  // No dictionary here for the unordered_map: ROOT would crash making its field.
  expectMentions(errorOf([] { NTupleSource source(optionsOf("file=" + file("std") + ",ntuple=ntuple")); }),
                 {"1 selected field cannot be read here: 'hashed' (", "std::unordered_map", "exclude=hashed"});
}

TEST_F(NTupleCornersTest, NestedCollectionsAndClassesWithoutDictionaries) {
  expectValues<std::vector<std::vector<std::vector<float>>>>("nested", "nested", corners::nestedOf);
  expectValues<corners::Hit>("nested", "hit", corners::hitOf);
  expectValues<std::vector<corners::Hit>>("nested", "hits", corners::hitsOf);
  expectValues<corners::Track>("nested", "track", corners::trackOf);
}

TEST_F(NTupleCornersTest, EmptyClassesAndVariantsSomeWithoutAValue) {
  forEachValue<char>("variants", "empty", [](char, int) {});
  expectValues<corners::Choice>("variants", "choice", corners::choiceOf);
  forEachValue<corners::LateChoice>("variants", "late_choice", [](corners::LateChoice const& value, int i) {
    if (i < corners::kLateChoiceFrom) {
      // Written without a value: it holds none of its alternatives (libstdc++ sees no exception in it, so its
      // index() is ROOT's tag byte of no alternative, not variant_npos).
      EXPECT_GE(value.index(), std::variant_size_v<corners::LateChoice>) << "entry " << i << ", before the field was added";
    } else {
      EXPECT_EQ(value, corners::lateChoiceOf(i)) << "entry " << i;
    }
  });
  // A variant of a class without a dictionary here, in its invalid state in entry 1.
  expectMentions(errorOf([] { NTupleSource source(optionsOf("file=" + file("thrower") + ",ntuple=ntuple")); }),
                 {"'broken' (", "corners::Thrower", "it would crash", "exclude=broken"});
  NTupleSource rest(optionsOf("file=" + file("thrower") + ",ntuple=ntuple,unreadable=skip"));
  ASSERT_EQ(rest.products().size(), 1u);
  EXPECT_EQ(rest.products()[0].label, "number");
}

TEST_F(NTupleCornersTest, PagesClustersRepresentationsAndFieldsAddedLater) {
  expectValues<std::int32_t>("layout", "number", [](int i) { return i; });
  expectValues<float>("layout", "real", corners::realOf);
  expectValues<float>("layout", "late_scalar", corners::lateScalarOf);
  expectValues<std::vector<std::int32_t>>("layout", "late_vector", corners::lateVectorOf);
}

}  // namespace
}  // namespace lanes::rootio::test
