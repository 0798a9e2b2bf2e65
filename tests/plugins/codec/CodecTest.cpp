// The codec's frames: every algorithm round-trips, also from several threads;
// a damaged frame throws FrameError; bad settings are refused.

#include <gtest/gtest.h>

#include <thread>

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

TEST(CodecTest, SettingsAreChecked) {
  EXPECT_EQ(parseCompression("zstd", 0, false).level, 1);
  EXPECT_EQ(parseCompression("lz4", 0, false).level, 0);
  EXPECT_THROW(parseCompression("gzip", 0, false), Exception);
  EXPECT_THROW(parseCompression("zstd", 99, true), Exception);
  EXPECT_THROW(parseCompression("none", 3, true), Exception);
}

}  // namespace
}  // namespace lanes::codec
