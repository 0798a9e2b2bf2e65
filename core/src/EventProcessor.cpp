#include "lanes/core/EventProcessor.h"

#include "Schedule.h"

namespace lanes {

EventProcessor::EventProcessor(JobConfig config, PluginRegistry const& registry)
    : schedule_(std::make_unique<detail::Schedule>(std::move(config), registry)) {}

EventProcessor::~EventProcessor() = default;

void EventProcessor::addObserver(ProcessingObserver* observer) { schedule_->observers.push_back(observer); }

void EventProcessor::onThreadEntry(std::function<void()> hook) { schedule_->threadEntryHook = std::move(hook); }

RunSummary EventProcessor::run() { return schedule_->run(); }

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
