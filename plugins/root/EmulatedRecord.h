#pragma once
// Objects of classes that an RNTuple describes but that have no dictionary
// here: RNTuple reads them through an emulated field, a record laid out from
// the on-disk description (ROOT 6.40's RCreateModelOptions::
// SetEmulateUnknownTypes). No ROOT output can write them: RNTupleWriter
// refuses emulated fields, and no TClass describes that layout for a TTree.

#include <memory>
#include <utility>

namespace lanes::rootio {

// The product type of such a field. Owns the object, which the emulated
// field's deleter frees. Immutable.
class EmulatedRecord {
 public:
  explicit EmulatedRecord(std::shared_ptr<void> object) : object_(std::move(object)) {}

  void* object() const { return object_.get(); }

 private:
  std::shared_ptr<void> object_;
};

}  // namespace lanes::rootio
