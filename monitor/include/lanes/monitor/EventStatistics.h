#pragma once
// The distribution of event wall times: from the times eventStarted() and
// eventFinished() give for each event (the end of the source's next() that
// read it, the moment it finished), whatever its lane did meanwhile (its
// calls, their waits, other lanes' calls on its threads). A float per event,
// kept per lane: a lane's events follow each other, so its slot needs no lock.
// A job whose timing is sampled gives the distribution of its timed events.

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// Lane-confined: eventStarted() and eventFinished() of one lane follow each
// other (ProcessingObserver's ordering), those of different lanes run
// concurrently. toJson() must not overlap with them: call it after jobFinished().
class EventStatistics : public ProcessingObserver {
 public:
  // Names the `slowest` longest events.
  explicit EventStatistics(std::size_t slowest = 5) : slowest_(slowest) {}

  unsigned hooks() const override { return kEvents; }
  void jobStarted(JobInfo const& info) override;
  void eventStarted(unsigned lane, EventId const& id, Clock::time_point when) override;
  void eventFinished(unsigned lane, EventId const& id, EventStatus status, Clock::time_point when) override;

  // {events (those timed), median_s, p90_s, p99_s, max_s, slowest: [{event: "run:lumi:event", s}],
  // histogram (LogHistogram's, for merging parts)} (percentiles by the nearest
  // rank; zeros when no event finished).
  nlohmann::json toJson() const;

 private:
  struct Timed {
    float seconds;
    EventId id;
  };
  // Padded: lanes on different threads do not share a cache line (or a pair, which a CPU may prefetch together).
  struct alignas(128) LaneTimes {
    Clock::time_point started;
    std::vector<float> seconds;
    std::vector<Timed> slowest;  // at most slowest_, unordered
    float floor = 0;             // the fastest of `slowest` once it is full: faster events need no search
  };

  std::size_t const slowest_;
  std::vector<LaneTimes> lanes_;
};

}  // namespace lanes
