#include "root/Serialization.h"

#include <TBufferFile.h>

#include "lanes/core/Exception.h"
#include "lanes/core/ProductRegistry.h"
#include "root/ProductStreaming.h"
#include "root/Unrolled.h"

namespace lanes::rootio {

namespace {

// TBufferFile, as a TTree basket holds a product.
class RootSerializer : public ProductSerializer {
 public:
  explicit RootSerializer(RootType type) : type_(std::move(type)) {}

  void write(void const* object, std::vector<char>& out) const override {
    thread_local TBufferFile buffer(TBuffer::kWrite);  // calls on a thread never overlap
    streamProduct(buffer, const_cast<void*>(object), type_);
    out.insert(out.end(), buffer.Buffer(), buffer.Buffer() + buffer.Length());
  }

  void read(char const* bytes, std::size_t size, ProductSlot& slot) const override {
    unstreamProduct(bytes, size, type_, slot);
  }

 private:
  RootType type_;
};

}  // namespace

SerializationKind parseSerialization(std::string const& name) {
  if (name == "root") return SerializationKind::Root;
  if (name == "unrolled") return SerializationKind::Unrolled;
  throw Exception("unknown serialization '" + name + "' (known: root, unrolled)");
}

std::string nameOf(SerializationKind kind) { return kind == SerializationKind::Root ? "root" : "unrolled"; }

std::unique_ptr<ProductSerializer> makeSerializer(SerializationKind kind, RootType const& type,
                                                  std::string const& label) {
  if (kind == SerializationKind::Unrolled) return makeUnrolledSerializer(type, label);
  return std::make_unique<RootSerializer>(type);
}

SerializedColumns serializedColumns(Module const& output, ProductRegistry const& registry, SerializationKind kind) {
  SerializedColumns result;
  result.columns = columnsOf(output, registry);
  result.columnOf.assign(registry.size(), -1);
  for (std::size_t i = 0; i < result.columns.size(); ++i) {
    auto const& column = result.columns[i];
    result.columnOf[column.index] = static_cast<int>(i);
    result.serializers.push_back(makeSerializer(kind, column.type, column.label));
  }
  return result;
}

}  // namespace lanes::rootio
