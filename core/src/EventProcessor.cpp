#include "lanes/core/EventProcessor.h"

#include "Schedule.h"
#include "lanes/core/Exception.h"

namespace lanes {

EventProcessor::EventProcessor(JobConfig config, PluginRegistry const& registry)
    : schedule_(std::make_unique<detail::Schedule>(std::move(config), registry)) {}

EventProcessor::~EventProcessor() = default;

void EventProcessor::addObserver(ProcessingObserver* observer) { schedule_->observers.push_back(observer); }

void EventProcessor::clearObservers() { schedule_->observers.clear(); }

void EventProcessor::onThreadEntry(std::function<void()> hook) { schedule_->threadEntryHook = std::move(hook); }

RunSummary EventProcessor::run() { return schedule_->run(); }

void EventProcessor::beginJob() { schedule_->beginJob(); }

std::string EventProcessor::configurationError() const { return schedule_->configurationError(); }

RunSummary EventProcessor::process(ProcessPart const& part) { return schedule_->process(part); }

void EventProcessor::endJob() { schedule_->endJob(); }

void EventProcessor::afterFork() { schedule_->afterFork(); }

void EventProcessor::beforeFork() { schedule_->beforeFork(); }

void EventProcessor::mergeOutputParts(std::vector<std::string> const& parts) {
  for (auto const& worker : schedule_->workers) {
    if (auto* output = worker->output()) output->mergeParts(parts);
  }
}

void EventProcessor::discardOutputParts(std::vector<std::string> const& parts) {
  for (auto const& worker : schedule_->workers) {
    if (auto* output = worker->output()) output->discardParts(parts);
  }
}

void EventProcessor::writeOutputsTogether(ProcessGroup const& group) {
  for (auto const& worker : schedule_->workers) {
    if (auto* output = worker->output()) output->writeTogether(group);
  }
}

std::vector<std::string> EventProcessor::sharedWriterRefusals() const {
  std::vector<std::string> refusals;
  for (std::size_t m = 0; m < schedule_->workers.size(); ++m) {
    auto* output = schedule_->workers[m]->output();
    if (output && !output->sharesWriter()) {
      refusals.push_back(schedule_->info.modules[m].label + " (" + schedule_->info.modules[m].plugin + ")");
    }
  }
  return refusals;
}

void EventProcessor::openSharedOutputs() {
  for (auto const& worker : schedule_->workers) {
    if (auto* output = worker->output()) output->openShared();
  }
}

void EventProcessor::mergeOutputBatch(unsigned output, void const* bytes, std::size_t size) {
  unsigned n = 0;
  for (auto const& worker : schedule_->workers) {
    if (!worker->output()) continue;
    if (n++ == output) return worker->output()->mergeBatch(bytes, size);
  }
  throw Exception("a batch for output " + std::to_string(output) + ", but the job has " + std::to_string(n) + " outputs");
}

void EventProcessor::commitSharedOutputs() {
  for (auto const& worker : schedule_->workers) {
    if (auto* output = worker->output()) output->commitShared();
  }
}

void EventProcessor::abandonSharedOutputs() {
  for (auto const& worker : schedule_->workers) {
    if (auto* output = worker->output()) output->abandonShared();
  }
}

void EventProcessor::requestStop() {
  schedule_->stopRequested.store(true, std::memory_order_release);
  schedule_->cancelled.store(true, std::memory_order_release);
  schedule_->halted.store(true, std::memory_order_release);
}

void EventProcessor::watchLanes() { schedule_->watched = true; }

std::vector<LaneActivity> EventProcessor::laneActivity() const { return schedule_->laneActivity(); }

JobInfo const& EventProcessor::info() const { return schedule_->info; }

std::vector<std::string> EventProcessor::moduleDetails() const {
  std::vector<std::string> details;
  for (auto const& worker : schedule_->workers) details.push_back(worker->module().details());
  return details;
}

std::string EventProcessor::sourceDetails() const { return schedule_->source->details(); }
Source& EventProcessor::source() { return *schedule_->source; }

}  // namespace lanes
