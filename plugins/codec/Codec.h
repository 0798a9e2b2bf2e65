#pragma once
// Framework-side compression of byte buffers (Debian's liblz4 and libzstd,
// not ROOT's copies) in self-describing, checksummed frames, for the formats
// that store serialised products as blobs (root-events, pds). ROOT-free.
//
// A frame (version 2): 1 byte tag (0x20 | algorithm: 0 none, 1 lz4,
// 2 zstd), 8 bytes the raw size, 8 bytes the checksum, then the payload (all
// little-endian). The checksum is the XXH3-64 of the tag and raw size (the
// 9 header bytes before it), seeded with the XXH3-64 of the payload: it
// catches a flipped byte anywhere in the frame, header included, before a
// decompressor or a deserialiser ever sees it, also in an uncompressed frame.
// Version 1 frames (lanes before the header was covered) still read: their
// tag is the algorithm alone (0..2) and their checksum the payload's alone.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lanes/core/Exception.h"

namespace lanes::codec {

enum class Algorithm : std::uint8_t { None = 0, Lz4 = 1, Zstd = 2 };

// Immutable value type.
struct Compression {
  Algorithm algorithm = Algorithm::None;
  int level = 0;  // lz4: 0 fast, 1..12 high compression (LZ4HC); zstd: 1..22
};

// Parses compression=none|lz4|zstd with its level= (default: lz4 0, zstd 1);
// throws lanes::Exception on an unknown name or a level out of range.
Compression parseCompression(std::string const& name, int level, bool levelGiven);
std::string nameOf(Algorithm algorithm);

constexpr std::size_t kFrameHeader = 17;
constexpr std::uint8_t kFrameVersion = 2;

// Appends one frame holding `bytes` compressed with `compression` to `out`.
// Thread-safe (each call uses its thread's own compression context).
void compress(Compression const& compression, char const* bytes, std::size_t size, std::vector<char>& out);

// The error a damaged frame gives: what is wrong, in one line.
class FrameError : public Exception {
 public:
  using Exception::Exception;
};

// The raw size a frame holds; throws FrameError if `size` cannot hold a frame.
std::uint64_t rawSizeOf(char const* frame, std::size_t size);

// Replaces `out` with the bytes of the frame of `size` bytes at `frame`
// (exactly one frame, of version 2 or 1); throws FrameError on a bad
// checksum ("checksum mismatch", whatever byte is damaged in a version 2
// frame), an unknown version or algorithm, or a payload that does not
// decompress to the raw size. Thread-safe.
void decompress(char const* frame, std::size_t size, std::vector<char>& out);

// The XXH3-64 checksum of `size` bytes (what frames carry; pds records too).
std::uint64_t checksum(char const* bytes, std::size_t size);

}  // namespace lanes::codec
