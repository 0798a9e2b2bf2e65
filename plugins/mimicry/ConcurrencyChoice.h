#pragma once
// Option concurrency=global|stream|one|limited (with limit=N) picks the typed
// base a generic mimicry module is instantiated over, so the concurrency
// class stays part of the module's type.

#include <memory>
#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

// Immutable (types only): the typed bases of one module kind, one per concurrency class.
template <typename Global, typename Stream, typename One, typename Limited>
struct KindBases {
  using GlobalBase = Global;
  using StreamBase = Stream;
  using OneBase = One;
  using LimitedBase = Limited;
};

using ProducerBases = KindBases<global::Producer, stream::Producer, one::Producer, limited::Producer>;
using FilterBases = KindBases<global::Filter, stream::Filter, one::Filter, limited::Filter>;
using AnalyzerBases = KindBases<global::Analyzer, stream::Analyzer, one::Analyzer, limited::Analyzer>;
// The job refuses a stream output, saying so.
using OutputBases = KindBases<global::Output, stream::Output, one::Output, limited::Output>;

// Constructs M<base> for the base that the options' concurrency class names;
// M<B> is constructible from (PluginOptions const&, B's constructor arguments).
template <template <typename> class M, typename Bases, typename Result = Module>
std::unique_ptr<Result> makeConcurrent(std::string const& plugin, std::string const& label, Options const& raw) {
  PluginOptions const options(raw, plugin);
  auto const concurrency = options.choice("concurrency", "global", {"global", "stream", "one", "limited"});
  if (concurrency != "limited" && raw.has("limit")) options.fail("limit", "needs concurrency=limited");
  if (concurrency == "stream") return constructModule<M<typename Bases::StreamBase>>(options, label);
  if (concurrency == "one") return constructModule<M<typename Bases::OneBase>>(options, label);
  if (concurrency == "global") return constructModule<M<typename Bases::GlobalBase>>(options, label);
  if (!raw.has("limit")) options.fail("limit", "is required with concurrency=limited");
  auto const limit = static_cast<unsigned>(options.positive("limit", 1, PluginOptions::kMaxConcurrency));
  return constructModule<M<typename Bases::LimitedBase>>(options, label, limit);
}

// Used during static initialisation (single-threaded), like lanes::RegisterOutput:
// registers an output template over the typed output bases under `name`.
template <template <typename> class M>
struct RegisterConcurrentOutput {
  RegisterConcurrentOutput(std::string const& name, std::string help) {
    PluginRegistry::instance().addOutput({name, std::move(help), PluginRole::Module, kOutputFiles},
                                         [name](std::string const& label, Options const& options) {
                                           return makeConcurrent<M, OutputBases, OutputModule>(name, label, options);
                                         });
  }
};

// Used during static initialisation (single-threaded), like lanes::RegisterModule:
// registers a module template over the typed bases under `name`.
template <template <typename> class M, typename Bases>
struct RegisterConcurrentModule {
  RegisterConcurrentModule(std::string const& name, std::string help) {
    PluginRegistry::instance().addModule({name, std::move(help), PluginRole::Module},
                                         [name](std::string const& label, Options const& options) {
                                           return makeConcurrent<M, Bases>(name, label, options);
                                         });
  }
};

}  // namespace lanes::mimicry
