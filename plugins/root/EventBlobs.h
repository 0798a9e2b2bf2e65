#pragma once
// The layout of a `root-events` file, shared by its output and its source.
//
// TTree `EventBlobs`, one entry per batch of events:
//   run, luminosityBlock (vector<UInt_t>), event (vector<ULong64_t>): the ids
//   blob (vector<char>): the batch's serialised products
//   events (vector<ULong64_t>, N + 1): where each event's bytes begin and end
//       in the batch's bytes (after the batch frame is opened, compress=batch|both)
//   sizes (vector<UInt_t>, N x P): the bytes of each product in its event's
//       bytes (after the event frame is opened, compress=event), in product
//       order; with compress=product|both each product's bytes are a frame
//       of their own
// The blob branch is stored as it is (the framework compressed it); ROOT
// compresses the ids and sizes (lz4), which repeat from event to event.
// TTree `EventProducts`, one entry (one per part merged): labels and types
// (vector<string>) of the P products, serialization, compression, compress;
// and lumiLabels, lumiTypes, runLabels, runTypes (vector<string>): the
// products of the run and lumi records (BlockRecords.h), which a file
// written before lanes kept records lacks.
// TTrees `LuminosityBlocks` and `Runs`, one entry per record, in (run, lumi)
// order: run, luminosityBlock (UInt_t; Runs has no luminosityBlock),
// events (ULong64_t: the events written in it), blob (vector<char>: its
// products' bytes, one after another, serialised as the events' are, never
// framed) and sizes (vector<UInt_t>: each product's bytes, 4294967295
// where the record lacks it). ROOT compresses them all (lz4).
// A frame is codec/Codec.h's: checksummed, compressed or not.

#include <string>

#include "root/BlockRecords.h"

class TFile;

namespace lanes::rootio {

constexpr char const* kBlobTree = "EventBlobs";
constexpr char const* kProductTree = "EventProducts";
constexpr char const* kLumiTree = "LuminosityBlocks";
constexpr char const* kRunTree = "Runs";
// ROOT's compression of the file (and so of every branch but the blob): lz4, level 1.
constexpr int kSmallBranchCompression = 401;

// compress=: which bytes go into one frame.
enum class FrameLevel { Product, Event, Batch, Both };

FrameLevel parseFrameLevel(std::string const& name);
std::string nameOf(FrameLevel level);

inline bool framesProducts(FrameLevel level) { return level == FrameLevel::Product || level == FrameLevel::Both; }
inline bool framesBatches(FrameLevel level) { return level == FrameLevel::Batch || level == FrameLevel::Both; }

// The names of the record products' branches of EventProducts, by level.
char const* labelsBranch(Level level);
char const* typesBranch(Level level);

// Writes the trees of `records` into `file`, replacing any it has (the
// concatenated ones of a merge); throws lanes::Exception with ROOT's reason.
void writeRecords(TFile& file, BlockRecords const& records);
// The records of the root-events file `file` (at `path`), every basket
// checked before ROOT reads it; throws lanes::Exception naming the file.
BlockRecords readRecords(TFile& file, std::string const& path);

}  // namespace lanes::rootio
