#pragma once
// A batch of events as the blob formats store it (root-events, pds): the
// events' ids, their serialised products in one byte blob, where each event
// begins and ends in it, and each product's size in its event's bytes
// (layout: EventBlobs.h). One event on its way to a batch is a batch of one.

#include <cstddef>
#include <vector>

#include <RtypesCore.h>

namespace lanes::rootio {

// A value type, confined to whoever holds it.
struct BlobBatch {
  std::vector<UInt_t> run, luminosityBlock;
  std::vector<ULong64_t> event;
  std::vector<char> blob;
  std::vector<ULong64_t> events{0};  // N + 1
  std::vector<UInt_t> sizes;         // N x P

  std::size_t size() const { return event.size(); }

  // Appends `other`'s events.
  void append(BlobBatch const& other) {
    run.insert(run.end(), other.run.begin(), other.run.end());
    luminosityBlock.insert(luminosityBlock.end(), other.luminosityBlock.begin(), other.luminosityBlock.end());
    event.insert(event.end(), other.event.begin(), other.event.end());
    auto const base = blob.size();
    for (std::size_t i = 1; i < other.events.size(); ++i) events.push_back(base + other.events[i]);
    blob.insert(blob.end(), other.blob.begin(), other.blob.end());
    sizes.insert(sizes.end(), other.sizes.begin(), other.sizes.end());
  }

  // True if the ids, offsets and sizes agree on a non-empty batch of events of `products` products each.
  bool consistent(std::size_t products) const {
    auto const n = event.size();
    return n > 0 && run.size() == n && luminosityBlock.size() == n && events.size() == n + 1 &&
           sizes.size() == n * products;
  }
};

}  // namespace lanes::rootio
