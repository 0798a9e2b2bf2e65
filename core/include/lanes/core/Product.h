#pragma once
// Product descriptions, typed tokens and the type-erased slot an event keeps
// each product in.

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>

namespace lanes {

using ProductIndex = std::uint32_t;

class ProductSlot;
// Merges the product in `from` into the one in `into`, both of one type: a
// run or lumi product's parts (Lumi.h: mergeInto); nullptr where the type
// does not merge.
using MergeProducts = void (*)(ProductSlot& into, ProductSlot const& from);

// Immutable after registration.
struct ProductDescription {
  std::string label;
  std::type_index type;
  std::string typeName;  // for messages; the registry fills it from `type` if empty
  MergeProducts merge = nullptr;  // run and lumi products only (Lumi.h)
};

// A handle a module obtains from consumes<T>() or produces<T>() at
// construction; it indexes the event's product slots without a name lookup.
// Immutable value type.
template <typename T>
class ProductToken {
 public:
  ProductToken() = default;
  explicit ProductToken(ProductIndex const* index) : index_(index) {}
  ProductIndex index() const { return *index_; }
  bool valid() const { return index_ != nullptr; }

 private:
  // Points into the module's declaration list: the registry resolves indices
  // after every module has been constructed.
  ProductIndex const* index_ = nullptr;
};

// A token for a product of any type: a consumer that needs only its size.
struct AnyProduct {};

// Synthetic payload: a product that has a size but whose content does not
// matter (mimicry sources, generic producers). Immutable value type.
struct SyntheticBytes {
  std::size_t size = 0;
};

// Holds one product of any type. Lane-confined: written once by the
// product's producer, read afterwards by consumers that the scheduler orders
// after that producer. A slot holds its object in one of three ways:
// - owned (emplace, adopt): the slot deletes it on reset();
// - lent (lend): a view of an object that its owner (a source's pool) reuses
//   for a later event once reset() gives it back, or, for an event's slots,
//   once its lane starts its next event (vacate()) and the owner lends the
//   slot the next product (reclaim());
// - borrowed (borrow): a view of an object that outlives the slot's use.
// Either way a product is valid, and unchanged, until its slot is reset or
// vacated: for an event's slots, when its lane starts its next event. Code that keeps a
// product beyond its event keeps the slot itself (a repeat cache does: a lent
// object then never goes back, and its pool makes another), or a copy, never
// the object's address; outputs serialise a product within write().
class alignas(64) ProductSlot {  // one cache line: a source fills an event's slots one after another
 public:
  ProductSlot() = default;
  ProductSlot(ProductSlot const&) = delete;
  ProductSlot& operator=(ProductSlot const&) = delete;
  ~ProductSlot() { reset(); }

  bool filled() const { return object_ != nullptr; }
  std::type_info const& type() const { return *type_; }
  std::size_t bytes() const { return bytes_; }
  void const* object() const { return object_; }

  template <typename T>
  void emplace(T&& value, std::size_t bytes) {
    using U = std::decay_t<T>;
    reset();
    if constexpr (sizeof(U) <= kInline && alignof(U) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<U>) {
      object_ = new (inline_) U(std::forward<T>(value));
      if constexpr (!std::is_trivially_destructible_v<U>) destroy_ = [](void* p, void*) { static_cast<U*>(p)->~U(); };
    } else {
      object_ = new U(std::forward<T>(value));
      destroy_ = [](void* p, void*) { delete static_cast<U*>(p); };
    }
    type_ = &typeid(U);
    bytes_ = bytes;
  }

  // Takes ownership of an object made by code that knows its type only at run
  // time (a ROOT class, say): `destroy(object, context)` deletes it.
  using Destroy = void (*)(void* object, void* context);
  void adopt(void* object, std::type_info const& type, std::size_t bytes, Destroy destroy, void* context) {
    reset();
    // The inline buffer is unused by an adopted object, so it keeps the context.
    new (inline_) Adopted{destroy, context};
    destroy_ = [](void* p, void* storage) {
      auto const* adopted = static_cast<Adopted const*>(storage);
      adopted->destroy(p, adopted->context);
    };
    object_ = object;
    type_ = &type;
    bytes_ = bytes;
  }

  // Views an object that its owner reuses: reset() hands it back through
  // `release(object, context)`, which may run on any thread (the lane's);
  // vacate() keeps it as the slot's spare instead.
  void lend(void* object, std::type_info const& type, std::size_t bytes, Destroy release, void* context) {
    reset();
    new (inline_) Adopted{release, context};
    destroy_ = &releaseLent;
    object_ = object;
    type_ = &type;
    bytes_ = bytes;
  }

  // Empties the slot for its lane's next event, as reset() does, except that
  // an object lent to it stays with it as its spare, for its owner to take
  // back (reclaim) as it lends the slot the next event's product: a source
  // that reads a product event after event trades objects with the slot,
  // and no object goes back through another thread. reset(), or a product
  // of another kind or owner, gives the spare back.
  void vacate() {
    if (destroy_ != &releaseLent) return reset();
    if (object_) lent()->spare = const_cast<void*>(std::exchange(object_, nullptr));
  }

  // The slot's spare (see vacate()) if lend(..., release, context) left it;
  // the slot forgets it. Else nullptr.
  void* reclaim(Destroy release, void const* context) {
    if (destroy_ != &releaseLent) return nullptr;
    auto* lent = this->lent();
    if (!lent->spare || lent->destroy != release || lent->context != context) return nullptr;
    destroy_ = nullptr;
    return std::exchange(lent->spare, nullptr);
  }

  // Lends `object` in place of the spare that lend(..., release, context)
  // left (see vacate()), and returns that spare, its owner's again; nullptr
  // if the slot kept none of that owner's (the slot is unchanged). The type
  // stays: an owner lends objects of one type. What reclaim() and lend() do
  // in one step, without the type, which a source would read from memory
  // the lane last touched an event of every product ago.
  void* trade(void* object, std::size_t bytes, Destroy release, void const* context) {
    if (destroy_ != &releaseLent) return nullptr;
    auto* lent = this->lent();
    if (!lent->spare || lent->destroy != release || lent->context != context) return nullptr;
    object_ = object;
    bytes_ = bytes;
    return std::exchange(lent->spare, nullptr);
  }

  // Refers to an object owned elsewhere (a source's replay cache) that
  // outlives this slot's use.
  void borrow(void const* object, std::type_info const& type, std::size_t bytes) {
    reset();
    object_ = object;
    type_ = &type;
    bytes_ = bytes;
  }

  // type() and bytes() are meaningful only while filled().
  void reset() {
    if (destroy_) {
      destroy_(const_cast<void*>(object_), inline_);
      destroy_ = nullptr;
    }
    object_ = nullptr;
  }

 private:
  static constexpr std::size_t kInline = 32;
  struct Adopted {
    Destroy destroy;
    void* context;
    void* spare = nullptr;  // lent: the object a vacated slot keeps
  };
  static_assert(sizeof(Adopted) <= kInline);
  Adopted* lent() { return static_cast<Adopted*>(static_cast<void*>(inline_)); }
  // Gives back the lent object, or the spare of a vacated slot.
  static void releaseLent(void* object, void* storage) {
    auto* lent = static_cast<Adopted*>(storage);
    lent->destroy(object ? object : lent->spare, lent->context);
  }
  alignas(std::max_align_t) unsigned char inline_[kInline];
  void const* object_ = nullptr;
  std::type_info const* type_ = nullptr;
  void (*destroy_)(void* object, void* storage) = nullptr;
  std::size_t bytes_ = 0;
};
static_assert(sizeof(ProductSlot) == 64);

// "lanes::SyntheticBytes" rather than a mangled name, for messages.
std::string demangle(std::type_info const& type);
std::string demangle(std::type_index type);

}  // namespace lanes
