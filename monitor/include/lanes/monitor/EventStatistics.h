#pragma once
// The distribution of event wall times: from the times eventStarted() and
// eventFinished() give for each event (the end of the source's next() that
// read it, the moment it finished), whatever its lane did meanwhile (its
// calls, their waits, other lanes' calls on its threads). Kept per lane in a
// LogHistogram, with the longest and the slowest few exactly: memory that
// does not grow with the events (an endless job at top speed times 15 million
// a second), and a lane's events follow each other, so its slot needs no lock.
// Times go into the histogram kBatch at a time: added one by one between the
// lane's other work, each waited on its table lookups (14% of the top speed,
// paired), where a loop over a batch overlaps them (1.7 ns an add).
// A job whose timing is sampled gives the distribution of its timed events.
// Each lane also says whether it holds an event, for a sampler that counts
// the events in flight as the job runs.

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/ProcessingObserver.h"
#include "lanes/monitor/LogHistogram.h"

namespace lanes {

// Lane-confined: eventStarted() and eventFinished() of one lane follow each
// other (ProcessingObserver's ordering), those of different lanes run
// concurrently. toJson() must not overlap with them: call it after
// jobFinished(). eventsInFlight() is thread-safe: any thread, at any time
// (it and jobStarted() take a mutex; the lanes' hooks never do).
class EventStatistics : public ProcessingObserver {
 public:
  // Names the `slowest` longest events.
  explicit EventStatistics(std::size_t slowest = 5) : slowest_(slowest) {}

  unsigned hooks() const override { return kEvents; }
  void jobStarted(JobInfo const& info) override;
  void eventStarted(unsigned lane, EventId const& id, Clock::time_point when) override;
  void eventFinished(unsigned lane, EventId const& id, EventStatus status, Clock::time_point when) override;

  // The lanes that hold an event now (started, not finished); a relaxed
  // count, as a sampler needs: each lane's flag as it last saw it.
  unsigned eventsInFlight() const;

  // {events (those timed), median_s, p90_s, p99_s, max_s, slowest: [{event: "run:lumi:event", s}],
  // histogram (LogHistogram's, for merging parts)} (percentiles by the nearest
  // rank, the middle of its bucket: within 0.55%, and never above max_s;
  // zeros when no event finished).
  nlohmann::json toJson() const;

 private:
  struct Timed {
    float seconds;
    EventId id;
  };
  // Padded: lanes on different threads do not share a cache line (or a pair, which a CPU may prefetch together).
  struct alignas(128) LaneTimes {
    Clock::time_point started;
    LogHistogram seconds;
    std::vector<float> pending;  // not yet in `seconds`: at most kBatch
    float longest = 0;
    std::vector<Timed> slowest;  // at most slowest_, unordered
    float floor = 0;             // the fastest of `slowest` once it is full: faster events need no search
    std::atomic<bool> inFlight{false};  // written by its lane alone, read by eventsInFlight()
  };

  static constexpr std::size_t kBatch = 1024;
  std::size_t const slowest_;
  mutable std::mutex lanesMutex_;  // guards lanes_ itself (not its elements) between jobStarted() and eventsInFlight()
  std::vector<LaneTimes> lanes_;
};

}  // namespace lanes
