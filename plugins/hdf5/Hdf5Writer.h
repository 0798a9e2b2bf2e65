#pragma once
// An HDF5 file as lanes writes it (Hdf5Support.h has its layout): the root
// group's attributes, a group per product, and appendable 1-D datasets,
// chunked, each chunk checksummed by HDF5's Fletcher32 filter (which HDF5,
// h5py and every other reader verify as they read the chunk) and, if asked,
// compressed by HDF5's deflate filter first.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hdf5/Hdf5Support.h"

namespace lanes::hdf5 {

struct WriteSettings {
  std::size_t chunkBytes;  // the largest chunk of a dataset (at least one element)
  unsigned deflate;        // 0: no filter
};

// Externally synchronised: callers hold lockLibrary() around every call,
// the destructor included.
class Hdf5Writer {
 public:
  // Creates (or truncates) the file at `path`; throws lanes::Exception, as
  // every call does if HDF5 fails. `driver`, if any, sets the file driver on
  // the file-access list (parallel HDF5's MPI-IO: ParallelHdf5.h; then every
  // call but writeAt() is collective, with the same arguments on every rank).
  using Driver = std::function<void(hid_t access)>;
  Hdf5Writer(std::string const& path, std::string const& layout, WriteSettings settings, Driver const& driver = {});
  // Opens the file lanes wrote at `path` to add to it (the run and lumi
  // records of a merged file: Hdf5Records.h); it has no products group.
  Hdf5Writer(std::string const& path, WriteSettings settings);

  hid_t root() const { return file_.get(); }

  // A new group `name` of `parent`, listing its children in creation order.
  hid_t addGroup(hid_t parent, std::string const& name);
  // The group of product `label` (in `parent`, by default the products
  // group), with its `kind` and `type` attributes.
  hid_t addProduct(std::string const& label, std::string const& kind, std::string const& type);
  hid_t addProduct(hid_t parent, std::string const& label, std::string const& kind, std::string const& type);
  // A new dataset `name` in `group` of elements of `type` (copied), of
  // `length` elements (unwritten), which append() takes; returns its index.
  // `firstAppend` is the number of elements the first append() (or
  // writeAt()) brings: a chunk holds that many, at least 1 KiB and at most
  // chunkBytes, so that a small file is not mostly empty chunks and a batch
  // is written as whole chunks.
  std::size_t addDataset(hid_t group, char const* name, hid_t type, std::uint64_t firstAppend, std::uint64_t length = 0);

  void append(std::size_t dataset, void const* data, std::uint64_t count);
  // Grows `dataset` to `length` elements.
  void extend(std::size_t dataset, std::uint64_t length);
  // Writes `count` elements (none: a rank's share of a collective write that
  // has nothing) at `first`, with the transfer list `transfer`.
  void writeAt(std::size_t dataset, std::uint64_t first, void const* data, std::uint64_t count, hid_t transfer);
  std::uint64_t length(std::size_t dataset) const { return datasets_[dataset].length; }
  hid_t typeOf(std::size_t dataset) const { return datasets_[dataset].type.get(); }

  // Closes every object and the file, whose last writes this makes.
  void close();

 private:
  struct Dataset {
    Id id;
    Id type;
    std::size_t elementSize;
    std::uint64_t length = 0;
  };

  std::string path_;
  WriteSettings settings_;
  Id file_;
  Id products_;
  std::vector<Id> groups_;
  std::vector<Dataset> datasets_;
};

}  // namespace lanes::hdf5
