#include "root/TestProductsSource.h"

#include "lanes/core/PluginOptions.h"
#include "lanes/core/PluginRegistry.h"
#include "root/RootSupport.h"
#include "root/TestProducts.h"

namespace lanes::rootio {

TestProductsSource::TestProductsSource(Options const& options)
    : NumberedSource(PluginOptions(options, "test-products").count("events", 0)) {
  initialiseRoot();  // products are ROOT-typed: the user class's dictionary must be loaded by any reader
  for (auto const& product : testProducts()) declare({product.label, product.type, {}});
}

void TestProductsSource::read(SourceEvent const& event, std::size_t product, ProductSlot& slot) {
  testProducts()[product].fill(event.id.event, slot);
}

std::unique_ptr<Source> TestProductsSource::replicate() const { return std::make_unique<TestProductsSource>(*this); }

namespace {
RegisterSource<TestProductsSource> const registration(
    "test-products",
    "products of ROOT-known types (scalars, vectors, nested vectors, a map, a string, a user class) whose values "
    "are a function of the event number, for check-products; events=N (0: unlimited)",
    {});
}

}  // namespace lanes::rootio
