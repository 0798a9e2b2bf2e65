#include "lanes/core/EventProcessor.h"

#include "Schedule.h"

namespace lanes {

EventProcessor::EventProcessor(JobConfig config, PluginRegistry const& registry)
    : schedule_(std::make_unique<detail::Schedule>(std::move(config), registry)) {}

EventProcessor::~EventProcessor() = default;

void EventProcessor::addObserver(ProcessingObserver* observer) { schedule_->observers.push_back(observer); }

void EventProcessor::clearObservers() { schedule_->observers.clear(); }

void EventProcessor::onThreadEntry(std::function<void()> hook) { schedule_->threadEntryHook = std::move(hook); }

RunSummary EventProcessor::run() { return schedule_->run(); }

void EventProcessor::beginJob() { schedule_->beginJob(); }

RunSummary EventProcessor::process(ProcessPart const& part) { return schedule_->process(part); }

void EventProcessor::endJob() { schedule_->endJob(); }

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

void EventProcessor::requestStop() {
  schedule_->stopRequested.store(true, std::memory_order_release);
  schedule_->halted.store(true, std::memory_order_release);
}

JobInfo const& EventProcessor::info() const { return schedule_->info; }

std::vector<std::string> EventProcessor::moduleDetails() const {
  std::vector<std::string> details;
  for (auto const& worker : schedule_->workers) details.push_back(worker->module().details());
  return details;
}

}  // namespace lanes
