#include "root/ProductStreaming.h"

#include <TBufferFile.h>
#include <TClass.h>


#include "lanes/core/Exception.h"

namespace lanes::rootio {

void streamProduct(TBufferFile& buffer, void* object, RootType const& type) {
  buffer.Reset();
  buffer.ResetMap();
  if (type.fundamental) {
    type.fundamental->stream(buffer, object);
  } else {
    type.cls->Streamer(object, buffer);
  }
}

void unstreamInto(char const* bytes, std::size_t size, RootType const& type, void* object) {
  ThrowOnRootFatal guard;
  TBufferFile buffer(TBuffer::kRead, static_cast<Int_t>(size), const_cast<char*>(bytes), kFALSE);
  if (type.fundamental) {
    if (size != type.fundamental->size) throw Exception(std::to_string(size) + " bytes cannot hold a " + type.name);
    type.fundamental->unstream(buffer, object);
    return;
  }
  type.cls->Streamer(object, buffer);
  if (static_cast<std::size_t>(buffer.Length()) != size) {
    throw Exception(std::to_string(size) + " bytes do not hold one " + type.name + " (it takes " +
                    std::to_string(buffer.Length()) + ")");
  }
}

RootType rootTypeNamed(std::string const& label, std::string const& name) {
  initialiseRoot();
  if (auto const* fundamental = fundamentalByNtupleName(name)) return rootTypeOf(label, fundamental->scalar, name);
  auto* const cls = TClass::GetClass(name.c_str());
  if (!cls) throw Exception("product '" + label + "' has type '" + name + "', which ROOT does not know");
  bool const emulated = !cls->HasDictionary() || !cls->GetTypeInfo();
  return rootTypeOf(label, emulated ? std::type_index(typeid(EmulatedObject)) : std::type_index(*cls->GetTypeInfo()),
                    name);
}

std::type_index productTypeOf(RootType const& type) {
  if (type.fundamental) return type.fundamental->scalar;
  if (type.emulated) return typeid(EmulatedObject);
  return *type.cls->GetTypeInfo();
}

}  // namespace lanes::rootio
