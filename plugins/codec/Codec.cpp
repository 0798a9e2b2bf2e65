#include "codec/Codec.h"

#include <lz4.h>
#include <lz4hc.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

namespace lanes::codec {

namespace {

void putLittle(char* to, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) to[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t getLittle(char const* from) {
  std::uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= std::uint64_t{static_cast<unsigned char>(from[i])} << (8 * i);
  return value;
}

// A version 2 frame's checksum: its tag and raw size, seeded with its payload's checksum (cheaper than hashing
// header and payload as one stream: a seeded hash of 9 bytes costs a few ns).
std::uint64_t frameChecksum(char const* header, std::uint64_t payloadChecksum) {
  return XXH3_64bits_withSeed(header, 9, payloadChecksum);
}

struct ZstdContexts {
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> compress{ZSTD_createCCtx(), &ZSTD_freeCCtx};
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> decompress{ZSTD_createDCtx(), &ZSTD_freeDCtx};
};

// A context per thread: creating one costs more than compressing a small product.
ZstdContexts& zstdContexts() {
  thread_local ZstdContexts contexts;
  return contexts;
}

// LZ4's API takes int sizes.
int lz4Size(std::size_t size) {
  if (size > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) {
    throw Exception("cannot compress " + std::to_string(size) + " bytes with lz4 (at most " +
                    std::to_string(LZ4_MAX_INPUT_SIZE) + " at a time)");
  }
  return static_cast<int>(size);
}

std::size_t compressPayload(Compression const& compression, char const* bytes, std::size_t size, char* to,
                            std::size_t capacity) {
  switch (compression.algorithm) {
    case Algorithm::None:
      if (size) std::memcpy(to, bytes, size);
      return size;
    case Algorithm::Lz4: {
      auto const written =
          compression.level > 0
              ? LZ4_compress_HC(bytes, to, lz4Size(size), lz4Size(capacity), compression.level)
              : LZ4_compress_default(bytes, to, lz4Size(size), lz4Size(capacity));
      if (written <= 0 && size > 0) throw Exception("lz4 failed to compress " + std::to_string(size) + " bytes");
      return static_cast<std::size_t>(written);
    }
    case Algorithm::Zstd: {
      auto const written =
          ZSTD_compressCCtx(zstdContexts().compress.get(), to, capacity, bytes, size, compression.level);
      if (ZSTD_isError(written)) throw Exception(std::string("zstd failed to compress: ") + ZSTD_getErrorName(written));
      return written;
    }
  }
  throw Exception("unknown compression algorithm");
}

std::size_t bound(Algorithm algorithm, std::size_t size) {
  switch (algorithm) {
    case Algorithm::None:
      return size;
    case Algorithm::Lz4:
      return static_cast<std::size_t>(LZ4_compressBound(lz4Size(size)));
    case Algorithm::Zstd:
      return ZSTD_compressBound(size);
  }
  return size;
}

}  // namespace

Compression parseCompression(std::string const& name, int level, bool levelGiven) {
  Compression result;
  int low = 0, high = 0;
  if (name == "none") {
    result.algorithm = Algorithm::None;
  } else if (name == "lz4") {
    result.algorithm = Algorithm::Lz4;
    high = LZ4HC_CLEVEL_MAX;
  } else if (name == "zstd") {
    result.algorithm = Algorithm::Zstd;
    low = 1;
    high = ZSTD_maxCLevel();
    if (!levelGiven) level = 1;
  } else {
    throw Exception("unknown compression '" + name + "' (known: none, lz4, zstd)");
  }
  if (!levelGiven) level = std::max(level, low);
  if (levelGiven && result.algorithm == Algorithm::None) throw Exception("level= needs compression=lz4 or zstd");
  if (level < low || level > high) {
    throw Exception("level " + std::to_string(level) + " is not in " + std::to_string(low) + ".." +
                    std::to_string(high) + " for " + name);
  }
  result.level = level;
  return result;
}

std::string nameOf(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::None:
      return "none";
    case Algorithm::Lz4:
      return "lz4";
    case Algorithm::Zstd:
      return "zstd";
  }
  return "unknown";
}

void compress(Compression const& compression, char const* bytes, std::size_t size, std::vector<char>& out) {
  auto const start = out.size();
  out.resize(start + kFrameHeader + bound(compression.algorithm, size));
  char* header = out.data() + start;
  auto const payload =
      compressPayload(compression, bytes, size, header + kFrameHeader, out.size() - start - kFrameHeader);
  header[0] = static_cast<char>(kFrameVersion << 4 | static_cast<std::uint8_t>(compression.algorithm));
  putLittle(header + 1, size);
  putLittle(header + 9, frameChecksum(header, XXH3_64bits(header + kFrameHeader, payload)));
  out.resize(start + kFrameHeader + payload);
}

std::uint64_t rawSizeOf(char const* frame, std::size_t size) {
  if (size < kFrameHeader) {
    throw FrameError("a frame of " + std::to_string(size) + " bytes is shorter than its header");
  }
  return getLittle(frame + 1);
}

void decompress(char const* frame, std::size_t size, std::vector<char>& out) {
  auto const raw = rawSizeOf(frame, size);
  char const* payload = frame + kFrameHeader;
  auto const payloadSize = size - kFrameHeader;
  auto const tag = static_cast<std::uint8_t>(frame[0]);
  // Any tag but a version 1 one is checked as version 2, so that a damaged tag is a checksum mismatch too.
  bool const version1 = tag <= static_cast<std::uint8_t>(Algorithm::Zstd);
  auto const payloadChecksum = XXH3_64bits(payload, payloadSize);
  if ((version1 ? payloadChecksum : frameChecksum(frame, payloadChecksum)) != getLittle(frame + 9)) {
    throw FrameError("checksum mismatch");
  }
  if (!version1 && tag >> 4 != kFrameVersion) throw FrameError("unknown frame version " + std::to_string(tag >> 4));
  auto const algorithm = static_cast<Algorithm>(tag & 0x0f);
  // The checksum matched, so a raw size beyond what the payload can expand
  // to means a frame written wrongly; refuse rather than allocate it.
  if (raw > std::numeric_limits<std::uint32_t>::max() * std::uint64_t{64} ||
      (algorithm == Algorithm::None && raw != payloadSize)) {
    throw FrameError("raw size " + std::to_string(raw) + " does not fit the payload");
  }
  out.resize(raw);
  switch (algorithm) {
    case Algorithm::None:
      if (raw) std::memcpy(out.data(), payload, raw);
      return;
    case Algorithm::Lz4: {
      auto const got = LZ4_decompress_safe(payload, out.data(), lz4Size(payloadSize), lz4Size(raw));
      if (got < 0 || static_cast<std::uint64_t>(got) != raw) throw FrameError("lz4 payload does not decompress");
      return;
    }
    case Algorithm::Zstd: {
      auto const got = ZSTD_decompressDCtx(zstdContexts().decompress.get(), out.data(), raw, payload, payloadSize);
      if (ZSTD_isError(got)) throw FrameError(std::string("zstd: ") + ZSTD_getErrorName(got));
      if (got != raw) throw FrameError("zstd payload decompresses to a different size");
      return;
    }
  }
  throw FrameError("unknown compression algorithm " + std::to_string(static_cast<int>(algorithm)));
}

std::uint64_t checksum(char const* bytes, std::size_t size) { return XXH3_64bits(bytes, size); }

}  // namespace lanes::codec
