// The `stray` module: writes to stderr behind lanes' back, as ROOT's
// decompressors do, in its at=K-th event (default 5, counted over every
// lane): lines=N lines (default 2) with fprintf(stderr, ...), then one with
// std::cerr; with fail=true it then throws, failing the job.

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

#include "lanes/core/Exception.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/PluginRegistry.h"

namespace {

// Thread-safe: analyze() counts its calls atomically.
class Stray : public lanes::global::Analyzer {
 public:
  Stray(std::string label, lanes::Options const& options) : Stray(std::move(label), lanes::PluginOptions(options, "stray")) {}

  void analyze(lanes::Event const&) const override {
    if (calls_.fetch_add(1) + 1 != at_) return;
    for (std::uint64_t line = 1; line <= lines_; ++line) {
      std::fprintf(stderr, "R__unzipStray: line %llu of %llu from fprintf\n", static_cast<unsigned long long>(line),
                   static_cast<unsigned long long>(lines_));
    }
    std::cerr << "Error in stray: a line from std::cerr" << std::endl;
    if (fail_) throw lanes::Exception("stray: failed as asked");
  }

 private:
  Stray(std::string label, lanes::PluginOptions const& options)
      : Analyzer(std::move(label)),
        at_(options.positive("at", 5)),
        lines_(options.count("lines", 2)),
        fail_(options.choice("fail", "false", {"false", "true"}) == "true") {}

  std::uint64_t const at_, lines_;
  bool const fail_;
  mutable std::atomic<std::uint64_t> calls_{0};
};

lanes::RegisterModule<Stray> const module("stray", "test: writes lines=N lines to stderr in its at=-th event");

}  // namespace
