#pragma once
// What accelerator modules compute: a 64-bit digest of their inputs, the
// same on the CPU and on every device backend, so that the products of a job
// can be compared between strategies and with the CPU-only menu.

#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__CUDACC__)
#define LANES_HOST_DEVICE __host__ __device__
#else
#define LANES_HOST_DEVICE
#endif

namespace lanes::accel {

// A splitmix64-style combination: order matters, and a missing or stale
// input changes the result.
LANES_HOST_DEVICE constexpr std::uint64_t mix(std::uint64_t state, std::uint64_t value) {
  std::uint64_t z = state + 0x9e3779b97f4a7c15ULL + value;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// FNV-1a of a label: a module's or product's name as a number.
constexpr std::uint64_t hashOf(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return hash;
}

// A host-side result of an accelerator module (its CPU implementation, or
// its device result copied back). Immutable value type.
struct Digest {
  std::uint64_t value = 0;
};

}  // namespace lanes::accel
