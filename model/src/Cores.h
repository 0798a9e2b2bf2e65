#pragma once
// The node's cores, shared by the threads whose current activity burns CPU
// when there are more of those than cores: processor sharing, each running
// at cores/n of a core. Every CPU part then advances one virtual clock at
// the same rate, so that they end in the order of their virtual end (start
// plus demand): one heap, whatever the rate does. Spinning threads (a
// blocking strategy's wait) take their share without an end of their own.

#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

namespace lanes::model::detail {

// Externally synchronised: the simulation's, used by its one thread.
class Cores {
 public:
  Cores(unsigned cores, unsigned threads) : cores_(cores), shared_(cores < threads) {}

  // Whether threads ever wait for a core (else a CPU part simply takes its demand).
  bool shared() const { return shared_; }

  void start(unsigned thread, double demand, double now) {
    advance(now);
    ++running_;
    parts_.push({virtual_ + demand, thread});
  }
  void startSpinning(double now) {
    advance(now);
    ++running_;
  }
  void stopSpinning(double now) {
    advance(now);
    --running_;
  }
  // When the first CPU part ends at the current rate; +inf if none runs.
  double nextEnd() const {
    if (parts_.empty()) return std::numeric_limits<double>::infinity();
    return updated_ + (parts_.top().end - virtual_) / rate();
  }
  // The threads whose CPU part has ended by `now`.
  std::vector<unsigned> takeEnded(double now) {
    advance(now);
    std::vector<unsigned> ended;
    // A part due now may be a rounding error short of its end.
    while (!parts_.empty() && parts_.top().end <= virtual_ + 1e-12 * (1 + virtual_)) {
      ended.push_back(parts_.top().thread);
      parts_.pop();
      --running_;
    }
    return ended;
  }
  // Core-seconds used so far.
  double busySeconds(double now) {
    advance(now);
    return busy_;
  }

 private:
  struct Part {
    double end;
    unsigned thread;
    bool operator>(Part const& other) const { return end > other.end; }
  };
  double rate() const { return running_ <= cores_ ? 1.0 : static_cast<double>(cores_) / running_; }
  void advance(double now) {
    auto const elapsed = now - updated_;
    virtual_ += elapsed * rate();
    busy_ += elapsed * std::min<double>(running_, cores_);
    updated_ = now;
  }

  unsigned cores_;
  bool shared_;
  unsigned running_ = 0;
  double virtual_ = 0;
  double updated_ = 0;
  double busy_ = 0;
  std::priority_queue<Part, std::vector<Part>, std::greater<>> parts_;
};

}  // namespace lanes::model::detail
