#include "root/NTupleFields.h"

#include <ROOT/RCreateFieldOptions.hxx>
#include <ROOT/RError.hxx>
#include <ROOT/RField.hxx>
#include <ROOT/RFieldBase.hxx>
#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <TClass.h>
#include <TVirtualCollectionProxy.h>

#include <array>
#include <functional>

#include "lanes/core/Exception.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

namespace {

using ROOT::DescriptorId_t;
using ROOT::RNTupleDescriptor;

ROOT::RCreateFieldOptions emulating() {
  ROOT::RCreateFieldOptions options;
  options.SetEmulateUnknownTypes(true);
  return options;
}

bool isStdVector(ROOT::RFieldDescriptor const& field) {
  return field.GetStructure() == ROOT::ENTupleStructure::kCollection && field.GetTypeName().rfind("std::vector<", 0) == 0 &&
         field.GetLinkIds().size() == 1;
}

// The field `name` that reads field `id` of `descriptor` emulated (see emulatedField()).
std::unique_ptr<ROOT::RFieldBase> emulated(RNTupleDescriptor const& descriptor, DescriptorId_t id, std::string const& name) {
  auto const& field = descriptor.GetFieldDescriptor(id);
  try {
    ThrowOnRootFatal const guard;
    return ROOT::Internal::CallFieldBaseCreate(name, field.GetTypeName(), emulating(), &descriptor, id).Unwrap();
  } catch (Exception const&) {  // ROOT's Fatal: its spelling of a nested type is not the one on disk
    if (!isStdVector(field)) throw;
    return std::make_unique<ROOT::RVectorField>(name, emulated(descriptor, field.GetLinkIds()[0], "_0"));
  }
}

// Calls `visit` on field `id` and every field under it, until one returns a problem ("" for none).
std::string firstProblem(RNTupleDescriptor const& descriptor, DescriptorId_t id,
                         std::function<std::string(ROOT::RFieldDescriptor const&)> const& visit) {
  auto const& field = descriptor.GetFieldDescriptor(id);
  if (auto why = visit(field); !why.empty()) return why;
  for (auto const& sub : descriptor.GetFieldIterable(id)) {
    if (auto why = firstProblem(descriptor, sub.GetId(), visit); !why.empty()) return why;
  }
  return {};
}

// "its" for a top-level field, "its subfield 'a.b'" for one under it.
std::string whose(RNTupleDescriptor const& descriptor, ROOT::RFieldDescriptor const& field) {
  if (field.GetParentId() == descriptor.GetFieldZeroId()) return "its";
  return "its subfield '" + descriptor.GetQualifiedFieldName(field.GetId()) + "'";
}

// RVariantField's constructor asks ROOT for the std::variant's class and,
// in a release build, uses it unchecked: a variant of a class without a
// dictionary here kills the process (exit 139) as its field is made, also
// when the whole model is made for another field.
std::string variantProblem(RNTupleDescriptor const& descriptor, ROOT::RFieldDescriptor const& field) {
  if (field.GetStructure() != ROOT::ENTupleStructure::kVariant || TClass::GetClass(field.GetTypeName().c_str())) return {};
  return whose(descriptor, field) + " type " + field.GetTypeName() +
         " holds a class without a dictionary here, and ROOT 6.40 cannot lay out such a std::variant (it would crash)";
}

// RMapField's constructor takes the size of the class of the map's
// std::pair from ROOT's collection proxy unchecked: where ROOT has no
// dictionary for the map (an std::unordered_map<std::int32_t,double>, say),
// it emulates it without that class, and making the field kills the process.
std::string mapProblem(RNTupleDescriptor const& descriptor, ROOT::RFieldDescriptor const& field) {
  auto const& type = field.GetTypeName();
  bool const map = type.rfind("std::map<", 0) == 0 || type.rfind("std::multimap<", 0) == 0 ||
                   type.rfind("std::unordered_map<", 0) == 0 || type.rfind("std::unordered_multimap<", 0) == 0;
  if (!map) return {};
  auto* cls = TClass::GetClass(type.c_str());
  if (cls && cls->GetCollectionProxy() && cls->GetCollectionProxy()->GetValueClass()) return {};
  return whose(descriptor, field) + " type " + type +
         " has no dictionary here, and ROOT 6.40 cannot lay out such a map without one (it would crash)";
}

// The pages of each column of `field`, cluster by cluster: of a type ROOT
// knows, adding up to the cluster's values, inside the file.
std::string columnProblem(RNTupleDescriptor const& descriptor, ROOT::RFieldDescriptor const& field,
                          std::uint64_t fileBytes) {
  for (auto const logical : field.GetLogicalColumnIds()) {
    auto const& column = descriptor.GetColumnDescriptor(logical);
    if (column.GetType() == ROOT::ENTupleColumnType::kUnknown) {
      return whose(descriptor, field) + " column " + std::to_string(column.GetIndex()) +
             " is of a type this ROOT (6.40) does not know: a newer ROOT wrote it";
    }
    auto const physical = column.GetPhysicalId();
    for (auto const& cluster : descriptor.GetClusterIterable()) {
      if (!cluster.ContainsColumn(physical) || cluster.GetColumnRange(physical).IsSuppressed()) continue;
      auto const where = [&] {
        return whose(descriptor, field) + " column " + std::to_string(column.GetIndex()) + ", in cluster " +
               std::to_string(cluster.GetId()) + ", ";
      };
      std::uint64_t values = 0;
      for (auto const& page : cluster.GetPageRange(physical).GetPageInfos()) {
        values += page.GetNElements();
        auto const& locator = page.GetLocator();
        if (locator.GetType() != ROOT::RNTupleLocator::kTypeFile) continue;
        auto const first = locator.GetPosition<std::uint64_t>(), end = first + locator.GetNBytesOnStorage();
        if (end > fileBytes || end < first) {
          return where() + "has a page at bytes " + std::to_string(first) + ".." + std::to_string(end) +
                 ", outside the file's " + std::to_string(fileBytes) + ": the page list is damaged";
        }
      }
      if (values != cluster.GetColumnRange(physical).GetNElements()) {
        return where() + "has pages of " + std::to_string(values) + " values where the cluster holds " +
               std::to_string(cluster.GetColumnRange(physical).GetNElements()) + ": the page list is damaged";
      }
    }
  }
  return {};
}

// What a failure to make or connect a field says, in one line.
std::string whyOf(std::exception const& error) {
  if (auto const* fatal = dynamic_cast<Exception const*>(&error)) return fatal->message();
  return rootExceptionMessage(error);
}

// Why a field of a type with a dictionary cannot be read as `field.readAs`:
// its view is made and connected as the source makes it, and dropped.
std::string viewProblem(ROOT::RNTupleReader& reader, FieldLayout const& field) {
  std::array<std::byte, 8> scalar{};
  try {
    ThrowOnRootFatal const guard;
    reader.GetView(field.name, field.cls ? nullptr : scalar.data(), field.readAs);
  } catch (std::exception const& error) {
    return "cannot be read as " + field.readAs + ": " + whyOf(error);
  }
  return {};
}

// A reader of `ntuple` whose model holds the emulated fields `names`.
std::unique_ptr<ROOT::RNTupleReader> emulatingReader(ROOT::RNTuple const& ntuple, RNTupleDescriptor const& descriptor,
                                                     std::vector<std::string> const& names) {
  auto model = ROOT::RNTupleModel::CreateBare();
  for (auto const& name : names) model->AddField(emulatedField(descriptor, name));
  ThrowOnRootFatal const guard;
  return ROOT::RNTupleReader::Open(std::move(model), ntuple);
}

// Why each emulated field of `names` cannot be read: made, then connected,
// all in one reader, or each alone where that fails.
void emulationProblems(ROOT::RNTuple const& ntuple, RNTupleDescriptor const& descriptor,
                       std::vector<std::string> const& names, std::map<std::string, std::string>& problems) {
  std::vector<std::string> made;
  for (auto const& name : names) {
    try {
      emulatedField(descriptor, name);
      made.push_back(name);
    } catch (Exception const& error) {
      problems[name] = error.message();
    }
  }
  if (made.empty()) return;
  try {
    emulatingReader(ntuple, descriptor, made);
    return;
  } catch (std::exception const&) {
  }
  for (auto const& name : made) {
    try {
      emulatingReader(ntuple, descriptor, {name});
    } catch (std::exception const& error) {
      problems[name] = "cannot be read emulated: " + whyOf(error);
    }
  }
}

}  // namespace

FieldLayout layoutOf(std::string const& name, std::string const& type) {
  if (auto const* fundamental = fundamentalByNtupleName(type)) return {name, type, fundamental};
  // A collection's size, stored as RNTupleCardinality: an unsigned integer product.
  for (std::string width : {"32", "64"}) {
    if (type == "ROOT::RNTupleCardinality<std::uint" + width + "_t>") {
      return {name, type, fundamentalByNtupleName("std::uint" + width + "_t")};
    }
  }
  // RVec and vector of a fundamental: a std::vector product, as from a TTree.
  auto readAs = type;
  auto const element = elementOfSequence(type);
  if (!element.empty() && fundamentalByNtupleName(element)) readAs = "std::vector<" + element + ">";
  auto* cls = TClass::GetClass(readAs.c_str());
  if (!cls || !cls->HasDictionary() || !cls->GetTypeInfo()) return {name, type, nullptr, nullptr, true};
  return {name, readAs, nullptr, cls};
}

std::unique_ptr<ROOT::RFieldBase> emulatedField(RNTupleDescriptor const& descriptor, std::string const& name) {
  auto const id = descriptor.FindFieldId(name);
  try {
    auto field = emulated(descriptor, id, name);
    field->SetOnDiskId(id);
    return field;
  } catch (std::exception const& error) {
    throw Exception("no dictionary for " + descriptor.GetFieldDescriptor(id).GetTypeName() +
                    " here, and ROOT cannot emulate it: " + whyOf(error));
  }
}

std::map<std::string, std::string> unreadableFields(ROOT::RNTuple const& ntuple, ROOT::RNTupleReader& reader,
                                                    std::vector<FieldLayout> const& fields, std::uint64_t fileBytes) {
  auto const& descriptor = reader.GetDescriptor();
  std::map<std::string, std::string> problems;
  std::vector<std::string> emulatedNames;
  for (auto const& field : fields) {
    auto const id = descriptor.FindFieldId(field.name);
    auto why = firstProblem(descriptor, id, [&](ROOT::RFieldDescriptor const& sub) {
      for (auto const& problem : {variantProblem(descriptor, sub), mapProblem(descriptor, sub)}) {
        if (!problem.empty()) return problem;
      }
      return columnProblem(descriptor, sub, fileBytes);
    });
    if (why.empty() && !field.emulated) why = viewProblem(reader, field);
    if (!why.empty()) {
      problems[field.name] = why;
    } else if (field.emulated) {
      emulatedNames.push_back(field.name);
    }
  }
  emulationProblems(ntuple, descriptor, emulatedNames, problems);
  return problems;
}

}  // namespace lanes::rootio
