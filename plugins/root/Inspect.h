#pragma once
// What a ROOT file holds, from its metadata alone (no event is read): its
// TTrees and RNTuples, and for each top-level branch or field the type and
// the bytes it takes per event. `lanes inspect` prints it and turns it into a
// profile for the synthetic source, so a file can be mimicked without it.

#include <cstdint>
#include <string>
#include <vector>

namespace lanes::rootio {

struct InspectedProduct {
  std::string name;
  std::string type;
  std::uint64_t entries = 0;
  double compressedPerEvent = 0;    // bytes on disk
  double uncompressedPerEvent = 0;  // bytes in memory (ROOT's serialised size)
  std::string unreadable;  // why the source (root, rntuple) cannot read it here; "" if it can
  // The rntuple source reads it emulated (no dictionary here for its type):
  // modules can read it, no ROOT output can store it.
  bool emulated = false;
};

struct InspectedDataset {
  std::string name;
  std::string kind;  // "TTree" or "RNTuple"
  std::uint64_t entries = 0;
  std::vector<InspectedProduct> products;
  // The source's options that leave out every product it cannot read and
  // no other ("exclude=A*,exclude=B"); "" if it reads them all.
  std::string exclude;
};

// Every TTree and RNTuple at the top of `path`; throws lanes::Exception
// naming the file if it cannot be read.
std::vector<InspectedDataset> inspectFile(std::string const& path);

// The synthetic source's profile (plugins/mimicry/Profile.h) of `dataset`:
// each product's mean uncompressed bytes per event.
std::string profileOf(InspectedDataset const& dataset, std::string const& origin);

}  // namespace lanes::rootio
