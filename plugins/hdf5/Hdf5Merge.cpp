#include "hdf5/Hdf5Merge.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "lanes/core/Exception.h"

namespace lanes::hdf5 {

namespace {

constexpr std::uint64_t kBlockBytes = 16 << 20;  // copied at a time

// One dataset of the merged file and where it is in a part.
struct Merged {
  std::string path;  // within the file
  std::size_t index;
  bool ends = false;     // ends in dataset `base` (offsets, frame ends, batch ends): shifted by
  std::size_t base = 0;  // what the merged file held of it before the part
};

bool hasLink(hid_t parent, std::string const& name) {
  auto const exists = H5Lexists(parent, name.c_str(), H5P_DEFAULT);
  if (exists < 0) H5Eclear2(H5E_DEFAULT);
  return exists > 0;
}

Id openDataset(hid_t file, std::string const& path, std::string const& part) {
  return Id(check(H5Dopen2(file, path.c_str(), H5P_DEFAULT), "part '" + part + "' has no dataset '" + path + "'"),
            &H5Dclose);
}

// The merged file's structure, from the first part.
std::vector<Merged> layOut(Hdf5Writer& to, hid_t from, std::string const& part) {
  auto const ids = openDataset(from, kEventIds, part);
  auto const events = lengthOf(ids.get(), "cannot read part '" + part + "'");
  std::vector<Merged> merged{{kEventIds, to.addDataset(to.root(), kEventIds, eventIdType().get(), events)}};
  if (hasLink(from, kBatchEnds)) {
    auto const ends = to.addDataset(to.root(), kBatchEnds, H5T_NATIVE_UINT64, 1);
    merged.push_back({kBatchEnds, ends, true, merged.front().index});
  }
  Id products(check(H5Gopen2(from, kProducts, H5P_DEFAULT), "part '" + part + "' has no products"), &H5Gclose);
  for (auto const& label : childrenOf(products.get(), "cannot list the products of part '" + part + "'")) {
    Id group(check(H5Gopen2(products.get(), label.c_str(), H5P_DEFAULT), "cannot open product '" + label + "'"),
             &H5Gclose);
    auto const kind = stringAttribute(group.get(), "kind");
    auto const target = to.addProduct(label, kind, stringAttribute(group.get(), "type"));
    auto const base = std::string(kProducts) + "/" + label + "/";
    auto const values = openDataset(from, base + kValues, part);
    Id fileType(check(H5Dget_type(values.get()), "cannot read product '" + label + "'"), &H5Tclose);
    Id memoryType(check(H5Tget_native_type(fileType.get(), H5T_DIR_ASCEND), "cannot read product '" + label + "'"),
                  &H5Tclose);
    auto const valuesIndex =
        to.addDataset(target, kValues, memoryType.get(), lengthOf(values.get(), "cannot read product '" + label + "'"));
    merged.push_back({base + kValues, valuesIndex});
    // An event's end per event, or (compress=batch blobs, which have no offsets) a frame's per batch.
    for (auto const& [ends, count] : {std::pair{kOffsets, events}, std::pair{kFrames, std::uint64_t{1}}}) {
      if (hasLink(group.get(), ends)) {
        merged.push_back({base + ends, to.addDataset(target, ends, H5T_NATIVE_UINT64, count), true, valuesIndex});
      }
    }
  }
  return merged;
}

// Appends the part's `dataset`, its values shifted by `shift`.
void append(Hdf5Writer& to, Merged const& dataset, std::uint64_t shift, hid_t from, std::string const& part) {
  auto const source = openDataset(from, dataset.path, part);
  std::string const what = "cannot read '" + dataset.path + "' of part '" + part + "'";
  auto const length = lengthOf(source.get(), what);
  auto const type = to.typeOf(dataset.index);
  auto const element = check(H5Tget_size(type), what);
  auto const block = std::max<std::uint64_t>(1, kBlockBytes / element);
  std::vector<unsigned char> buffer(std::min(length, block) * element);
  for (std::uint64_t first = 0; first < length; first += block) {
    auto const count = std::min(block, length - first);
    readRange(source.get(), type, first, count, buffer.data(), what);
    if (dataset.ends) {
      auto* const ends = reinterpret_cast<std::uint64_t*>(buffer.data());
      for (std::uint64_t i = 0; i < count; ++i) ends[i] += shift;
    }
    to.append(dataset.index, buffer.data(), count);
  }
}

}  // namespace

void mergeFiles(std::vector<std::string> const& parts, std::string const& path, WriteSettings settings) {
  auto const lock = lockLibrary();
  if (parts.empty()) return;
  auto first = openFile(parts.front());
  auto const layout = stringAttribute(first.get(), "lanes_layout");
  auto const encoding = blobEncodingOf(first.get());
  Hdf5Writer to(path, layout, settings);
  writeBlobEncoding(to.root(), encoding);
  auto const merged = layOut(to, first.get(), parts.front());
  first.reset();
  for (auto const& part : parts) {
    auto const from = openFile(part);
    if (stringAttribute(from.get(), "lanes_layout") != layout) {
      throw Exception("part '" + part + "' has another layout than '" + parts.front() + "'");
    }
    if (!(blobEncodingOf(from.get()) == encoding)) {
      throw Exception("part '" + part + "' has another serialization or compression than '" + parts.front() + "'");
    }
    // Ends count from the start of the merged file's values (or events), as it was before this part.
    std::vector<std::uint64_t> shifts;
    for (auto const& dataset : merged) shifts.push_back(dataset.ends ? to.length(dataset.base) : 0);
    for (std::size_t i = 0; i < merged.size(); ++i) append(to, merged[i], shifts[i], from.get(), part);
  }
  to.close();
}

}  // namespace lanes::hdf5
