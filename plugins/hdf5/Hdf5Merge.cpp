#include "hdf5/Hdf5Merge.h"

#include <cstdint>

#include "hdf5/Hdf5PartLayout.h"
#include "lanes/core/Exception.h"

namespace lanes::hdf5 {

namespace {

constexpr std::uint64_t kBlockBytes = 16 << 20;  // copied at a time

}  // namespace

void mergeFiles(std::vector<std::string> const& parts, std::string const& path, WriteSettings settings) {
  auto const lock = lockLibrary();
  if (parts.empty()) return;
  auto const first = layoutOf(openFile(parts.front()).get(), parts.front());
  Hdf5Writer to(path, first.layout, settings);
  // Chunks sized by the first part.
  makeLayout(to, first, [&first](std::size_t i) { return first.datasets[i].length; });
  for (auto const& part : parts) {
    auto const from = openFile(part);
    auto const layout = layoutOf(from.get(), part);
    requireSameLayout(first, parts.front(), layout, part);
    // Ends count from the start of the merged file's values (or events), as it was before this part.
    std::vector<std::uint64_t> shifts;
    for (auto const& dataset : layout.datasets) shifts.push_back(dataset.ends ? to.length(dataset.base) : 0);
    for (std::size_t i = 0; i < layout.datasets.size(); ++i) {
      readBlocks(from.get(), layout.datasets[i], shifts[i], kBlockBytes, part,
                 [&to, i](void const* data, std::uint64_t, std::uint64_t count) { to.append(i, data, count); });
    }
  }
  to.close();
}

}  // namespace lanes::hdf5
