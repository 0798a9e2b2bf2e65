#pragma once
// The simulation's random numbers: xoshiro256** seeded by splitmix64, fast
// and the same on every machine for a seed (std::uniform_real_distribution
// is not), so that a prediction is reproducible to the last digit.

#include <cstdint>

namespace lanes::model {

// Externally synchronised: one simulation's, used by one thread.
class Random {
 public:
  explicit Random(std::uint64_t seed) {
    for (auto& word : state_) word = splitMix(seed);
  }

  std::uint64_t next() {
    auto const result = rotate(state_[1] * 5, 7) * 9;
    auto const t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  // Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>(uniform() * static_cast<double>(n)); }

 private:
  static std::uint64_t rotate(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitMix(std::uint64_t& x) {
    auto z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_[4];
};

}  // namespace lanes::model
