#pragma once
// Framework-side serialisation of one product into bytes and back, for the
// formats that store products as blobs (root-events; pds can reuse it):
//
//   root      ROOT's TBufferFile, as the `serialize` output and a TTree basket
//             do (big-endian, with ROOT's per-object framing: byte counts
//             and class versions).
//   unrolled  member by member from the class's TStreamerInfo, in memory
//             order and without framing: fundamental members and fixed
//             arrays of them as their bytes, std::string as a length and its
//             characters, an STL collection as its size and its elements
//             (a vector of numbers in one copy), classes and base classes
//             member by member. It cannot handle pointers, TObject-derived
//             classes, classes with a custom streamer and members of kinds
//             the table above does not name: such a type is refused when the
//             output begins, naming the class and member.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lanes/core/Product.h"
#include "root/OutputSupport.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

enum class SerializationKind { Root, Unrolled };

// serialization=root|unrolled.
SerializationKind parseSerialization(std::string const& name);
std::string nameOf(SerializationKind kind);

// Immutable after construction, thread-safe: write(), read() and readInto()
// run concurrently from any thread (each uses buffers of its thread's own).
class ProductSerializer {
 public:
  explicit ProductSerializer(RootType type) : type_(std::move(type)) {}
  virtual ~ProductSerializer() = default;

  RootType const& type() const { return type_; }
  // Appends the bytes of `object` (a product of the serializer's type) to `out`.
  virtual void write(void const* object, std::vector<char>& out) const = 0;
  // Reads the product that `size` bytes at `bytes` hold into `object`: a
  // scalar's memory, or an object of the class (type().cls) that may hold
  // another product, which this one replaces. Throws lanes::Exception if the
  // bytes are not exactly one such product (the object may then be half-built).
  virtual void readInto(char const* bytes, std::size_t size, void* object) const = 0;
  // Fills `slot` with a new product read from the bytes (readInto()); throws as readInto().
  void read(char const* bytes, std::size_t size, ProductSlot& slot) const;

 protected:
  RootType type_;
};

// The serializer of a product of `type` (label for messages); throws
// lanes::ConfigurationError naming the class and member that `kind` cannot handle.
std::unique_ptr<ProductSerializer> makeSerializer(SerializationKind kind, RootType const& type,
                                                  std::string const& label);

// The kept products an output serialises, and a serializer for each.
// Immutable after construction.
struct SerializedColumns {
  std::vector<Column> columns;
  std::vector<int> columnOf;  // per product index: its column, or -1 (an id product, or not kept)
  std::vector<std::unique_ptr<ProductSerializer>> serializers;  // per column
};

// For `output`'s kept products (columnsOf()); throws as makeSerializer().
SerializedColumns serializedColumns(Module const& output, ProductRegistry const& registry, SerializationKind kind);

}  // namespace lanes::rootio
