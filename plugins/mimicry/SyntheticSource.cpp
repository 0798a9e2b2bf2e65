#include "mimicry/SyntheticSource.h"

#include <algorithm>

#include "lanes/core/PluginRegistry.h"
#include "lanes/core/Product.h"
#include "lanes/core/PluginOptions.h"
#include "mimicry/Profile.h"

namespace lanes::mimicry {
namespace {

// count= makes that many products in every event: more is a typo, not a job.
constexpr std::uint64_t kMaxProducts = 1'000'000;

std::vector<ProductSizes> fixedSizes(PluginOptions const& options) {
  std::vector<ProductSizes> result;
  for (auto const& [label, bytes] : options.sizes("size.")) result.push_back({label, {bytes}});
  return result;
}

// The products repeated cyclically until there are `count`; the n-th copy of
// X (n >= 2) is labelled X_n.
std::vector<ProductSizes> cycled(std::vector<ProductSizes> const& products, std::uint64_t count) {
  std::vector<ProductSizes> result;
  result.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    ProductSizes copy = products[i % products.size()];
    if (auto round = i / products.size(); round > 0) copy.label += "_" + std::to_string(round + 1);
    result.push_back(std::move(copy));
  }
  return result;
}

std::vector<ProductSizes> productsFrom(PluginOptions const& options) {
  auto profile = options.raw().getString("profile");
  auto sizes = fixedSizes(options);
  if (profile && !sizes.empty()) options.fail("profile", "and size.<label>=BYTES exclude each other: give one");
  if (profile) {
    sizes = options.forOption("profile", [&] { return loadProfile(*profile); });
    if (sizes.empty()) options.fail("profile", "'" + *profile + "' lists no products");
  }
  if (sizes.empty()) options.fail("size.<label>", "or profile=PATH is required: the source has no products");
  auto count = options.count("count", 0, kMaxProducts);
  return count == 0 ? sizes : cycled(sizes, count);
}

// The number of per-event records the sizes replay (1 when all are fixed).
std::uint64_t recordsOf(std::vector<ProductSizes> const& products) {
  std::uint64_t records = 1;
  for (auto const& product : products) records = std::max<std::uint64_t>(records, product.bytes.size());
  return records;
}

}  // namespace

SyntheticSource::SyntheticSource(Options const& options) : SyntheticSource(PluginOptions(options, "synthetic")) {}

SyntheticSource::SyntheticSource(PluginOptions const& options)
    : SyntheticSource(options, std::make_shared<std::vector<ProductSizes> const>(productsFrom(options))) {}

SyntheticSource::SyntheticSource(PluginOptions const& options, std::shared_ptr<std::vector<ProductSizes> const> sizes)
    : NumberedSource(options.count("events", 0), recordsOf(*sizes)),
      sizes_(std::move(sizes)),
      origin_(options.raw().getString("profile", "synthetic")) {
  for (auto const& product : *sizes_) declare<SyntheticBytes>(product.label);
}

void SyntheticSource::read(SourceEvent const& event, std::size_t product, ProductSlot& slot) {
  std::size_t const bytes = (*sizes_)[product].at(event.entry);
  slot.emplace(SyntheticBytes{bytes}, bytes);
}

std::unique_ptr<Source> SyntheticSource::replicate() const { return std::make_unique<SyntheticSource>(*this); }

namespace {
RegisterSource<SyntheticSource> const registration(
    "synthetic",
    "products of given sizes: size.<label>=BYTES or profile=PATH (JSON from lanes.tools.derive_profile), "
    "count=N products (cycled), events=N (0: unlimited)",
    {{"profile", FileAccess::Read}});
}

}  // namespace lanes::mimicry
