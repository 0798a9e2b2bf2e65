#include "hdf5/ParallelHdf5.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "hdf5/Hdf5PartLayout.h"
#include "lanes/core/Exception.h"

namespace lanes::hdf5 {

namespace {

constexpr std::uint64_t kBlockBytes = 16 << 20;  // copied at a time

MPI_Comm commOf(ProcessGroup const& group) { return *static_cast<MPI_Comm const*>(group.handle()); }

void broadcast(MPI_Comm comm, std::string& text, int root) {
  unsigned long long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  text.resize(length);
  MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm);
}

// The error of the lowest rank that has one ("rank R: ERROR"), on every rank; "" if none has.
std::string agreed(ProcessGroup const& group, std::string const& mine) {
  int const size = static_cast<int>(group.size());
  int const candidate = mine.empty() ? size : static_cast<int>(group.rank());
  int first = size;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, commOf(group));
  if (first == size) return {};
  std::string error = "rank " + std::to_string(first) + ": " + mine;
  broadcast(commOf(group), error, first);
  return error;
}

void throwIfAny(ProcessGroup const& group, std::string const& mine) {
  if (auto const error = agreed(group, mine); !error.empty()) throw Exception(error);
}

// The datasets of a layout, and how its file is made: what every rank's part must share with rank 0's.
std::string signatureOf(PartLayout const& layout) {
  auto signature = layout.layout + "|" + layout.encoding.serialization + "|" + layout.encoding.compression + "|" +
                   layout.encoding.compress;
  for (auto const& dataset : layout.datasets) signature += "|" + dataset.path;
  return signature;
}

// Each dataset's slab of this rank: it starts where the lower ranks' end; every rank's together are `totals`;
// `blocks`: the most blocks any rank copies of it (the collective writes each rank makes).
struct Slabs {
  std::vector<std::uint64_t> starts, totals, blocks;
};

Slabs slabsOf(ProcessGroup const& group, PartLayout const& layout) {
  auto const count = layout.datasets.size();
  std::vector<std::uint64_t> lengths, blocks;
  for (auto const& dataset : layout.datasets) {
    lengths.push_back(dataset.length);
    auto const block = blockElements(dataset, kBlockBytes);
    blocks.push_back((dataset.length + block - 1) / block);
  }
  Slabs slabs{std::vector<std::uint64_t>(count, 0), std::vector<std::uint64_t>(count), std::vector<std::uint64_t>(count)};
  auto const comm = commOf(group);
  auto const n = static_cast<int>(count);
  MPI_Exscan(lengths.data(), slabs.starts.data(), n, MPI_UINT64_T, MPI_SUM, comm);
  if (group.rank() == 0) std::fill(slabs.starts.begin(), slabs.starts.end(), 0);  // MPI_Exscan leaves it undefined
  MPI_Allreduce(lengths.data(), slabs.totals.data(), n, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(blocks.data(), slabs.blocks.data(), n, MPI_UINT64_T, MPI_MAX, comm);
  return slabs;
}

// Rank 0's layout must be every rank's (they ran one job); returns the rank's own error, or "".
std::string compareWithRankZero(ProcessGroup const& group, PartLayout const& layout, std::string const& part) {
  auto const mine = signatureOf(layout);
  auto first = mine;
  broadcast(commOf(group), first, 0);
  return first == mine ? std::string() : "part '" + part + "' is laid out otherwise than rank 0's";
}

// The rank's part into its slabs: one collective write per block of every dataset (HDF5's filters, Fletcher32
// on every dataset, take collective writes only), empty ones once the rank has no more (or cannot read its part:
// then the rank's error, else "").
std::string copySlabs(Hdf5Writer& to, hid_t from, std::string const& part, PartLayout const& layout,
                      Slabs const& slabs) {
  Id transfer(check(H5Pcreate(H5P_DATASET_XFER), "cannot write together"), &H5Pclose);
  check(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), "cannot write together");
  std::string error;
  for (std::size_t i = 0; i < layout.datasets.size(); ++i) {
    auto const& dataset = layout.datasets[i];
    std::uint64_t written = 0;
    if (error.empty()) {
      try {
        readBlocks(from, dataset, dataset.ends ? slabs.starts[dataset.base] : 0, kBlockBytes, part,
                   [&](void const* data, std::uint64_t first, std::uint64_t count) {
                     to.writeAt(i, slabs.starts[i] + first, data, count, transfer.get());
                     ++written;
                   });
      } catch (Exception const& failure) {
        error = failure.what();
      }
    }
    char const none = 0;
    for (; written < slabs.blocks[i]; ++written) to.writeAt(i, 0, &none, 0, transfer.get());
  }
  return error;
}

void writeSlabs(ProcessGroup const& group, hid_t from, std::string const& part, PartLayout const& layout,
                std::string const& path, WriteSettings settings) {
  auto const slabs = slabsOf(group, layout);
  auto const comm = commOf(group);
  Hdf5Writer to(path, layout.layout, settings, [comm](hid_t access) {
    check(H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL), "cannot write together");
    // Metadata read once and written by one rank for all, not by each: the ranks make ~2 datasets a product.
    check(H5Pset_all_coll_metadata_ops(access, true), "cannot write together");
    check(H5Pset_coll_metadata_write(access, true), "cannot write together");
  });
  // Chunks sized by a rank's share, alike on every rank.
  makeLayout(to, layout, [&](std::size_t i) { return slabs.totals[i] / group.size(); },
             [&](std::size_t i) { return slabs.totals[i]; });
  auto const error = copySlabs(to, from, part, layout, slabs);
  to.close();
  throwIfAny(group, error);
}

}  // namespace

bool mpiRunning() {
  int running = 0;
  MPI_Initialized(&running);
  return running != 0;
}

std::string fromRankZero(ProcessGroup const& group, std::string text) {
  broadcast(commOf(group), text, 0);
  return text;
}

void writeTogether(ProcessGroup const& group, std::string const& part, std::string const& path, WriteSettings settings) {
  auto const lock = lockLibrary();
  std::optional<Id> from;
  PartLayout layout;
  std::string error;
  try {
    from = openFile(part);
    layout = layoutOf(from->get(), part);
  } catch (Exception const& failure) {
    error = failure.what();
  }
  throwIfAny(group, error);
  throwIfAny(group, compareWithRankZero(group, layout, part));
  try {
    writeSlabs(group, from->get(), part, layout, path, settings);
  } catch (Exception const&) {
    if (group.rank() == 0) {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
    throw;
  }
}

}  // namespace lanes::hdf5
