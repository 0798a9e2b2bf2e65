#pragma once
// The datasets of an hdf5 part (the file one process of a job wrote), in the
// order a file made of several parts has them, and how a part's blocks are
// appended to such a file: by the multi-process merge (Hdf5Merge.h), one part
// after another, and by parallel=true (ParallelHdf5.h), every rank its own
// part at once.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hdf5/Hdf5Writer.h"

namespace lanes::hdf5 {

struct PartProduct {
  std::string label, kind, type;  // the group's name and attributes
};

// One dataset of a part.
struct PartDataset {
  std::string path;      // within the file
  char const* name;      // within its group
  int product = -1;      // its group's entry in PartLayout::products; -1: the root group
  Id type;               // its elements' memory type
  std::uint64_t length;  // in the part
  bool ends = false;     // ends in dataset `base` (offsets, frame ends, batch ends): shifted by
  std::size_t base = 0;  // where the part's values of that start in the file made of parts
};

struct PartLayout {
  std::string layout;  // kColumns, kBlobs
  BlobEncoding encoding;
  std::vector<PartProduct> products;
  std::vector<PartDataset> datasets;
};

// The layout of `file`, the part named `part`. Holds lockLibrary() (the
// caller); throws lanes::Exception naming the part.
PartLayout layoutOf(hid_t file, std::string const& part);

// Throws lanes::Exception unless `other` (the part named so) is laid out as
// `first` (the part named so): another layout, encoding or set of datasets.
void requireSameLayout(PartLayout const& first, std::string const& firstPart, PartLayout const& other,
                       std::string const& part);

// Makes the root attributes, the products' groups and the datasets of
// `layout` in `to`, dataset i of `layout` as `to`'s dataset i;
// `firstAppend(i)` and `length(i)` (none: 0) are what addDataset() takes for it.
using DatasetSize = std::function<std::uint64_t(std::size_t dataset)>;
void makeLayout(Hdf5Writer& to, PartLayout const& layout, DatasetSize const& firstAppend, DatasetSize const& length = {});

// Reads `dataset` of the part `file` in blocks (at most `blockBytes`; ends
// shifted by `shift`), handing each to `take(data, first, count)`.
using TakeBlock = std::function<void(void const* data, std::uint64_t first, std::uint64_t count)>;
void readBlocks(hid_t file, PartDataset const& dataset, std::uint64_t shift, std::uint64_t blockBytes,
                std::string const& part, TakeBlock const& take);

// The elements of `dataset` a block of at most `blockBytes` holds.
std::uint64_t blockElements(PartDataset const& dataset, std::uint64_t blockBytes);

}  // namespace lanes::hdf5
