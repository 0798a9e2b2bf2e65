#include "root/TestProducts.h"

#include <cmath>
#include <map>

#include "root/TestTrack.h"

namespace lanes::rootio {

namespace {

std::int32_t number(std::uint64_t e) { return static_cast<std::int32_t>(e % 100000) * 7 - 300; }
std::uint64_t bigNumber(std::uint64_t e) { return e * 1000003u + (std::uint64_t{1} << 40); }
double weight(std::uint64_t e) { return std::sqrt(static_cast<double>(e)) + 0.125; }
bool flag(std::uint64_t e) { return e % 3 == 0; }

std::vector<float> floats(std::uint64_t e) {
  std::vector<float> values;
  for (std::uint64_t i = 0; i < e % 7; ++i) values.push_back(static_cast<float>(e) + 0.5f * static_cast<float>(i));
  return values;
}

std::vector<std::vector<std::int32_t>> nested(std::uint64_t e) {
  std::vector<std::vector<std::int32_t>> values(e % 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = 0; j <= i; ++j) values[i].push_back(static_cast<std::int32_t>(e * i + j));
  }
  return values;
}

std::map<std::int32_t, float> table(std::uint64_t e) {
  std::map<std::int32_t, float> values;
  for (std::uint64_t i = 0; i < e % 5; ++i) {
    values[static_cast<std::int32_t>(i * e)] = static_cast<float>(i) / static_cast<float>(e + 1);
  }
  return values;
}

std::string text(std::uint64_t e) { return "event-" + std::to_string(e) + std::string(e % 10, 'x'); }

TestTrack track(std::uint64_t e) {
  TestTrack result;
  result.charge = e % 2 ? 1 : -1;
  result.pt = 1.5 * static_cast<double>(e);
  for (int i = 0; i < 3; ++i) result.covariance[i] = static_cast<float>(e) * 0.01f + static_cast<float>(i);
  result.hits = floats(e + 1);
  result.algorithm = e % 2 ? "iterative" : "seeded";
  return result;
}

std::vector<TestTrack> tracks(std::uint64_t e) {
  std::vector<TestTrack> values;
  for (std::uint64_t i = 0; i < e % 3; ++i) values.push_back(track(e * 10 + i));
  return values;
}

template <typename T, T (*Make)(std::uint64_t)>
TestProduct product(std::string label) {
  return {std::move(label), typeid(T),
          [](std::uint64_t event, ProductSlot& slot) {
            T value = Make(event);
            slot.emplace(std::move(value), sizeof(T));
          },
          [](std::uint64_t event, void const* object) { return *static_cast<T const*>(object) == Make(event); }};
}

}  // namespace

std::vector<TestProduct> const& testProducts() {
  static std::vector<TestProduct> const all{
      product<std::int32_t, number>("number"),
      product<std::uint64_t, bigNumber>("big_number"),
      product<double, weight>("weight"),
      product<bool, flag>("flag"),
      product<std::vector<float>, floats>("floats"),
      product<std::vector<std::vector<std::int32_t>>, nested>("nested"),
      product<std::map<std::int32_t, float>, table>("table"),
      product<std::string, text>("text"),
      product<TestTrack, track>("track"),
      product<std::vector<TestTrack>, tracks>("tracks"),
  };
  return all;
}

TestProduct const* findTestProduct(std::string const& label) {
  for (auto const& entry : testProducts()) {
    if (entry.label == label) return &entry;
  }
  return nullptr;
}

}  // namespace lanes::rootio
