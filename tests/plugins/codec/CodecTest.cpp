// The codec's frames: every algorithm round-trips, also from several threads;
// a damaged frame throws FrameError, a checksum mismatch wherever the damage
// lies; version 1 frames (recorded) still read; bad settings are refused.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>

#include "codec/Codec.h"

namespace lanes::codec {
namespace {

std::vector<char> sample(std::size_t size) {
  std::vector<char> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 7) % 13 + (i / 100));
  return bytes;
}

std::vector<Compression> const kAll{{Algorithm::None, 0}, {Algorithm::Lz4, 0}, {Algorithm::Lz4, 9},
                                    {Algorithm::Zstd, 1}, {Algorithm::Zstd, 5}};

TEST(CodecTest, EveryAlgorithmRoundTrips) {
  for (auto const& compression : kAll) {
    for (std::size_t size : {0u, 1u, 100u, 100000u}) {
      auto const raw = sample(size);
      std::vector<char> frame, back;
      compress(compression, raw.data(), raw.size(), frame);
      EXPECT_EQ(rawSizeOf(frame.data(), frame.size()), size);
      decompress(frame.data(), frame.size(), back);
      EXPECT_EQ(back, raw) << nameOf(compression.algorithm) << " " << size;
      if (compression.algorithm != Algorithm::None && size == 100000) EXPECT_LT(frame.size(), size / 2);
    }
  }
}

TEST(CodecTest, ConcurrentCallsAgree) {
  auto const raw = sample(50000);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        for (auto const& compression : kAll) {
          std::vector<char> frame, back;
          compress(compression, raw.data(), raw.size(), frame);
          decompress(frame.data(), frame.size(), back);
          failures += back == raw ? 0 : 1;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(CodecTest, DamagedFramesThrow) {
  auto const raw = sample(1000);
  for (auto const& compression : kAll) {
    std::vector<char> frame, back;
    compress(compression, raw.data(), raw.size(), frame);
    auto flipped = frame;
    flipped[kFrameHeader + 3] ^= 0x10;
    EXPECT_THROW(decompress(flipped.data(), flipped.size(), back), FrameError);
    EXPECT_THROW(decompress(frame.data(), frame.size() - 1, back), FrameError);
    EXPECT_THROW(decompress(frame.data(), 5, back), FrameError);
  }
}

TEST(CodecTest, FramesAreVersion2) {
  for (auto const& compression : kAll) {
    std::vector<char> frame;
    compress(compression, "abc", 3, frame);
    EXPECT_EQ(static_cast<std::uint8_t>(frame[0]), 0x20 | static_cast<std::uint8_t>(compression.algorithm));
  }
}

// Every byte of a frame, header and payload, inverted in turn, and every bit of its header flipped in turn.
TEST(CodecTest, EveryByteOfAFrameIsCoveredByTheChecksum) {
  auto const raw = sample(300);
  for (auto const& compression : kAll) {
    std::vector<char> frame, back;
    compress(compression, raw.data(), raw.size(), frame);
    std::vector<std::pair<std::size_t, int>> damages;
    for (std::size_t at = 0; at < frame.size(); ++at) damages.emplace_back(at, 0xff);
    for (std::size_t at = 0; at < kFrameHeader; ++at) {
      for (int bit = 0; bit < 8; ++bit) damages.emplace_back(at, 1 << bit);
    }
    for (auto const& [at, mask] : damages) {
      auto damaged = frame;
      damaged[at] = static_cast<char>(damaged[at] ^ mask);
      try {
        decompress(damaged.data(), damaged.size(), back);
        ADD_FAILURE() << nameOf(compression.algorithm) << ": byte " << at << " ^ " << mask << " was not seen";
      } catch (FrameError const& error) {
        EXPECT_EQ(error.message(), "checksum mismatch") << nameOf(compression.algorithm) << ": byte " << at;
      }
    }
  }
}

// Frames as lanes wrote them before version 2 (recorded from its Codec.cpp): a tag that is the algorithm alone,
// a checksum of the payload alone.
TEST(CodecTest, Version1FramesStillRead) {
  std::string const text = "lanes frames, version 1: lanes frames, version 1: lanes frames!";
  std::string const none =
      std::string("\x00\x3f\x00\x00\x00\x00\x00\x00\x00\x3b\x58\xea\x5a\xe8\x38\x26\x01", 17) + text;
  std::string const lz4(
      "\x01\x3f\x00\x00\x00\x00\x00\x00\x00\xf9\x5a\xa1\x53\x7f\x40\x08\x2c\xff\x0a\x6c\x61\x6e\x65\x73\x20\x66\x72"
      "\x61\x6d\x65\x73\x2c\x20\x76\x65\x72\x73\x69\x6f\x6e\x20\x31\x3a\x20\x19\x00\x0e\x50\x61\x6d\x65\x73\x21",
      53);
  std::string const zstd(
      "\x02\x3f\x00\x00\x00\x00\x00\x00\x00\x8f\x86\xdb\xed\x5f\x04\x0a\xc9\x28\xb5\x2f\xfd\x20\x3f\x0d\x01\x00\xd0"
      "\x6c\x61\x6e\x65\x73\x20\x66\x72\x61\x6d\x65\x73\x2c\x20\x76\x65\x72\x73\x69\x6f\x6e\x20\x31\x3a\x20\x21\x01"
      "\x00\xe1\x67\x8e\x01",
      59);
  for (auto const& frame : {none, lz4, zstd}) {
    std::vector<char> back;
    decompress(frame.data(), frame.size(), back);
    EXPECT_EQ(std::string(back.begin(), back.end()), text);
    // Their payload and their tag (to any other version's) are still checked.
    for (std::size_t at : {std::size_t{0}, kFrameHeader, frame.size() - 1}) {
      auto damaged = frame;
      damaged[at] = static_cast<char>(damaged[at] ^ 0xf0);
      EXPECT_THROW(decompress(damaged.data(), damaged.size(), back), FrameError) << at;
    }
  }
}

TEST(CodecTest, SettingsAreChecked) {
  EXPECT_EQ(parseCompression("zstd", 0, false).level, 1);
  EXPECT_EQ(parseCompression("lz4", 0, false).level, 0);
  EXPECT_THROW(parseCompression("gzip", 0, false), Exception);
  EXPECT_THROW(parseCompression("zstd", 99, true), Exception);
  EXPECT_THROW(parseCompression("none", 3, true), Exception);
}

}  // namespace
}  // namespace lanes::codec
