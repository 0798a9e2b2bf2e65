#include "root/ReusedObjects.h"

#include <TClass.h>

#include <algorithm>
#include <atomic>
#include <mutex>

namespace lanes::rootio {

// Nodes that their chain let go while a slot held them, freed once back.
// Thread-safe (a mutex, taken only when a chain lets a node go or ends).
class Strays {
 public:
  using Node = ReusedObjects::Node;

  void add(Node* node) {
    std::lock_guard lock(mutex_);
    nodes_.push_back(node);
    // Freed in a pass each time the list doubles: a repeat cache holds a
    // node per product of each event it keeps, until the job ends.
    if (nodes_.size() >= freeAt_) freeReturnedLocked();
  }
  void freeReturned() {
    std::lock_guard lock(mutex_);
    freeReturnedLocked();
  }

 private:
  void freeReturnedLocked() {
    auto const held = std::partition(nodes_.begin(), nodes_.end(),
                                     [](Node const* node) { return node->lent.load(std::memory_order_acquire); });
    std::for_each(held, nodes_.end(), &ReusedObjects::destroy);
    nodes_.erase(held, nodes_.end());
    freeAt_ = std::max<std::size_t>(kFirstPass, 2 * nodes_.size());
  }

  static constexpr std::size_t kFirstPass = 1024;
  std::mutex mutex_;
  std::vector<Node*> nodes_;
  std::size_t freeAt_ = kFirstPass;
};

namespace {

// Never destroyed: slots may give objects back as the process ends.
Strays& strays() {
  static auto* const list = new Strays;
  return *list;
}

}  // namespace

ReusedObjects::ReusedObjects(std::vector<TClass*> const& classes) : classes_(classes), nodes_(classes.size()) {}

ReusedObjects::~ReusedObjects() {
  for (auto* node : nodes_) {
    if (!node) continue;
    if (node->lent.load(std::memory_order_acquire)) {
      strays().add(node);
    } else {
      destroy(node);
    }
  }
  strays().freeReturned();
}

void ReusedObjects::destroy(Node* node) {
  node->cls->Destructor(node->object);
  delete node;
}

void ReusedObjects::renew(std::size_t product) {
  auto*& node = nodes_[product];
  if (node) strays().add(node);
  auto* cls = classes_[product];
  node = new Node{cls->New(), cls, cls->GetTypeInfo()};
}

void ReusedObjects::giveUp(std::size_t product) {
  delete nodes_[product];  // not its object: ROOT may have left it unfit even for its destructor
  nodes_[product] = nullptr;
}

}  // namespace lanes::rootio
