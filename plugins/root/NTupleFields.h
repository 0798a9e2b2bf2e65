#pragma once
// How the `rntuple` source reads an RNTuple's top-level fields as products,
// and why it cannot read some: found from the RNTuple's description and by
// making and connecting each field, before any page is read, so that what
// ROOT would crash or abort on is named instead (`lanes inspect` says the
// same).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ROOT/RNTupleTypes.hxx>

class TClass;

namespace ROOT {
class RFieldBase;
class RNTuple;
class RNTupleDescriptor;
class RNTupleReader;
}  // namespace ROOT

namespace lanes::rootio {

struct Fundamental;

// How a top-level field becomes a product: a fundamental scalar (read into a
// staging copy), an object of a class with a dictionary (read in place), or
// an EmulatedRecord (a type without one, read by emulatedField()).
struct FieldLayout {
  std::string name;
  std::string readAs;  // the type RNTuple reads the field as
  Fundamental const* fundamental = nullptr;
  TClass* cls = nullptr;
  bool emulated = false;
};

// The layout of the top-level field `name` of on-disk type `type`.
FieldLayout layoutOf(std::string const& name, std::string const& type);

// The field that reads the top-level field `name` of `descriptor`, of a type
// without a dictionary here, emulated (ROOT 6.40's SetEmulateUnknownTypes).
// ROOT emulates a class only under the type name it normalises and asserts
// that this is the name on disk; ROOT 6.34 (RNTuple 1.0.0.0) wrote nested
// template arguments otherwise ("ElementLink<DataVector<xAOD::Jet_v1> >"),
// so a std::vector of such a class is put together here from its item, made
// under the name on disk. Throws lanes::Exception saying why it cannot be.
std::unique_ptr<ROOT::RFieldBase> emulatedField(ROOT::RNTupleDescriptor const& descriptor, std::string const& name);

// Why each of `fields` (top-level fields of the RNTuple `ntuple`, which
// `reader` reads from a file of `fileBytes` bytes) cannot be read here, by
// name; those that can are not in it. From the description, where ROOT would
// crash or abort: a std::variant of a class ROOT has no dictionary for, or a
// map it has none for (ROOT 6.40 dereferences the missing class), a column
// type this ROOT does not know, a page list that does not add up or lies
// outside the file; then each
// field is made as the source makes it and connected to the pages (a type
// ROOT can neither read nor emulate, columns it cannot read as the type).
std::map<std::string, std::string> unreadableFields(ROOT::RNTuple const& ntuple, ROOT::RNTupleReader& reader,
                                                    std::vector<FieldLayout> const& fields, std::uint64_t fileBytes);

}  // namespace lanes::rootio
