#include "root/ObjectPool.h"

#include <TClass.h>

namespace lanes::rootio {

ObjectPool::Owner ObjectPool::make(TClass* cls) {
  return make(
      *cls->GetTypeInfo(), [](void* c) { return static_cast<TClass*>(c)->New(); },
      [](void* object, void* c) { static_cast<TClass*>(c)->Destructor(object); }, cls);
}

ObjectPool::Owner ObjectPool::make(std::type_info const& type, Make make, Destroy destroy, void* context) {
  return Owner(new ObjectPool(type, make, destroy, context));
}

ObjectPool::~ObjectPool() {
  for (auto* object : free_) destroy_(object, context_);
  for (void* object; returned_.try_pop(object);) destroy_(object, context_);
}

void* ObjectPool::take() {
  refs_.fetch_add(1, std::memory_order_relaxed);
  if (free_.empty()) {
    for (void* object; returned_.try_pop(object);) free_.push_back(object);
  }
  if (free_.empty()) {
    ++made_;
    return make_(context_);
  }
  auto* object = free_.back();
  free_.pop_back();
  return object;
}

void ObjectPool::putBack(void* object) {
  free_.push_back(object);
  unref();
}

void ObjectPool::discard(void*) { unref(); }

void ObjectPool::giveBack(void* object, void* context) {
  auto* pool = static_cast<ObjectPool*>(context);
  pool->returned_.push(object);
  pool->unref();
}

void ObjectPool::unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

}  // namespace lanes::rootio
