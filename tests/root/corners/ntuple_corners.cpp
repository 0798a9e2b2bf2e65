// The corners of the RNTuple format that tests/root/test_rntuple_corners.py
// reads with lanes: small RNTuples written by ROOT, each entry's values a
// function of its number, with classes that only this program has a
// dictionary for (NTupleCorners.h).
//
//   lanes_ntuple_corners write DIR           DIR/std.root, nested.root, variants.root, thrower.root,
//                                            layout.root (RNTuple `ntuple` in each)
//   lanes_ntuple_corners show FILE [NTUPLE]  [each entry of RNTuple NTUPLE (`ntuple`) as ROOT's
//                                            RNTupleReader::Show prints it], as JSON: what ROOT reads
//                                            back, to compare a copy with its original

#include <ROOT/RField.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RNTupleWriter.hxx>

#include <atomic>
#include <iostream>
#include <memory>
#include <string>

#include "NTupleCorners.h"

namespace corners {
namespace {

// Small pages and clusters, so that every column spans several of each.
ROOT::RNTupleWriteOptions smallPages() {
  ROOT::RNTupleWriteOptions options;
  options.SetInitialUnzippedPageSize(16);
  options.SetMaxUnzippedPageSize(128);
  options.SetApproxZippedClusterSize(1024);
  options.SetMaxUnzippedClusterSize(2048);
  return options;
}

// std::bitset, std::atomic, std::array, std::map, std::set, std::unordered_map, std::unordered_set.
void writeStd(std::string const& path) {
  auto model = ROOT::RNTupleModel::Create();
  auto bits = model->MakeField<std::bitset<42>>("bits");
  auto counter = model->MakeField<std::atomic<std::int32_t>>("counter");
  auto triple = model->MakeField<std::array<float, 3>>("triple");
  auto byId = model->MakeField<std::map<std::int64_t, double>>("by_id");
  auto ids = model->MakeField<std::set<std::int32_t>>("ids");
  auto hashed = model->MakeField<std::unordered_map<std::int32_t, double>>("hashed");
  auto unique = model->MakeField<std::unordered_set<std::int64_t>>("unique");
  auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "ntuple", path, smallPages());
  for (int i = 0; i < kEntries; ++i) {
    *bits = bitsOf(i);
    *counter = i;
    *triple = tripleOf(i);
    *byId = byIdOf(i);
    *ids = idsOf(i);
    *hashed = hashedOf(i);
    *unique = uniqueOf(i);
    writer->Fill();
  }
}

// Nested collections, and classes that lanes has no dictionary for.
void writeNested(std::string const& path) {
  auto model = ROOT::RNTupleModel::Create();
  auto nested = model->MakeField<std::vector<std::vector<std::vector<float>>>>("nested");
  auto hit = model->MakeField<Hit>("hit");
  auto hits = model->MakeField<std::vector<Hit>>("hits");
  auto track = model->MakeField<Track>("track");
  auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "ntuple", path, smallPages());
  for (int i = 0; i < kEntries; ++i) {
    *nested = nestedOf(i);
    *hit = hitOf(i);
    *hits = hitsOf(i);
    *track = trackOf(i);
    writer->Fill();
  }
}

// An empty class, a std::variant, and one added to the model half-way.
void writeVariants(std::string const& path) {
  auto model = ROOT::RNTupleModel::Create();
  model->MakeField<Empty>("empty");
  auto choice = model->MakeField<Choice>("choice");
  auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "ntuple", path, smallPages());
  std::shared_ptr<LateChoice> late;
  for (int i = 0; i < kEntries; ++i) {
    if (i == kLateChoiceFrom) {
      auto updater = writer->CreateModelUpdater();
      updater->BeginUpdate();
      late = updater->MakeField<LateChoice>("late_choice");
      updater->CommitUpdate();
    }
    *choice = choiceOf(i);
    if (late) *late = lateChoiceOf(i);
    writer->Fill();
  }
}

// A variant of a class that lanes has no dictionary for (ROOT cannot lay it
// out), in the invalid state in entry 1, beside a plain field.
void writeThrower(std::string const& path) {
  auto model = ROOT::RNTupleModel::Create();
  auto number = model->MakeField<std::int32_t>("number");
  auto broken = model->MakeField<std::variant<std::int32_t, Thrower>>("broken");
  auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "ntuple", path);
  for (int i = 0; i < 3; ++i) {
    *number = i;
    *broken = i;
    if (i == 1) {
      try {
        *broken = Thrower();
      } catch (std::runtime_error const&) {
      }
    }
    writer->Fill();
  }
}

// The format's own corners: several pages, clusters and cluster groups; a
// float whose column changes its representation (Real32, Real16) from
// cluster to cluster; fields added after the first cluster (extension
// columns).
void writeLayout(std::string const& path) {
  auto model = ROOT::RNTupleModel::Create();
  auto number = model->MakeField<std::int32_t>("number");
  auto real = ROOT::RFieldBase::Create("real", "float").Unwrap();
  real->SetColumnRepresentatives({{ROOT::ENTupleColumnType::kReal32}, {ROOT::ENTupleColumnType::kReal16}});
  model->AddField(std::move(real));
  auto realValue = model->GetDefaultEntry().GetPtr<float>("real");
  auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "ntuple", path, smallPages());
  std::shared_ptr<float> lateScalar;
  std::shared_ptr<std::vector<std::int32_t>> lateVector;
  for (int i = 0; i < kEntries; ++i) {
    if (i == kLateScalarFrom || i == kLateVectorFrom) {
      auto updater = writer->CreateModelUpdater();
      updater->BeginUpdate();
      if (i == kLateScalarFrom) lateScalar = updater->MakeField<float>("late_scalar");
      if (i == kLateVectorFrom) lateVector = updater->MakeField<std::vector<std::int32_t>>("late_vector");
      updater->CommitUpdate();
    }
    *number = i;
    *realValue = realOf(i);
    if (lateScalar) *lateScalar = lateScalarOf(i);
    if (lateVector) *lateVector = lateVectorOf(i);
    writer->Fill();
    if (i % 8 == 7) {
      writer->CommitCluster(i % 16 == 15);  // a cluster group every second cluster
      auto& field = const_cast<ROOT::RFieldBase&>(writer->GetModel().GetConstField("real"));
      ROOT::Internal::RFieldRepresentationModifier::SetPrimaryColumnRepresentation(field, (i / 8) % 2);
    }
  }
}

// Every entry of RNTuple `name` as ROOT's RNTupleReader::Show prints it (a JSON object), in a JSON array.
void show(std::string const& path, std::string const& name) {
  auto reader = ROOT::RNTupleReader::Open(name, path);
  std::cout << "[";
  for (std::uint64_t entry = 0; entry < reader->GetNEntries(); ++entry) {
    if (entry) std::cout << ",";
    reader->Show(entry, std::cout);
  }
  std::cout << "]\n";
}

}  // namespace
}  // namespace corners

int main(int argc, char** argv) {
  std::string const command = argc > 2 ? argv[1] : "";
  if (command == "write") {
    std::string const directory = argv[2];
    corners::writeStd(directory + "/std.root");
    corners::writeNested(directory + "/nested.root");
    corners::writeVariants(directory + "/variants.root");
    corners::writeThrower(directory + "/thrower.root");
    corners::writeLayout(directory + "/layout.root");
    return 0;
  }
  if (command == "show") {
    corners::show(argv[2], argc > 3 ? argv[3] : "ntuple");
    return 0;
  }
  std::cerr << "usage: lanes_ntuple_corners write DIR | show FILE [NTUPLE]\n";
  return 2;
}
