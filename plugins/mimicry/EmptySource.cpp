#include "mimicry/EmptySource.h"

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

EmptySource::EmptySource(Options const& options) : NumberedSource(PluginOptions(options, "empty").count("events", 0)) {}

void EmptySource::read(SourceEvent const& event, std::size_t product, ProductSlot&) {
  throw Exception("source 'empty' has no products; asked for product " + std::to_string(product) + " of event " +
                  event.id.str());
}

std::unique_ptr<Source> EmptySource::replicate() const { return std::make_unique<EmptySource>(*this); }

namespace {
RegisterSource<EmptySource> const registration("empty", "events without products; events=N (0: unlimited)");
}

}  // namespace lanes::mimicry
