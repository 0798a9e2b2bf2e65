#include "mimicry/Profile.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"

namespace lanes::mimicry {
namespace {

using nlohmann::json;

[[noreturn]] void malformed(std::string const& path, std::string const& problem) {
  throw Exception("profile '" + path + "': " + problem);
}

std::vector<std::size_t> perEventBytes(std::string const& path, std::string const& label, json const& bytes) {
  if (!bytes.is_array() || bytes.empty()) malformed(path, "product '" + label + "': 'bytes' must be a non-empty array");
  std::vector<std::size_t> result;
  result.reserve(bytes.size());
  for (auto const& value : bytes) {
    if (!value.is_number_unsigned()) {
      malformed(path, "product '" + label + "': 'bytes' must hold integers >= 0, found " + value.dump());
    }
    result.push_back(value.get<std::size_t>());
  }
  return result;
}

std::size_t meanBytes(std::string const& path, std::string const& label, json const& product) {
  auto mean = product.find("bytes_mean");
  if (mean == product.end()) malformed(path, "product '" + label + "' has neither 'bytes' nor 'bytes_mean'");
  if (!mean->is_number() || !(mean->get<double>() >= 0)) {
    malformed(path, "product '" + label + "': 'bytes_mean' must be a number >= 0, found " + mean->dump());
  }
  return static_cast<std::size_t>(std::llround(mean->get<double>()));
}

ProductSizes productSizes(std::string const& path, std::size_t index, json const& product) {
  auto label = product.find("label");
  if (label == product.end() || !label->is_string() || label->get<std::string>().empty()) {
    malformed(path, "product " + std::to_string(index) + " has no 'label' string");
  }
  ProductSizes sizes{label->get<std::string>(), {}};
  auto bytes = product.find("bytes");
  if (bytes != product.end()) {
    sizes.bytes = perEventBytes(path, sizes.label, *bytes);
  } else {
    sizes.bytes = {meanBytes(path, sizes.label, product)};
  }
  return sizes;
}

json parse(std::string const& path) {
  std::ifstream in(path);
  if (!in) malformed(path, "cannot open the file for reading");
  try {
    return json::parse(in);
  } catch (json::exception const& error) {
    malformed(path, std::string("not valid JSON: ") + error.what());
  }
}

}  // namespace

std::vector<ProductSizes> loadProfile(std::string const& path) {
  json const document = parse(path);
  auto products = document.find("products");
  if (products == document.end() || !products->is_array()) malformed(path, "no 'products' array");
  std::vector<ProductSizes> result;
  result.reserve(products->size());
  for (std::size_t i = 0; i < products->size(); ++i) result.push_back(productSizes(path, i, (*products)[i]));
  return result;
}

}  // namespace lanes::mimicry
