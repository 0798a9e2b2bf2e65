#include "root/BlobReader.h"

#include <TClass.h>

#include "codec/Codec.h"
#include "lanes/core/Exception.h"

namespace lanes::rootio {

std::string storedTypeName(RootType const& type) {
  return type.fundamental ? type.fundamental->rootName : type.name;
}

StoredProduct storedProduct(std::string const& path, std::string const& label, std::string const& typeName,
                            SerializationKind kind) {
  RootType type;
  if ((type.fundamental = fundamentalByRootName(typeName))) {
    type.name = type.fundamental->ntupleName;
    return {{label, type.fundamental->scalar, {}}, makeSerializer(kind, type, label)};
  }
  type.cls = TClass::GetClass(typeName.c_str());
  if (!type.cls || !type.cls->HasDictionary() || !type.cls->GetTypeInfo()) {
    throw Exception("product '" + label + "' of '" + path + "' is of class '" + typeName +
                    "', which has no dictionary here");
  }
  type.name = type.cls->GetName();
  return {{label, *type.cls->GetTypeInfo(), type.name}, makeSerializer(kind, type, label)};
}

std::vector<TClass*> classesOf(std::vector<StoredProduct> const& products) {
  std::vector<TClass*> classes;
  for (auto const& product : products) classes.push_back(product.serializer->type().cls);
  return classes;
}

EventId idOf(StoredEvent const& event) {
  auto const& batch = event.batch->batch;
  return EventId{batch.run[event.index], batch.luminosityBlock[event.index], batch.event[event.index]};
}

namespace {

// Where `event`'s products lie, its batch's and its own frame opened: by the
// first read of the event, once; the others wait for it.
void open(StoredEvent& event, FrameLevel level) {
  std::call_once(event.opened, [&] {
    auto& stored = *event.batch;
    std::call_once(stored.opened, [&] {
      if (!framesBatches(level)) return;
      codec::decompress(stored.batch.blob.data(), stored.batch.blob.size(), stored.payload);
      stored.framed = true;
    });
    auto const& bytesOfBatch = stored.framed ? stored.payload : stored.batch.blob;
    auto const& events = stored.batch.events;
    auto const first = events[event.index], last = events[event.index + 1];
    if (first > last || last > bytesOfBatch.size()) throw Exception("event bytes beyond the batch's (corrupt offsets)");
    event.bytes = bytesOfBatch.data() + first;
    event.size = last - first;
    if (level == FrameLevel::Event) {
      codec::decompress(event.bytes, event.size, event.payload);
      event.bytes = event.payload.data();
      event.size = event.payload.size();
    }
    auto const* sizes = stored.batch.sizes.data() + event.index * event.products;
    event.offsets.resize(event.products + 1);
    for (std::size_t p = 0; p < event.products; ++p) event.offsets[p + 1] = event.offsets[p] + sizes[p];
    event.open.store(true, std::memory_order_release);
  });
}

}  // namespace

void readStoredProduct(StoredEvent& event, FrameLevel level, std::size_t product, ProductSerializer const& serializer,
                       ProductSlot& slot) {
  if (!event.open.load(std::memory_order_acquire)) open(event, level);
  auto const offset = event.offsets[product], end = event.offsets[product + 1];
  if (end > event.size) throw Exception("product bytes beyond the event's (corrupt sizes)");
  char const* bytes = event.bytes + offset;
  std::size_t size = end - offset;
  if (framesProducts(level)) {
    thread_local std::vector<char> raw;
    codec::decompress(bytes, size, raw);
    bytes = raw.data();
    size = raw.size();
  }
  if (serializer.type().fundamental) return serializer.read(bytes, size, slot);
  event.objects->read(product, size, slot, [&](void* object) { serializer.readInto(bytes, size, object); });
}

}  // namespace lanes::rootio
