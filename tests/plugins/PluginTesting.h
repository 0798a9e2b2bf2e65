#pragma once
// What the mimicry plugin tests share: options from spec text, jobs run
// through the public EventProcessor, call counts read from the observer
// hooks, events built by hand for calling a module directly, and temporary files.

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lanes/core/Event.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/ProcessingObserver.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes::mimicry::test {

// The options of a spec's text: optionsOf("scale=1e-9,product=a").
Options optionsOf(std::string const& text);

// The message of the lanes::Exception that `action` throws; fails the test
// (returning "") if it throws nothing or something else.
std::string errorOf(std::function<void()> const& action);

// Expects `message` to contain each of `parts`.
void expectMentions(std::string const& message, std::initializer_list<char const*> parts);

// The profile derived from the NanoAOD test file, in the source tree.
std::string nanoaodProfile();

// Counts module calls by label and transition. Thread-safe: the scheduler
// reports from every worker thread (a mutex is fine in a test observer).
class CallCounter : public ProcessingObserver {
 public:
  void jobStarted(JobInfo const& info) override;
  void callFinished(CallRecord const& call) override;
  int count(std::string const& label, Transition transition) const;

 private:
  std::vector<std::string> labels_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, Transition>, int> counts_;
};

// A job with this source (a spec such as "synthetic:size.a=10") on `threads` threads.
JobConfig jobWith(std::string const& source, unsigned threads = 2);

// Runs `config`, reporting calls to `calls` if given.
RunSummary runJob(JobConfig config, CallCounter* calls = nullptr);

// Externally synchronised by the test that owns it. An event whose products
// are SyntheticBytes of the given sizes, for calling a module's callbacks
// directly; connect() resolves a module's consumed tokens.
class HandMadeEvent {
 public:
  explicit HandMadeEvent(std::vector<std::pair<std::string, std::size_t>> const& products, unsigned lane = 0);
  void connect(Module& module) const { registry_.resolveConsumed(module); }
  // Registers what `module` produces (after the products above).
  void addProducer(Module& module) { registry_.registerProducts(module, 0); }
  // Starts event number `number` with every product filled (builds the event on first use).
  Event& start(std::uint64_t number);

 private:
  ProductRegistry registry_;
  std::vector<std::size_t> sizes_;
  unsigned lane_;
  std::unique_ptr<Event> event_;
};

// Immutable after construction: a file with the given contents, removed at
// the end of the test.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string const& contents);
  ~TemporaryFile();
  TemporaryFile(TemporaryFile const&) = delete;
  TemporaryFile& operator=(TemporaryFile const&) = delete;
  std::string const& path() const { return path_; }

 private:
  std::string path_;
};

// CPU time the calling thread spends in `action`, in seconds.
double cpuSecondsOf(std::function<void()> const& action);

}  // namespace lanes::mimicry::test
