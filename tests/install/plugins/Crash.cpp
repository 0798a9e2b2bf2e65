// Plugins that die of a fatal signal, as a user's first module might: the
// `crash` module, the `crash-source` source and the `crash-output` output.
// Each takes signal=segv|bus|fpe|ill|abrt (default segv): a null pointer
// written through, a file mapped beyond its end, an integer divided by
// zero, an illegal instruction, std::abort(); and place= where it strikes:
// the module and the output in their at=K-th event (default 5, counted over
// every lane: place=event), in their constructor (construction), beginJob
// or endJob; the source as it moves to its at=K-th event (next) or in its
// constructor, or never (none, its default). The source gives events=N
// events (default 50), without products.

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/Source.h"

namespace {

// Thread-safe: the calls at the counted place are counted atomically.
class Crash {
 public:
  Crash(lanes::Options const& options, std::string const& plugin, std::initializer_list<char const*> places)
      : Crash(lanes::PluginOptions(options, plugin), places) {}

  // Strikes if `place` is the place: at once, or in the at=-th call of a counted one.
  void strikeAt(char const* place, bool counted = false) const {
    if (place_ == place && (!counted || calls_.fetch_add(1) + 1 == at_)) strike();
  }

  [[noreturn]] void strike() const {
    if (signal_ == "segv") {
      int* volatile nowhere = nullptr;
      *nowhere = 42;
    } else if (signal_ == "bus") {
      int const empty = ::memfd_create("crash", 0);
      auto const* page = static_cast<char const volatile*>(::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, empty, 0));
      if (page != MAP_FAILED) (void)page[0];  // beyond the file's end
    } else if (signal_ == "fpe") {
      int volatile one = 1, zero = 0;
      int volatile ratio = one / zero;
      (void)ratio;
    } else if (signal_ == "ill") {
      __builtin_trap();
    }
    std::abort();  // signal=abrt, and where the machine did not fault above
  }

 private:
  Crash(lanes::PluginOptions const& options, std::initializer_list<char const*> places)
      : signal_(options.choice("signal", "segv", {"segv", "bus", "fpe", "ill", "abrt"})),
        place_(options.choice("place", *places.begin(), places)),
        at_(options.positive("at", 5)) {}

  std::string signal_, place_;
  std::uint64_t at_;
  mutable std::atomic<std::uint64_t> calls_{0};
};

// Thread-safe: analyze() only counts (Crash).
class CrashModule : public lanes::global::Analyzer {
 public:
  CrashModule(std::string label, lanes::Options const& options)
      : Analyzer(std::move(label)), crash_(options, "crash", {"event", "construction", "beginjob", "endjob"}) {
    crash_.strikeAt("construction");
  }
  void beginJob(lanes::JobContext const&) override {
    crash_.strikeAt("beginjob");
  }
  void analyze(lanes::Event const&) const override { crash_.strikeAt("event", true); }
  void endJob() override {
    crash_.strikeAt("endjob");
  }

 private:
  Crash const crash_;
};

// Thread-safe: write() only counts (Crash).
class CrashOutput : public lanes::global::Output {
 public:
  CrashOutput(std::string label, lanes::Options const& options)
      : Output(std::move(label)), crash_(options, "crash-output", {"event", "construction", "beginjob", "endjob"}) {
    crash_.strikeAt("construction");
  }
  void beginJob(lanes::JobContext const&) override {
    crash_.strikeAt("beginjob");
  }
  void write(lanes::Event const&) const override { crash_.strikeAt("event", true); }
  void endJob() override {
    crash_.strikeAt("endjob");
  }

 private:
  Crash const crash_;
};

// Externally synchronised by the scheduler (a shared source).
class CrashSource : public lanes::Source {
 public:
  explicit CrashSource(lanes::Options const& options)
      : crash_(options, "crash-source", {"none", "next", "construction"}),
        events_(lanes::PluginOptions(options, "crash-source").positive("events", 50)) {
    crash_.strikeAt("construction");
  }
  bool next(lanes::SourceEvent& event) override {
    if (next_ == events_) return false;
    crash_.strikeAt("next", true);
    event.id = {1, 1, ++next_};
    return true;
  }
  void read(lanes::SourceEvent const&, std::size_t, lanes::ProductSlot&) override {}
  std::optional<std::uint64_t> eventCount() const override { return events_; }

 private:
  Crash const crash_;
  std::uint64_t const events_;
  std::uint64_t next_ = 0;
};

lanes::RegisterModule<CrashModule> const module("crash", "test: dies of signal= at place= (its at=-th event)");
lanes::RegisterOutput<CrashOutput> const output("crash-output", "test: dies of signal= at place= (its at=-th event)", {});
lanes::RegisterSource<CrashSource> const source("crash-source", "test: events=N events; dies of signal= at place=", {});

}  // namespace
