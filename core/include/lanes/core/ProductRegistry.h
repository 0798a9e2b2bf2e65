#pragma once
// Every product of the job, who produces it, and its index in an event's slots.

#include <string>
#include <unordered_map>
#include <vector>

#include "lanes/core/Lumi.h"
#include "lanes/core/Product.h"

namespace lanes {

class Module;

inline constexpr unsigned kSourceProducer = ~0u;

// Built once at start-up by one thread; immutable (and so safely shared by
// all lanes) afterwards.
class ProductRegistry {
 public:
  struct Entry {
    ProductDescription description;
    unsigned producer;  // module index, or kSourceProducer
  };

  // Throws lanes::Exception naming both producers if `label` is already taken.
  ProductIndex add(ProductDescription description, unsigned producer, std::string const& producerName);

  std::size_t size() const { return entries_.size(); }
  Entry const& operator[](ProductIndex index) const { return entries_[index]; }
  std::vector<Entry> const& entries() const { return entries_; }

  // nullptr when no product has this label.
  ProductIndex const* find(std::string const& label) const;

  // Fills the indices of a module's produced declarations (registering them)
  // or its consumed ones (checking that a producer exists and the type fits),
  // of one level: a registry holds the products of one level.
  void registerProducts(Module& module, unsigned moduleIndex, Level level = Level::Event);
  // Another instance of the same stream module: same products, same indices.
  void registerReplica(Module& replica, Module const& original, Level level = Level::Event) const;
  void resolveConsumed(Module& module, Level level = Level::Event) const;

 private:
  std::vector<Entry> entries_;
  std::vector<std::string> producerNames_;
  std::unordered_map<std::string, ProductIndex> byLabel_;
};

}  // namespace lanes
