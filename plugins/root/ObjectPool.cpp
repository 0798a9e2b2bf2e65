#include "root/ObjectPool.h"

#include <TClass.h>

namespace lanes::rootio {

ObjectPool::Owner ObjectPool::make(TClass* cls) { return Owner(new ObjectPool(cls)); }

ObjectPool::~ObjectPool() {
  for (auto* list : {free_, returned_.load(std::memory_order_acquire)}) {
    while (list) {
      auto* item = list;
      list = item->next;
      cls_->Destructor(item->object);
      delete item;
    }
  }
}

ObjectPool::Item* ObjectPool::take() {
  // Taking the whole returned list at once leaves no ABA race: only pushes
  // run concurrently.
  if (!free_) free_ = returned_.exchange(nullptr, std::memory_order_acquire);
  refs_.fetch_add(1, std::memory_order_relaxed);
  if (!free_) {
    ++made_;
    return new Item{cls_->New(), nullptr, this};
  }
  auto* item = free_;
  free_ = item->next;
  return item;
}

void ObjectPool::lend(Item* item, std::size_t bytes, ProductSlot& slot) {
  slot.lend(item->object, *cls_->GetTypeInfo(), bytes, &giveBack, item);
}

void ObjectPool::putBack(Item* item) {
  item->next = free_;
  free_ = item;
  unref();
}

void ObjectPool::discard(Item* item) {
  delete item;
  unref();
}

void ObjectPool::giveBack(void*, void* context) {
  auto* item = static_cast<Item*>(context);
  auto* pool = item->pool;
  pool->push(item);
  pool->unref();
}

void ObjectPool::push(Item* item) {
  auto* head = returned_.load(std::memory_order_relaxed);
  do {
    item->next = head;
  } while (!returned_.compare_exchange_weak(head, item, std::memory_order_release, std::memory_order_relaxed));
}

void ObjectPool::unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

}  // namespace lanes::rootio
