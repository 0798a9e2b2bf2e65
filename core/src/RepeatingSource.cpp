#include "lanes/core/RepeatingSource.h"

#include <algorithm>

#include "lanes/core/Exception.h"

namespace lanes {

struct RepeatingSource::Cache {
  std::vector<EventId> ids;
  std::vector<std::unique_ptr<ProductSlot[]>> products;  // [event][product]
  std::uint64_t lastEventNumber = 0;
  std::string origin;
  std::string details;
};

RepeatingSource::RepeatingSource(std::unique_ptr<Source> input, std::size_t events) {
  auto cache = std::make_shared<Cache>();
  cache->origin = input->origin();
  cache->details = input->details();
  for (auto const& description : input->products()) declare(description);
  std::size_t const nProducts = products().size();
  SourceEvent event;
  while (cache->ids.size() < events && input->next(event)) {
    auto slots = std::make_unique<ProductSlot[]>(nProducts);
    for (std::size_t p = 0; p < nProducts; ++p) input->read(event, p, slots[p]);
    cache->ids.push_back(event.id);
    cache->products.push_back(std::move(slots));
    cache->lastEventNumber = std::max(cache->lastEventNumber, event.id.event);
  }
  if (cache->ids.empty()) throw Exception("repeat: the source has no events to cache");
  cache_ = std::move(cache);
}

RepeatingSource::RepeatingSource(std::shared_ptr<Cache const> cache) : cache_(std::move(cache)) {}

bool RepeatingSource::next(SourceEvent& event) { return at(nextOrdinal_++, event); }

bool RepeatingSource::at(std::uint64_t ordinal, SourceEvent& event) {
  auto const cached = cache_->ids.size();
  event.entry = ordinal % cached;
  event.id = cache_->ids[event.entry];
  // The first pass keeps the input's ids; later passes continue after the
  // largest event number seen, one by one.
  if (ordinal >= cached) event.id.event = cache_->lastEventNumber + (ordinal - cached) + 1;
  return true;
}

void RepeatingSource::read(SourceEvent const& event, std::size_t product, ProductSlot& slot) {
  auto const& cached = cache_->products[event.entry][product];
  slot.borrow(cached.object(), cached.type(), cached.bytes());
}

std::unique_ptr<Source> RepeatingSource::replicate() const {
  auto copy = std::unique_ptr<RepeatingSource>(new RepeatingSource(cache_));
  for (auto const& description : products()) copy->declare(description);
  return copy;
}

std::string RepeatingSource::origin() const { return cache_->origin; }

std::string RepeatingSource::details() const { return cache_->details; }

}  // namespace lanes
