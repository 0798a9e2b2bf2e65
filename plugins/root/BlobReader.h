#pragma once
// What the blob sources (root-events, pds) share: a stored product list
// turned back into product descriptions and serializers, and a product read
// out of a stored batch (BlobBatch.h), its batch, event and product frames
// opened on the way (EventBlobs.h says which there are).

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lanes/core/EventId.h"
#include "lanes/core/Product.h"
#include "root/BlobBatch.h"
#include "root/EventBlobs.h"
#include "root/ReusedObjects.h"
#include "root/RootSupport.h"
#include "root/Serialization.h"

namespace lanes::rootio {

// The type name a blob file stores for a column: a fundamental's ROOT
// name ("Float_t"), else the class name.
std::string storedTypeName(RootType const& type);

// One product of a blob file, as its source declares and reads it.
struct StoredProduct {
  ProductDescription description;
  std::unique_ptr<ProductSerializer> serializer;
};

// The product `label` of type `typeName` (storedTypeName()) of the file at
// `path`; throws lanes::Exception if ROOT has no dictionary for the class.
StoredProduct storedProduct(std::string const& path, std::string const& label, std::string const& typeName,
                            SerializationKind kind);

// A batch a source read. The ids, offsets and sizes are immutable once it is
// shared; the batch frame is opened once, by the first lane that needs it.
struct StoredBatch {
  std::uint64_t index = 0;  // the entry or record it was read from
  BlobBatch batch;
  std::once_flag opened;
  std::vector<char> payload;  // the batch frame opened (compress=batch|both)
  bool framed = false;
};

// One event of a batch, as a lane holds it. Opened once, by whichever read
// of it comes first (so in a lane, not in a shared source's serial queue):
// where its products lie, and with compress=event its frame. Its products
// are read into the objects of its lane's chain (ReusedObjects).
struct StoredEvent {
  // Event `index` of `batch`, whose events have `products` products each, read into `objects`.
  StoredEvent(std::shared_ptr<StoredBatch> batch, std::size_t index, std::size_t products,
              std::unique_ptr<ReusedObjects> objects)
      : batch(std::move(batch)), index(index), products(products), objects(std::move(objects)) {}

  std::shared_ptr<StoredBatch> batch;
  std::size_t index;
  std::size_t products;
  std::unique_ptr<ReusedObjects> objects;
  // Set once opened: then the event's bytes (its frame opened), and where
  // each product begins and ends in them (P + 1) are read-only.
  std::atomic<bool> open{false};
  std::once_flag opened;
  char const* bytes = nullptr;
  std::size_t size = 0;
  std::vector<std::uint64_t> offsets;
  std::vector<char> payload;  // compress=event: the frame opened
};

// The classes of `products` (nullptr for a scalar), as ReusedObjects takes them.
std::vector<TClass*> classesOf(std::vector<StoredProduct> const& products);

// The id of `event`.
EventId idOf(StoredEvent const& event);

// Reads product `product` of `event` into `slot` with `serializer`, opening
// the frames `level` puts around it; thread-safe for concurrent reads of any
// products of any events. Throws lanes::Exception (codec::FrameError on a
// damaged frame) saying what is wrong, for the caller to name the file.
void readStoredProduct(StoredEvent& event, FrameLevel level, std::size_t product, ProductSerializer const& serializer,
                       ProductSlot& slot);

}  // namespace lanes::rootio
