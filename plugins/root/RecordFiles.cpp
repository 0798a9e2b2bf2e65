#include "root/RecordFiles.h"

#include <ROOT/RError.hxx>
#include <ROOT/RFieldBase.hxx>
#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <ROOT/RRawPtrWriteEntry.hxx>
#include <TClass.h>
#include <TFile.h>
#include <TTree.h>

#include <array>
#include <cstring>
#include <memory>
#include <optional>

#include "lanes/core/Exception.h"
#include "root/InputFiles.h"

namespace lanes::rootio {

namespace {

// Per column of a table: where a row's value is put for ROOT to write it or
// read into (a number's buffer, an object), and a default object for a row
// that lacks the product. Owns the objects it made.
class ColumnValues {
 public:
  explicit ColumnValues(RecordTable const& table) : table_(table), scalars_(table.columns.size()) {
    for (auto const& column : table.columns) {
      defaults_.push_back(column.type.fundamental ? nullptr : column.type.cls->New());
    }
    objects_ = defaults_;
  }
  ~ColumnValues() {
    for (std::size_t c = 0; c < defaults_.size(); ++c) {
      if (defaults_[c]) table_.columns[c].type.cls->Destructor(defaults_[c]);
    }
  }
  ColumnValues(ColumnValues const&) = delete;
  ColumnValues& operator=(ColumnValues const&) = delete;

  void* scalar(std::size_t c) { return scalars_[c].data(); }
  void** object(std::size_t c) { return &objects_[c]; }
  // Where column `c`'s value lies for ROOT to write it.
  void const* value(std::size_t c) const {
    return table_.columns[c].type.fundamental ? static_cast<void const*>(scalars_[c].data()) : objects_[c];
  }

  // Points every column at `row`'s value, or at its default (0, a default object).
  void point(RecordTable::Row const& row) {
    for (std::size_t c = 0; c < table_.columns.size(); ++c) {
      auto const& type = table_.columns[c].type;
      auto const* product = row.products[c].get();
      if (type.fundamental) {
        scalars_[c] = {};
        if (product) std::memcpy(scalars_[c].data(), product->object(), type.fundamental->size);
      } else {
        objects_[c] = product ? rootObjectOf(*product, type) : defaults_[c];
      }
    }
  }

 private:
  RecordTable const& table_;
  std::vector<std::array<std::byte, 8>> scalars_;
  std::vector<void*> objects_;
  std::vector<void*> defaults_;
};

// Puts `object`, of `type`, into `slot`, which deletes it.
void adoptProduct(RootType const& type, void* object, ProductSlot& slot) {
  if (type.emulated) {
    slot.emplace(EmulatedObject(type.cls, object), type.cls->Size());
  } else {
    adoptObject(slot, type.cls, object, type.cls->Size());
  }
}

// A new product of `type` for a slot, read by `read(object)` into a number's
// buffer or into a new object of the class.
template <typename Read>
void readProduct(RootType const& type, ProductSlot& slot, Read read) {
  if (type.fundamental) {
    alignas(8) std::array<std::byte, 8> scalar{};
    read(scalar.data());
    return type.fundamental->putScalar(scalar.data(), slot, type.fundamental->size);
  }
  void* object = type.cls->New();
  try {
    read(object);
  } catch (...) {
    type.cls->Destructor(object);
    throw;
  }
  adoptProduct(type, object, slot);
}

TTree* fillTree(RecordTable const& table, TDirectory& directory, TreeSettings const& settings) {
  auto* tree = new TTree(table.name, table.name);
  tree->SetDirectory(&directory);
  std::uint32_t run = 0, luminosityBlock = 0;
  std::uint64_t events = 0;
  tree->Branch("run", &run, "run/i");
  if (table.level == Level::Lumi) tree->Branch("luminosityBlock", &luminosityBlock, "luminosityBlock/i");
  tree->Branch(kEventsColumn, &events, "events/l");
  ColumnValues values(table);
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    addColumnBranch(*tree, table.columns[c], values.scalar(c), values.object(c), settings);
  }
  for (auto const& [key, row] : table.rows) {
    run = key.run;
    luminosityBlock = key.luminosityBlock;
    events = row.events;
    values.point(row);
    takeRootMessage();
    if (tree->Fill() < 0) {
      throw Exception("cannot write the " + std::string(table.name) + " row of run " + std::to_string(key.run) + ": " +
                      takeRootMessage());
    }
  }
  tree->ResetBranchAddresses();
  return tree;
}

void readTree(TTree& tree, RecordTable const& table, std::string const& where, TreeRecords& records) {
  auto const branch = [&](std::string const& name) {
    auto* found = tree.GetBranch(name.c_str());
    if (!found) throw Exception(where + " has no branch '" + name + "'");
    return found;
  };
  std::uint32_t run = 0, luminosityBlock = 0;
  std::uint64_t events = 0;
  branch("run")->SetAddress(&run);
  if (table.level == Level::Lumi) branch("luminosityBlock")->SetAddress(&luminosityBlock);
  branch(kEventsColumn)->SetAddress(&events);
  std::vector<void*> objects(table.columns.size());
  std::vector<std::array<std::byte, 8>> scalars(table.columns.size());
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    auto* column = branch(table.columns[c].label);
    column->SetAddress(table.columns[c].type.fundamental ? static_cast<void*>(scalars[c].data()) : &objects[c]);
  }
  struct AddressesReset {
    TTree& tree;
    ~AddressesReset() { tree.ResetBranchAddresses(); }
  } const reset{tree};
  std::vector<ProductSlot> products(table.columns.size());
  for (Long64_t entry = 0; entry < tree.GetEntries(); ++entry) {
    // Each object is read into anew (the branch notices the new address), and kept by its slot.
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (!table.columns[c].type.fundamental) objects[c] = table.columns[c].type.cls->New();
    }
    takeRootMessage();
    bool const read = tree.GetEntry(entry) > 0;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      auto const& type = table.columns[c].type;
      if (!type.fundamental) {
        adoptProduct(type, objects[c], products[c]);
      } else if (read) {
        type.fundamental->putScalar(scalars[c].data(), products[c], type.fundamental->size);
      }
    }
    if (!read) throw Exception(where + ": cannot read entry " + std::to_string(entry) + ": " + takeRootMessage());
    records.absorb(table.level, {run, luminosityBlock}, events, products);
  }
}

void writeNTuple(RecordTable const& table, TFile& file, int compression) {
  auto model = ROOT::RNTupleModel::CreateBare();
  model->AddField(ROOT::RFieldBase::Create("run", "std::uint32_t").Unwrap());
  if (table.level == Level::Lumi) model->AddField(ROOT::RFieldBase::Create("luminosityBlock", "std::uint32_t").Unwrap());
  model->AddField(ROOT::RFieldBase::Create(kEventsColumn, "std::uint64_t").Unwrap());
  for (auto const& column : table.columns) {
    rethrowingRoot("cannot make a field for " + std::string(table.name) + " product '" + column.label + "' of type '" +
                       column.type.name + "'",
                   [&] { model->AddField(ROOT::RFieldBase::Create(column.label, column.type.name).Unwrap()); });
  }
  ROOT::RNTupleWriteOptions options;
  options.SetCompression(static_cast<std::uint32_t>(compression));
  auto writer = ROOT::RNTupleWriter::Append(std::move(model), table.name, file, options);
  auto entry = writer->CreateRawPtrWriteEntry();
  auto const run = entry->GetToken("run");
  auto const events = entry->GetToken(kEventsColumn);
  std::optional<ROOT::RFieldToken> lumi;
  if (table.level == Level::Lumi) lumi = entry->GetToken("luminosityBlock");
  std::vector<ROOT::RFieldToken> tokens;
  for (auto const& column : table.columns) tokens.push_back(entry->GetToken(column.label));
  ColumnValues values(table);
  for (auto const& [key, row] : table.rows) {
    entry->BindRawPtr(run, &key.run);
    if (lumi) entry->BindRawPtr(*lumi, &key.luminosityBlock);
    entry->BindRawPtr(events, &row.events);
    values.point(row);
    for (std::size_t c = 0; c < tokens.size(); ++c) entry->BindRawPtr(tokens[c], values.value(c));
    writer->Fill(*entry);
  }
  writer->CommitDataset();
}

void readNTuple(TFile& file, RecordTable const& table, TreeRecords& records) {
  auto const where = "'" + std::string(file.GetName()) + "': RNTuple '" + table.name + "'";
  auto* ntuple = readObject<ROOT::RNTuple>(file, table.name, "RNTuple");
  if (!ntuple) throw Exception(where + " is missing");
  auto reader = ROOT::RNTupleReader::Open(*ntuple);
  auto run = reader->GetView<std::uint32_t>("run");
  auto events = reader->GetView<std::uint64_t>(kEventsColumn);
  std::optional<ROOT::RNTupleView<std::uint32_t>> lumi;
  if (table.level == Level::Lumi) lumi.emplace(reader->GetView<std::uint32_t>("luminosityBlock"));
  std::vector<ROOT::RNTupleView<void>> views;
  for (auto const& column : table.columns) views.push_back(reader->GetView(column.label, nullptr, column.type.name));
  std::vector<ProductSlot> products(table.columns.size());
  for (auto const entry : reader->GetEntryRange()) {
    for (std::size_t c = 0; c < views.size(); ++c) {
      readProduct(table.columns[c].type, products[c], [&](void* into) {
        views[c].BindRawPtr(into);
        views[c](entry);
      });
    }
    records.absorb(table.level, {run(entry), lumi ? (*lumi)(entry) : 0u}, events(entry), products);
  }
}

}  // namespace

std::vector<TTree*> fillRecordTrees(TreeRecords const& records, TDirectory& directory, TreeSettings const& settings) {
  return {fillTree(records.lumis(), directory, settings), fillTree(records.runs(), directory, settings)};
}

void writeRecordTrees(TreeRecords const& records, TDirectory& directory, TreeSettings const& settings) {
  TDirectory::TContext const context(&directory);
  for (auto* tree : fillRecordTrees(records, directory, settings)) {
    takeRootMessage();
    if (tree->Write("", TObject::kOverwrite) <= 0) {
      throw Exception("cannot write the TTree '" + std::string(tree->GetName()) + "': " + takeRootMessage());
    }
  }
}

void readRecordTrees(TDirectory& directory, std::string const& path, TreeRecords& records) {
  for (auto const* table : {&records.lumis(), &records.runs()}) {
    auto* tree = directory.Get<TTree>(table->name);
    if (!tree) throw Exception("'" + path + "' has no TTree '" + table->name + "'");
    readTree(*tree, *table, "'" + path + "': TTree '" + table->name + "'", records);
  }
}

void writeRecordNTuples(TreeRecords const& records, TFile& file, int compression) {
  for (auto const* table : {&records.lumis(), &records.runs()}) {
    rethrowingRoot("cannot write the RNTuple '" + std::string(table->name) + "'",
                   [&] { writeNTuple(*table, file, compression); });
  }
}

void readRecordNTuples(TFile& file, TreeRecords& records) {
  for (auto const* table : {&records.lumis(), &records.runs()}) {
    rethrowingRoot("cannot read the RNTuple '" + std::string(table->name) + "' of '" + file.GetName() + "'",
                   [&] { readNTuple(file, *table, records); });
  }
}

void writeRecordsInto(std::string const& path, TreeRecords const& records, bool ntuples, int compression) {
  takeRootMessage();
  std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "UPDATE"));
  if (!file || file->IsZombie()) throw Exception("cannot open '" + path + "' to add its records: " + takeRootMessage());
  for (auto const* name : {kLumiRecords, kRunRecords}) file->Delete((std::string(name) + ";*").c_str());
  if (ntuples) {
    writeRecordNTuples(records, *file, compression);
  } else {
    writeRecordTrees(records, *file, {});
  }
  file->Close();
  if (file->TestBit(TFile::kWriteError)) throw Exception("cannot write the records into '" + path + "'");
}

void readRecordsOf(std::vector<std::string> const& paths, TreeRecords& records, bool ntuples) {
  for (auto const& path : paths) {
    takeRootMessage();
    std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "READ"));
    if (!file || file->IsZombie()) throw Exception("cannot read the records of '" + path + "': " + takeRootMessage());
    if (ntuples) {
      readRecordNTuples(*file, records);
    } else {
      readRecordTrees(*file, path, records);
    }
  }
}

}  // namespace lanes::rootio
