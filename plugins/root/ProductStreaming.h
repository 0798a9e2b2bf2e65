#pragma once
// A product as the bytes ROOT's TBufferFile makes of it (what `serialize`
// measures and blob outputs store), and back: for outputs and sources that
// store products ROOT knows but that are not plain numbers.

#include <cstddef>
#include <string>
#include <typeindex>

#include "lanes/core/Product.h"
#include "root/RootSupport.h"

class TBufferFile;

namespace lanes::rootio {

// Serialises `object`, of `type`, into `buffer` (reset first); the bytes are
// buffer.Buffer()[0, buffer.Length()). A buffer must not be shared by
// concurrent calls.
void streamProduct(TBufferFile& buffer, void* object, RootType const& type);

// Reads the product of `type` that `size` bytes from streamProduct() hold
// into `object` (ProductSerializer::readInto()); throws lanes::Exception if
// the bytes do not hold one.
void unstreamInto(char const* bytes, std::size_t size, RootType const& type, void* object);

// The ROOT type named `name` (a fundamental's RNTuple spelling, "float", or
// a class name); throws lanes::Exception naming `label` if ROOT knows none.
RootType rootTypeNamed(std::string const& label, std::string const& name);

// The C++ type of the products ProductSerializer::read() makes for `type`.
std::type_index productTypeOf(RootType const& type);

}  // namespace lanes::rootio
