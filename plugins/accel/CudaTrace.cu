#include "accel/CudaTrace.h"

#include <algorithm>
#include <utility>

#include "accel/CudaCheck.h"

namespace lanes::accel {

TimingEvent::TimingEvent() { check(cudaEventCreate(&event_), "cudaEventCreate (trace timing)"); }

TimingEvent::~TimingEvent() {
  if (event_) cudaEventDestroy(event_);
}

TimingEvent::TimingEvent(TimingEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

TimingEvent& TimingEvent::operator=(TimingEvent&& other) noexcept {
  std::swap(event_, other.event_);
  return *this;
}

CudaTrace::CudaTrace(cudaStream_t stream, unsigned queue) : stream_(stream), queue_(queue) {}

std::optional<CudaTrace::Piece> CudaTrace::begin(std::string name, std::uint64_t into, std::uint64_t out) {
  if (!deviceTrace::recording()) return std::nullopt;
  if (!reference_) calibrate();
  Piece piece{std::move(name), into, out, {}, {}, Clock::now()};
  check(cudaEventRecord(piece.begin.get(), stream_), "cudaEventRecord (trace timing)");
  return piece;
}

void CudaTrace::end(std::optional<Piece> piece) {
  if (!piece) return;
  check(cudaEventRecord(piece->end.get(), stream_), "cudaEventRecord (trace timing)");
  ++ended_;
  std::lock_guard lock(mutex_);
  pending_.push_back(std::move(*piece));
}

// The GPU reached the reference event between the host's two reads; the
// narrowest of three windows bounds the error best.
void CudaTrace::calibrate() {
  TimingEvent best, trial;
  auto narrowest = Clock::duration::max();
  for (int round = 0; round < 3; ++round) {
    auto const before = Clock::now();
    check(cudaEventRecord(trial.get(), stream_), "cudaEventRecord (trace reference)");
    check(cudaEventSynchronize(trial.get()), "cudaEventSynchronize (trace reference)");
    auto const window = Clock::now() - before;
    if (window < narrowest) {
      narrowest = window;
      referenceHost_ = before + window / 2;
      std::swap(best, trial);
    }
  }
  reference_ = std::move(best);
}

void CudaTrace::recordDone() {
  if (ended_ != 0) record(false);
}

void CudaTrace::record(bool wait) {
  std::lock_guard lock(mutex_);
  while (!pending_.empty()) {
    auto const& piece = pending_.front();
    auto const status = wait ? cudaEventSynchronize(piece.end.get()) : cudaEventQuery(piece.end.get());
    if (status == cudaErrorNotReady) return;
    draw(piece, status == cudaSuccess);
    pending_.pop_front();
    ++drawn_;
  }
}

// The piece is done (record() saw it), so now is a bound on its end, read
// before the sightings: one noted after them has a produce() after now.
void CudaTrace::draw(Piece const& piece, bool timed) {
  auto const now = Clock::now();
  auto const done = std::min(now, sightings_->doneBy(drawn_).value_or(now));
  float sinceReference = 0, duration = 0;
  timed = timed && cudaEventElapsedTime(&sinceReference, reference_->get(), piece.begin.get()) == cudaSuccess &&
          cudaEventElapsedTime(&duration, piece.begin.get(), piece.end.get()) == cudaSuccess;
  if (!timed) {
    // A device error, which the queue's markers and callbacks report: not
    // left for this thread's next launch check to blame on another module.
    cudaGetLastError();
  }
  // Work the device could not time spans what the host knows of it.
  auto const box = timed ? deviceTrace::onHostClock(referenceHost_, 1e-3 * sinceReference,
                                                    1e-3 * (double(sinceReference) + duration), piece.enqueued, done)
                         : deviceTrace::Interval{piece.enqueued, done};
  deviceTrace::work(queue_, piece.name, box.begin, box.end, piece.into, piece.out);
}

}  // namespace lanes::accel
