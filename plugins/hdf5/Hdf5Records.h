#pragma once
// The run and lumi records of an hdf5 file (root/BlockRecords.h;
// docs/formats.md "HDF5"), in both layouts:
//   /luminosityBlocks  run, luminosityBlock (uint32) and events (uint64, the
//                      events written in it): one element per record, in
//                      (run, lumi) order; products/LABEL, a group per lumi
//                      product in the job's order, with attributes kind
//                      (blob) and type, holding values (uint8: the records'
//                      bytes of it one after another, serialised as the
//                      file's blobs are, never framed) and sizes (uint32, one
//                      per record: its bytes, 4294967295 where the record
//                      lacks it)
//   /runs              the same for runs, without luminosityBlock
// A file without them was written before lanes kept records.

#include <string>
#include <utility>
#include <vector>

#include "hdf5/Hdf5Writer.h"
#include "root/BlockRecords.h"

namespace lanes::hdf5 {

inline constexpr char kLumiRecords[] = "luminosityBlocks";
inline constexpr char kRunRecords[] = "runs";
inline constexpr char kSizes[] = "sizes";

// Throws lanes::ConfigurationError if a `level` product of `products`
// (label, type) cannot name an HDF5 group (a '/' in its label).
void requireGroupNames(std::vector<std::pair<std::string, std::string>> const& products, Level level);
// Writes the groups of `records` into `writer`'s file, replacing any there.
// The caller holds lockLibrary(); throws lanes::Exception with HDF5's reason.
void writeRecords(Hdf5Writer& writer, rootio::BlockRecords const& records);
// The records of `file` (at `path`); the caller holds lockLibrary(). Throws
// lanes::Exception naming the file if they are malformed or cannot be read.
rootio::BlockRecords readRecords(hid_t file, std::string const& path);
// The same, opening the file at `path` (taking lockLibrary()).
rootio::BlockRecords recordsIn(std::string const& path);

}  // namespace lanes::hdf5
