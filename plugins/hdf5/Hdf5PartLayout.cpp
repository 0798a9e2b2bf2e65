#include "hdf5/Hdf5PartLayout.h"

#include <algorithm>
#include <utility>

#include "lanes/core/Exception.h"

namespace lanes::hdf5 {

namespace {

Id openDataset(hid_t file, std::string const& path, std::string const& part) {
  return Id(check(H5Dopen2(file, path.c_str(), H5P_DEFAULT), "part '" + part + "' has no dataset '" + path + "'"),
            &H5Dclose);
}

PartDataset datasetOf(hid_t file, std::string path, char const* name, int product, Id type, std::string const& part) {
  auto const dataset = openDataset(file, path, part);
  auto const length = lengthOf(dataset.get(), "cannot read part '" + part + "'");
  return {std::move(path), name, product, std::move(type), length};
}

Id memoryTypeOf(hid_t file, std::string const& path, std::string const& part) {
  std::string const what = "cannot read '" + path + "' of part '" + part + "'";
  auto const dataset = openDataset(file, path, part);
  Id fileType(check(H5Dget_type(dataset.get()), what), &H5Tclose);
  return Id(check(H5Tget_native_type(fileType.get(), H5T_DIR_ASCEND), what), &H5Tclose);
}

Id uint64Type() { return Id(H5Tcopy(H5T_NATIVE_UINT64), &H5Tclose); }

}  // namespace

PartLayout layoutOf(hid_t file, std::string const& part) {
  PartLayout layout{stringAttribute(file, "lanes_layout"), blobEncodingOf(file), {}, {}};
  auto& datasets = layout.datasets;
  datasets.push_back(datasetOf(file, kEventIds, kEventIds, -1, eventIdType(), part));
  if (hasLink(file, kBatchEnds)) {
    datasets.push_back(datasetOf(file, kBatchEnds, kBatchEnds, -1, uint64Type(), part));
    datasets.back().ends = true;
  }
  Id products(check(H5Gopen2(file, kProducts, H5P_DEFAULT), "part '" + part + "' has no products"), &H5Gclose);
  for (auto const& label : childrenOf(products.get(), "cannot list the products of part '" + part + "'")) {
    Id group(check(H5Gopen2(products.get(), label.c_str(), H5P_DEFAULT), "cannot open product '" + label + "'"),
             &H5Gclose);
    auto const product = static_cast<int>(layout.products.size());
    layout.products.push_back({label, stringAttribute(group.get(), "kind"), stringAttribute(group.get(), "type")});
    auto const base = std::string(kProducts) + "/" + label + "/";
    auto const values = datasets.size();
    datasets.push_back(datasetOf(file, base + kValues, kValues, product, memoryTypeOf(file, base + kValues, part), part));
    // An event's end per event, or (compress=batch blobs, which have no offsets) a frame's per batch.
    for (auto const* ends : {kOffsets, kFrames}) {
      if (!hasLink(group.get(), ends)) continue;
      datasets.push_back(datasetOf(file, base + ends, ends, product, uint64Type(), part));
      datasets.back().ends = true;
      datasets.back().base = values;
    }
  }
  return layout;
}

void requireSameLayout(PartLayout const& first, std::string const& firstPart, PartLayout const& other,
                       std::string const& part) {
  if (other.layout != first.layout) throw Exception("part '" + part + "' has another layout than '" + firstPart + "'");
  if (!(other.encoding == first.encoding)) {
    throw Exception("part '" + part + "' has another serialization or compression than '" + firstPart + "'");
  }
  bool const same = std::equal(first.datasets.begin(), first.datasets.end(), other.datasets.begin(),
                               other.datasets.end(), [](auto const& a, auto const& b) { return a.path == b.path; });
  if (!same) throw Exception("part '" + part + "' has other products than '" + firstPart + "'");
}

void makeLayout(Hdf5Writer& to, PartLayout const& layout, DatasetSize const& firstAppend, DatasetSize const& length) {
  writeBlobEncoding(to.root(), layout.encoding);
  std::vector<hid_t> groups;
  for (auto const& product : layout.products) groups.push_back(to.addProduct(product.label, product.kind, product.type));
  for (std::size_t i = 0; i < layout.datasets.size(); ++i) {
    auto const& dataset = layout.datasets[i];
    auto const parent = dataset.product < 0 ? to.root() : groups[static_cast<std::size_t>(dataset.product)];
    to.addDataset(parent, dataset.name, dataset.type.get(), firstAppend(i), length ? length(i) : 0);
  }
}

std::uint64_t blockElements(PartDataset const& dataset, std::uint64_t blockBytes) {
  return std::max<std::uint64_t>(1, blockBytes / H5Tget_size(dataset.type.get()));
}

void readBlocks(hid_t file, PartDataset const& dataset, std::uint64_t shift, std::uint64_t blockBytes,
                std::string const& part, TakeBlock const& take) {
  auto const source = openDataset(file, dataset.path, part);
  std::string const what = "cannot read '" + dataset.path + "' of part '" + part + "'";
  auto const block = blockElements(dataset, blockBytes);
  auto const element = H5Tget_size(dataset.type.get());
  std::vector<unsigned char> buffer(std::min(dataset.length, block) * element);
  for (std::uint64_t first = 0; first < dataset.length; first += block) {
    auto const count = std::min(block, dataset.length - first);
    readRange(source.get(), dataset.type.get(), first, count, buffer.data(), what);
    if (dataset.ends) {
      auto* const ends = reinterpret_cast<std::uint64_t*>(buffer.data());
      for (std::uint64_t i = 0; i < count; ++i) ends[i] += shift;
    }
    take(buffer.data(), first, count);
  }
}

}  // namespace lanes::hdf5
