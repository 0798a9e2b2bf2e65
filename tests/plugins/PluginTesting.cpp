#include "plugins/PluginTesting.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "mimicry/BusyWork.h"

namespace lanes::mimicry::test {

Options optionsOf(std::string const& text) { return PluginSpec::parse("test:" + text).options; }

std::string errorOf(std::function<void()> const& action) {
  try {
    action();
  } catch (Exception const& error) {
    return error.what();
  } catch (std::exception const& error) {
    ADD_FAILURE() << "expected a lanes::Exception, got: " << error.what();
    return "";
  }
  ADD_FAILURE() << "expected a lanes::Exception, nothing was thrown";
  return "";
}

void expectMentions(std::string const& message, std::initializer_list<char const*> parts) {
  for (char const* part : parts) EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

std::string nanoaodProfile() { return std::string(LANES_SOURCE_DIR) + "/data/profiles/nanoaod.json"; }

void CallCounter::jobStarted(JobInfo const& info) {
  std::lock_guard lock(mutex_);
  labels_.clear();
  for (auto const& module : info.modules) labels_.push_back(module.label);
}

void CallCounter::callFinished(CallRecord const& call) {
  if (call.module == kSourceProducer) return;
  std::lock_guard lock(mutex_);
  ++counts_[{labels_.at(call.module), call.transition}];
}

int CallCounter::count(std::string const& label, Transition transition) const {
  std::lock_guard lock(mutex_);
  auto it = counts_.find({label, transition});
  return it == counts_.end() ? 0 : it->second;
}

JobConfig jobWith(std::string const& source, unsigned threads) {
  JobConfig config;
  config.source = PluginSpec::parse(source);
  config.threads = threads;
  return config;
}

RunSummary runJob(JobConfig config, CallCounter* calls) {
  EventProcessor processor(std::move(config));
  if (calls) processor.addObserver(calls);
  return processor.run();
}

HandMadeEvent::HandMadeEvent(std::vector<std::pair<std::string, std::size_t>> const& products, unsigned lane)
    : lane_(lane) {
  for (auto const& [label, bytes] : products) {
    registry_.add({label, typeid(SyntheticBytes), ""}, kSourceProducer, "the test");
    sizes_.push_back(bytes);
  }
}

Event& HandMadeEvent::start(std::uint64_t number) {
  if (!event_) event_ = std::make_unique<Event>(registry_, lane_);
  event_->start(EventId{1, 1, number});
  for (ProductIndex p = 0; p < sizes_.size(); ++p) event_->slotForWriting(p).emplace(SyntheticBytes{sizes_[p]}, sizes_[p]);
  return *event_;
}

TemporaryFile::TemporaryFile(std::string const& contents) {
  char name[] = "/tmp/lanes-test-XXXXXX";
  int const fd = mkstemp(name);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file");
  close(fd);
  path_ = name;
  std::ofstream(path_) << contents;
}

TemporaryFile::~TemporaryFile() { std::remove(path_.c_str()); }

double cpuSecondsOf(std::function<void()> const& action) {
  double const before = threadCpuSeconds();
  action();
  return threadCpuSeconds() - before;
}

}  // namespace lanes::mimicry::test
