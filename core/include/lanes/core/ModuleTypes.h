#pragma once
// The typed module bases a module derives from. The namespace is the
// concurrency class, the class name is the kind:
//
//   global::  one instance, called concurrently by all lanes  -> const callbacks
//   stream::  one instance per lane                           -> non-const callbacks
//   one::     one instance, never entered concurrently        -> non-const callbacks
//   limited:: one instance, at most N concurrent calls        -> const callbacks
//
// A const callback is the type system saying "shared by all lanes: keep no
// per-event state in members". For example:
//
//   class Vertexing : public lanes::global::Producer {
//    public:
//     explicit Vertexing(std::string label)
//         : Producer(std::move(label)), tracks_(consumes<Tracks>("tracks")),
//           vertices_(produces<Vertices>("vertices")) {}
//     void produce(lanes::Event& event) const override {
//       event.put(vertices_, fit(event.get(tracks_)));
//     }
//    private:
//     lanes::ProductToken<Tracks> tracks_;
//     lanes::ProductToken<Vertices> vertices_;
//   };
//
// ExternalProducer splits the work into acquire(), which starts asynchronous
// work and returns at once, and produce(), which the scheduler runs once the
// Completion passed to acquire() is signalled (from any thread).

#include "lanes/core/Event.h"
#include "lanes/core/Module.h"
#include "lanes/core/OutputModule.h"

namespace lanes {
namespace detail {

template <ModuleKind Kind, Concurrency Class, typename Root = Module>
class TypedModule : public Root {
 public:
  ModuleKind kind() const final { return Kind; }
  Concurrency concurrency() const final { return Class; }

 protected:
  explicit TypedModule(std::string label) : Root(std::move(label)) {}
};

template <ModuleKind Kind, typename Root = Module>
class LimitedModule : public TypedModule<Kind, Concurrency::Limited, Root> {
 public:
  unsigned concurrencyLimit() const final { return limit_; }

 protected:
  LimitedModule(std::string label, unsigned limit)
      : TypedModule<Kind, Concurrency::Limited, Root>(std::move(label)), limit_(limit ? limit : 1) {}

 private:
  unsigned limit_;
};

}  // namespace detail

// What every kind has for one concurrency class: the run and lumi
// transitions (default: nothing), and TypedBase, which names the class for
// RegisterModule (a module is called only for the transitions it overrides).
// A `one` module that overrides a lumi (run) callback sees the lumis (runs)
// one at a time, in order: the job then holds one lumi (run) in flight.
#define LANES_DETAIL_TRANSITIONS(CLASS, CONST)                                   \
 public:                                                                         \
  using TypedBase = CLASS;                                                       \
  virtual void beginRun(Run const&) CONST {}                                     \
  virtual void endRun(Run&) CONST {}                                             \
  virtual void beginLumi(Lumi const&) CONST {}                                   \
  virtual void endLumi(Lumi&) CONST {}                                           \
                                                                                 \
 private:                                                                        \
  void doBeginRun(Run const& run) final { beginRun(run); }                       \
  void doEndRun(Run& run) final { endRun(run); }                                 \
  void doBeginLumi(Lumi const& lumi) final { beginLumi(lumi); }                  \
  void doEndLumi(Lumi& lumi) final { endLumi(lumi); }

// The four kinds for one concurrency class. CONST is `const` for the classes
// whose single instance is shared by concurrent lanes.
#define LANES_DETAIL_MODULE_KINDS(BASE, CONST)                                                        \
  class Producer : public BASE<ModuleKind::Producer> {                                                \
   public:                                                                                            \
    virtual void produce(Event& event) CONST = 0;                                                     \
                                                                                                      \
   protected:                                                                                         \
    using BASE<ModuleKind::Producer>::BASE;                                                           \
                                                                                                      \
   private:                                                                                           \
    bool doEvent(Event& event) final { return produce(event), true; }                                 \
    LANES_DETAIL_TRANSITIONS(Producer, CONST)                                                         \
  };                                                                                                  \
  class ExternalProducer : public BASE<ModuleKind::Producer> {                                        \
   public:                                                                                            \
    bool hasExternalWork() const final { return true; }                                               \
    virtual void acquire(Event const& event, Completion completion) CONST = 0;                        \
    virtual void produce(Event& event) CONST = 0;                                                     \
                                                                                                      \
   protected:                                                                                         \
    using BASE<ModuleKind::Producer>::BASE;                                                           \
                                                                                                      \
   private:                                                                                           \
    void doAcquire(Event& event, Completion completion) final { acquire(event, std::move(completion)); } \
    bool doEvent(Event& event) final { return produce(event), true; }                                 \
    LANES_DETAIL_TRANSITIONS(ExternalProducer, CONST)                                                 \
  };                                                                                                  \
  class Filter : public BASE<ModuleKind::Filter> {                                                    \
   public:                                                                                            \
    virtual bool filter(Event& event) CONST = 0;                                                      \
                                                                                                      \
   protected:                                                                                         \
    using BASE<ModuleKind::Filter>::BASE;                                                             \
                                                                                                      \
   private:                                                                                           \
    bool doEvent(Event& event) final { return filter(event); }                                        \
    LANES_DETAIL_TRANSITIONS(Filter, CONST)                                                           \
  };                                                                                                  \
  class Analyzer : public BASE<ModuleKind::Analyzer> {                                                \
   public:                                                                                            \
    virtual void analyze(Event const& event) CONST = 0;                                               \
                                                                                                      \
   protected:                                                                                         \
    using BASE<ModuleKind::Analyzer>::BASE;                                                           \
                                                                                                      \
   private:                                                                                           \
    bool doEvent(Event& event) final { return analyze(event), true; }                                 \
    LANES_DETAIL_TRANSITIONS(Analyzer, CONST)                                                         \
  };                                                                                                  \
  /* An output also writes each lumi's and run's record, after the block's */                         \
  /* end transition, once every event of it was written. */                                           \
  class Output : public BASE<ModuleKind::Output, OutputModule> {                                      \
   public:                                                                                            \
    virtual void write(Event const& event) CONST = 0;                                                 \
    virtual void writeLumi(Lumi const&) CONST {}                                                      \
    virtual void writeRun(Run const&) CONST {}                                                        \
                                                                                                      \
   protected:                                                                                         \
    using BASE<ModuleKind::Output, OutputModule>::BASE;                                               \
                                                                                                      \
   private:                                                                                           \
    bool doEvent(Event& event) final { return write(event), true; }                                   \
    void doWriteLumi(Lumi const& lumi) final { writeLumi(lumi); }                                     \
    void doWriteRun(Run const& run) final { writeRun(run); }                                          \
    LANES_DETAIL_TRANSITIONS(Output, CONST)                                                           \
  };

namespace global {
template <ModuleKind Kind, typename Root = Module>
using Base = detail::TypedModule<Kind, Concurrency::Global, Root>;
LANES_DETAIL_MODULE_KINDS(Base, const)
}  // namespace global

namespace stream {
template <ModuleKind Kind, typename Root = Module>
using Base = detail::TypedModule<Kind, Concurrency::Stream, Root>;
LANES_DETAIL_MODULE_KINDS(Base, )
}  // namespace stream

namespace one {
template <ModuleKind Kind, typename Root = Module>
using Base = detail::TypedModule<Kind, Concurrency::One, Root>;
LANES_DETAIL_MODULE_KINDS(Base, )
}  // namespace one

namespace limited {
template <ModuleKind Kind, typename Root = Module>
using Base = detail::LimitedModule<Kind, Root>;
LANES_DETAIL_MODULE_KINDS(Base, const)
}  // namespace limited

#undef LANES_DETAIL_MODULE_KINDS
#undef LANES_DETAIL_TRANSITIONS

}  // namespace lanes
