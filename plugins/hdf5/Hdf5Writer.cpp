#include "hdf5/Hdf5Writer.h"

#include <algorithm>

#include "lanes/core/Exception.h"

namespace lanes::hdf5 {

namespace {

// Groups that list their children in creation order: the products in the
// job's order.
Id orderedGroup(hid_t parent, std::string const& name, std::string const& what) {
  Id properties(check(H5Pcreate(H5P_GROUP_CREATE), what), &H5Pclose);
  check(H5Pset_link_creation_order(properties.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), what);
  return Id(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, properties.get(), H5P_DEFAULT), what), &H5Gclose);
}

}  // namespace

namespace {

// How every file is written: a strong close (closing the file closes
// whatever is still open in it, so that its last writes happen there, where
// a failure is seen), and the 1.10 file format, whose metadata (superblock,
// object headers, group links, chunk indexes) is checksummed: a damaged
// structure is an error as it is read, where 1.6's crashed HDF5 1.10's reader.
Id fileAccess(std::string const& what) {
  Id access(check(H5Pcreate(H5P_FILE_ACCESS), what), &H5Pclose);
  check(H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG), what);
  check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V110, H5F_LIBVER_V110), what);
  return access;
}

}  // namespace

Hdf5Writer::Hdf5Writer(std::string const& path, WriteSettings settings) : path_(path), settings_(settings) {
  std::string const what = "cannot add to '" + path + "'";
  file_ = Id(check(H5Fopen(path.c_str(), H5F_ACC_RDWR, fileAccess(what).get()), what), &H5Fclose);
}

Hdf5Writer::Hdf5Writer(std::string const& path, std::string const& layout, WriteSettings settings, Driver const& driver)
    : path_(path), settings_(settings) {
  std::string const what = "cannot create '" + path + "'";
  auto const access = fileAccess(what);
  if (driver) driver(access.get());
  Id creation(check(H5Pcreate(H5P_FILE_CREATE), what), &H5Pclose);
  check(H5Pset_link_creation_order(creation.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), what);
  file_ = Id(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, creation.get(), access.get()), what), &H5Fclose);
  writeStringAttribute(file_.get(), "lanes_layout", layout);
  Id space(check(H5Screate(H5S_SCALAR), what), &H5Sclose);
  Id version(check(H5Acreate2(file_.get(), "lanes_version", H5T_NATIVE_INT, space.get(), H5P_DEFAULT, H5P_DEFAULT), what),
             &H5Aclose);
  check(H5Awrite(version.get(), H5T_NATIVE_INT, &kVersion), what);
  products_ = orderedGroup(file_.get(), kProducts, what);
}

hid_t Hdf5Writer::addGroup(hid_t parent, std::string const& name) {
  groups_.push_back(orderedGroup(parent, name, "cannot write group '" + name + "'"));
  return groups_.back().get();
}

hid_t Hdf5Writer::addProduct(std::string const& label, std::string const& kind, std::string const& type) {
  return addProduct(products_.get(), label, kind, type);
}

hid_t Hdf5Writer::addProduct(hid_t parent, std::string const& label, std::string const& kind, std::string const& type) {
  if (label.find('/') != std::string::npos || label == ".") {
    throw Exception("product '" + label + "' cannot name an HDF5 group (leave it out with keep=)");
  }
  groups_.push_back(orderedGroup(parent, label, "cannot write product '" + label + "'"));
  auto const group = groups_.back().get();
  writeStringAttribute(group, "kind", kind);
  writeStringAttribute(group, "type", type);
  return group;
}

std::size_t Hdf5Writer::addDataset(hid_t group, char const* name, hid_t type, std::uint64_t firstAppend,
                                   std::uint64_t length) {
  std::string const what = std::string("cannot create dataset '") + name + "'";
  Dataset dataset;
  dataset.type = Id(check(H5Tcopy(type), what), &H5Tclose);
  dataset.elementSize = check(H5Tget_size(type), what);
  hsize_t const initial = length, unlimited = H5S_UNLIMITED;
  std::uint64_t const element = dataset.elementSize;
  hsize_t const chunk = std::max<std::uint64_t>(
      1, std::min(settings_.chunkBytes / element, std::max(firstAppend, std::uint64_t{1024} / element)));
  Id space(check(H5Screate_simple(1, &initial, &unlimited), what), &H5Sclose);
  Id properties(check(H5Pcreate(H5P_DATASET_CREATE), what), &H5Pclose);
  check(H5Pset_chunk(properties.get(), 1, &chunk), what);
  if (settings_.deflate > 0) check(H5Pset_deflate(properties.get(), settings_.deflate), what);
  check(H5Pset_fletcher32(properties.get()), what);
  dataset.id = Id(check(H5Dcreate2(group, name, dataset.type.get(), space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT),
                        what),
                  &H5Dclose);
  dataset.length = length;
  datasets_.push_back(std::move(dataset));
  return datasets_.size() - 1;
}

void Hdf5Writer::append(std::size_t index, void const* data, std::uint64_t count) {
  if (count == 0) return;
  auto const first = datasets_[index].length;
  extend(index, first + count);
  writeAt(index, first, data, count, H5P_DEFAULT);
}

void Hdf5Writer::extend(std::size_t index, std::uint64_t length) {
  auto& dataset = datasets_[index];
  hsize_t const extent = length;
  check(H5Dset_extent(dataset.id.get(), &extent), "cannot write '" + path_ + "'");
  dataset.length = length;
}

void Hdf5Writer::writeAt(std::size_t index, std::uint64_t first, void const* data, std::uint64_t count, hid_t transfer) {
  auto& dataset = datasets_[index];
  std::string const what = "cannot write '" + path_ + "'";
  hsize_t const start = first, size = std::max<std::uint64_t>(count, 1);
  Id space(check(H5Dget_space(dataset.id.get()), what), &H5Sclose);
  Id memory(check(H5Screate_simple(1, &size, nullptr), what), &H5Sclose);
  if (count == 0) {
    check(H5Sselect_none(space.get()), what);
    check(H5Sselect_none(memory.get()), what);
  } else {
    check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &start, nullptr, &size, nullptr), what);
  }
  check(H5Dwrite(dataset.id.get(), dataset.type.get(), memory.get(), space.get(), transfer, data), what);
}

void Hdf5Writer::close() {
  std::string const what = "cannot write '" + path_ + "'";
  if (file_.get() >= 0) check(H5Fflush(file_.get(), H5F_SCOPE_LOCAL), what);
  datasets_.clear();
  groups_.clear();
  products_.reset();
  if (!file_.close()) throw Exception(what + ": closing it failed");
}

}  // namespace lanes::hdf5
