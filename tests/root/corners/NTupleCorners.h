#pragma once
// The corner-case RNTuples (ntuple_corners.cpp writes them): their classes,
// which only that program has a dictionary for, never lanes, and each
// field's value in entry `i`, which the writer writes and the tests expect.

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace corners {

constexpr int kEntries = 40;

struct Empty {};

struct Hit {
  float x = 0;
  std::vector<std::int32_t> ids;
  bool operator==(Hit const& other) const { return x == other.x && ids == other.ids; }
};

struct Track {
  std::int64_t id = 0;
  Hit first;
  std::vector<Hit> hits;
  std::array<float, 2> ends{};
  bool operator==(Track const& other) const {
    return id == other.id && first == other.first && hits == other.hits && ends == other.ends;
  }
};

// A std::variant that holds one is left without a value
// (valueless_by_exception) when a copy into it throws.
struct Thrower {
  int i = 0;
  Thrower() = default;
  Thrower(Thrower const&) { throw std::runtime_error("copy"); }
  Thrower& operator=(Thrower const&) = default;
};

// std.root
inline std::bitset<42> bitsOf(int i) { return std::bitset<42>((std::uint64_t(i) * 2654435761u) & ((1ull << 42) - 1)); }
inline std::array<float, 3> tripleOf(int i) { return {float(i), i + 0.5f, -float(i)}; }
inline std::map<std::int64_t, double> byIdOf(int i) {
  std::map<std::int64_t, double> byId;
  for (int k = 0; k < i % 4; ++k) byId[std::int64_t(k) << 40] = 0.5 * k + i;
  return byId;
}
inline std::set<std::int32_t> idsOf(int i) { return {i, 2 * i, 7}; }
// One element: the order of more is the hash's.
inline std::unordered_map<std::int32_t, double> hashedOf(int i) { return {{i, 1.5 * i}}; }
inline std::unordered_set<std::int64_t> uniqueOf(int i) { return {std::int64_t(i) << 35}; }

// nested.root
inline std::vector<std::vector<std::vector<float>>> nestedOf(int i) {
  return std::vector<std::vector<std::vector<float>>>(
      i % 3, std::vector<std::vector<float>>(i % 2 + 1, std::vector<float>(i % 4, 0.25f * i)));
}
inline Hit hitOf(int i) { return Hit{1.5f * i, std::vector<std::int32_t>(i % 3, i)}; }
inline std::vector<Hit> hitsOf(int i) { return std::vector<Hit>(i % 4, hitOf(i)); }
inline Track trackOf(int i) { return Track{std::int64_t(i) << 33, hitOf(i), hitsOf(i), {float(i), -float(i)}}; }

// variants.root: late_choice is added to the model at entry kLateChoiceFrom;
// the entries before read it without a value (no alternative).
using Choice = std::variant<std::int32_t, float, std::string>;
using LateChoice = std::variant<std::int32_t, std::string>;
constexpr int kLateChoiceFrom = kEntries / 2;
inline Choice choiceOf(int i) {
  switch (i % 3) {
    case 0: return std::int32_t(i);
    case 1: return 0.5f * i;
    default: return std::string(i % 5 + 1, char('a' + i % 26));
  }
}
inline LateChoice lateChoiceOf(int i) { return i % 2 ? LateChoice(std::int32_t(i)) : LateChoice(std::to_string(i)); }

// layout.root: late_scalar and late_vector are added at kLateScalarFrom and
// kLateVectorFrom (extension columns); the entries before read defaults.
constexpr int kLateScalarFrom = 10, kLateVectorFrom = 25;
inline float realOf(int i) { return 0.5f * i; }  // exact in 16 bits
inline float lateScalarOf(int i) { return i < kLateScalarFrom ? 0.0f : 2.0f * i; }
inline std::vector<std::int32_t> lateVectorOf(int i) {
  return i < kLateVectorFrom ? std::vector<std::int32_t>() : std::vector<std::int32_t>(i % 3 + 1, i);
}

}  // namespace corners
