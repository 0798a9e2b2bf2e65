#include "root/TreeFiller.h"

#include <TClass.h>
#include <TTree.h>

#include <cstring>

#include "lanes/core/Exception.h"

namespace lanes::rootio {

namespace {

// The leaf of a product's leaf-list branch: the product's name, but where a
// leaf list would read ':' as the start of another leaf, '[' as a dimension
// or '/' as the type ('_' there: ATLAS's "EventInfoAuxDyn:eventNumber" made
// two leaves). The branch keeps the product's name.
std::string leafName(std::string label) {
  for (auto& c : label) {
    if (c == ':' || c == '[' || c == ']' || c == '/') c = '_';
  }
  return label;
}

}  // namespace

TreeFiller::TreeFiller(TTree& tree, std::vector<Column> const& columns, TreeSettings const& settings)
    : tree_(tree), columns_(columns), scalars_(columns.size()), objects_(columns.size()), arrays_(columns.size()) {
  tree_.Branch("run", &run_, "run/i");
  tree_.Branch("luminosityBlock", &luminosityBlock_, "luminosityBlock/i");
  tree_.Branch("event", &event_, "event/l");
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    auto const& column = columns_[i];
    if (!column.type.fundamental) {
      // An object of our own from the start, so that ROOT never owns (and
      // later deletes) the object a branch points at.
      auto const* typeInfo = column.type.emulated ? nullptr : column.type.cls->GetTypeInfo();
      arrays_[i] = typeInfo ? fundamentalByArray(*typeInfo) : nullptr;
      objects_[i] = column.type.cls->New();
      ownObjects_.emplace_back(column.type.cls, objects_[i]);
    }
    addColumnBranch(tree_, column, scalars_[i].data(), &objects_[i], settings);
  }
}

void addColumnBranch(TTree& tree, Column const& column, void* scalar, void** object, TreeSettings const& settings) {
  TBranch* branch = nullptr;
  takeRootMessage();
  if (auto const* fundamental = column.type.fundamental) {
    auto const leaves = leafName(column.label) + "/" + fundamental->leafCode;
    branch = tree.Branch(column.label.c_str(), scalar, leaves.c_str(), settings.basketBytes);
  } else {
    branch = tree.Branch(column.label.c_str(), column.type.cls->GetName(), object, settings.basketBytes,
                         settings.splitLevel);
  }
  if (!branch) {
    throw Exception("cannot make a branch for product '" + column.label + "' of type '" + column.type.name +
                    "': " + takeRootMessage());
  }
}

TreeFiller::~TreeFiller() {
  tree_.ResetBranchAddresses();
  for (auto [cls, object] : ownObjects_) cls->Destructor(object);
}

std::size_t TreeFiller::fill(Event const& event) {
  run_ = event.id().run;
  luminosityBlock_ = event.id().luminosityBlock;
  event_ = event.id().event;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    auto const& column = columns_[i];
    // The event's slots and objects were last touched as the source filled
    // them, a whole event of every product ago: ask for them ahead, so that
    // Fill() finds each object in the cache.
    if (i + 2 < columns_.size()) __builtin_prefetch(&event.slot(columns_[i + 2].index));
    auto const& slot = event.slot(column.index);
    if (column.type.fundamental) {
      std::memcpy(scalars_[i].data(), slot.object(), column.type.fundamental->size);
    } else {
      // The branch notices the new address and re-targets itself.
      objects_[i] = rootObjectOf(slot, column.type);
    }
  }
  // The objects too were last touched as the source filled them (read ahead,
  // up to a window of entries ago). Fill() would wait for each in turn;
  // read here first, one independent of the next, the CPU waits for many
  // at once (writing the object-branch NanoAOD, streaming vector<bool> was
  // 13% of a profile, nine tenths of it on these two loads).
  // (Called through a pointer set at run time, so no compiler drops the reads.)
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (auto const* array = arrays_[i]) array->touchArray(objects_[i]);
  }
  takeRootMessage();
  auto const bytes = tree_.Fill();
  if (bytes < 0) {
    throw Exception("cannot write event " + event.id().str() + " to tree '" + tree_.GetName() + "': " +
                    takeRootMessage());
  }
  return static_cast<std::size_t>(bytes);
}

}  // namespace lanes::rootio
