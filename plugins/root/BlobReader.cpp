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

std::unique_ptr<StoredEvent> storedEvent(std::shared_ptr<StoredBatch> batch, std::size_t index, std::size_t products) {
  auto event = std::make_unique<StoredEvent>();
  event->batch = std::move(batch);
  event->index = index;
  event->products = products;
  return event;
}

EventId idOf(StoredEvent const& event) {
  auto const& batch = event.batch->batch;
  return EventId{batch.run[event.index], batch.luminosityBlock[event.index], batch.event[event.index]};
}

void readStoredProduct(StoredEvent& event, FrameLevel level, std::size_t product, ProductSerializer const& serializer,
                       ProductSlot& slot) {
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
  char const* bytes = bytesOfBatch.data() + first;
  std::size_t size = last - first;
  std::call_once(event.opened, [&] {
    auto const* sizes = stored.batch.sizes.data() + event.index * event.products;
    event.offsets.resize(event.products + 1);
    for (std::size_t p = 0; p < event.products; ++p) event.offsets[p + 1] = event.offsets[p] + sizes[p];
    if (level == FrameLevel::Event) codec::decompress(bytes, size, event.payload);
  });
  if (level == FrameLevel::Event) {
    bytes = event.payload.data();
    size = event.payload.size();
  }
  auto const offset = event.offsets[product], end = event.offsets[product + 1];
  if (end > size) throw Exception("product bytes beyond the event's (corrupt sizes)");
  bytes += offset;
  size = end - offset;
  if (framesProducts(level)) {
    thread_local std::vector<char> raw;
    codec::decompress(bytes, size, raw);
    serializer.read(raw.data(), raw.size(), slot);
  } else {
    serializer.read(bytes, size, slot);
  }
}

}  // namespace lanes::rootio
