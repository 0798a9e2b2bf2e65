#include "MpiEventQueue.h"

#include <chrono>

#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

constexpr int kNextChunk = 0, kStop = 1;  // the window's slots

// How often a rank looks at the stop flag: a failure elsewhere stops it
// within this, plus its events in flight.
constexpr auto kStopPoll = std::chrono::milliseconds(50);

}  // namespace

MpiJobWindow::MpiJobWindow(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Aint const bytes = rank == 0 ? 2 * sizeof(std::uint64_t) : 0;
  if (MPI_Win_allocate(bytes, sizeof(std::uint64_t), MPI_INFO_NULL, comm, &memory_, &window_) != MPI_SUCCESS) {
    throw Exception("MPI: cannot allocate the job's window");
  }
  if (rank == 0) memory_[kNextChunk] = memory_[kStop] = 0;
  MPI_Barrier(comm);  // zeroed before anybody claims
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
}

MpiJobWindow::~MpiJobWindow() {
  MPI_Win_unlock_all(window_);
  MPI_Win_free(&window_);
}

std::uint64_t MpiJobWindow::fetchAndOp(int slot, std::uint64_t operand, MPI_Op op) {
  std::uint64_t before = 0;
  MPI_Fetch_and_op(&operand, &before, MPI_UINT64_T, 0, slot, op, window_);
  MPI_Win_flush(0, window_);
  return before;
}

std::uint64_t MpiJobWindow::claimChunk() { return fetchAndOp(kNextChunk, 1, MPI_SUM); }
void MpiJobWindow::raiseStop() { fetchAndOp(kStop, 1, MPI_REPLACE); }
bool MpiJobWindow::stopRaised() { return fetchAndOp(kStop, 0, MPI_NO_OP) != 0; }

MpiAgent::MpiAgent(MpiJobWindow& window, std::function<void()> onStop, Claims claims, MpiTraffic* traffic)
    : window_(window), onStop_(std::move(onStop)), claims_(claims), traffic_(traffic), thread_([this] { serve(); }) {}

MpiAgent::~MpiAgent() { finish(false); }

void MpiAgent::serve() {
  std::unique_lock lock(mutex_);
  auto nextPoll = std::chrono::steady_clock::now();
  bool stopped = false;
  while (!finishing_) {
    if (traffic_) {
      lock.unlock();
      traffic_->progress();
      lock.lock();
    }
    if (ahead_.empty() && (claims_ == Claims::Ahead || asked_)) {
      lock.unlock();
      auto const chunk = window_.claimChunk();
      lock.lock();
      ahead_.push_back(chunk);
      asked_ = false;
      claimed_.notify_all();
      continue;
    }
    if (!stopped && std::chrono::steady_clock::now() >= nextPoll) {
      lock.unlock();
      stopped = window_.stopRaised();
      if (stopped) onStop_();
      lock.lock();
      nextPoll = std::chrono::steady_clock::now() + kStopPoll;
      continue;
    }
    if (traffic_) {
      wanted_.wait_for(lock, kMpiTrafficPoll);
    } else if (stopped) {
      wanted_.wait(lock);  // for a claim, or the end: the flag needs no more looks
    } else {
      wanted_.wait_until(lock, nextPoll);
    }
  }
  if (raiseStop_) {
    lock.unlock();
    window_.raiseStop();
  }
}

std::uint64_t MpiAgent::takeChunk() {
  std::unique_lock lock(mutex_);
  if (ahead_.empty()) {
    ++waits_;
    asked_ = true;
    wanted_.notify_one();
    claimed_.wait(lock, [this] { return !ahead_.empty(); });
  }
  auto const chunk = ahead_.front();
  ahead_.pop_front();
  wanted_.notify_one();  // the next claim starts now, while this chunk runs
  return chunk;
}

void MpiAgent::finish(bool raiseStop) {
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return;
    finishing_ = true;
    raiseStop_ = raiseStop;
  }
  wanted_.notify_one();
  thread_.join();
}

std::uint64_t MpiAgent::waits() const {
  std::lock_guard lock(mutex_);
  return waits_;
}

MpiQueueDispenser::MpiQueueDispenser(MpiAgent& agent, std::uint64_t chunkSize, std::uint64_t limit)
    : agent_(agent), chunkSize_(chunkSize), limit_(limit) {}

std::optional<std::uint64_t> MpiQueueDispenser::next() {
  std::lock_guard lock(mutex_);
  if (next_ == end_) {
    next_ = agent_.takeChunk() * chunkSize_;
    end_ = next_ + chunkSize_;
  }
  if (limit_ && next_ >= limit_) return std::nullopt;
  return next_++;
}

}  // namespace lanes::node
