#pragma once
// --trace for a queue of the CUDA backend (CudaDevice.h): each copy and
// kernel it enqueues is timed on the device between two CUDA events and
// drawn as a box on the queue's track ("device queue N",
// lanes/monitor/DeviceTrace.h), a kernel with its flows from the acquire()
// that launched it and to the produce() that takes its result.
//
// Timing. A CUDA event takes the GPU's timer when its stream reaches it, and
// cudaEventElapsedTime gives the milliseconds between two of them (to about
// half a microsecond): a box's duration is the device's own. To place boxes
// on the host's clock, the queue's first traced work records a reference
// event on the queue's stream (idle then) and waits for it: the GPU took
// that time between the host's reads before the record and after the wait,
// and the midpoint is kept, so the reference is off by at most half that
// window (the narrowest of three rounds; on an idle stream a round trip
// should take microseconds, not measured here for want of a GPU). It costs
// one short synchronisation per queue, only when tracing. A box begins at the reference plus its elapsed time since it.
// That placement errs more as the job goes on: elapsed times are floats
// (6e-8 of the time since the reference: 6 µs after 100 s), and the GPU's
// timer and the host's clock drift apart by parts per million. So each box
// is also kept between two host times known for certain
// (deviceTrace::onHostClock): after its enqueue, and before the host saw it
// done (a marker waited for, a stream callback called). Whatever the error,
// a kernel is never drawn before its acquire() nor after its produce(), and
// the flows keep their order.
//
// Reading. CUDA calls are not allowed in a stream callback, so events are
// read on host threads only: at each enqueue on the queue (the work found
// done), when the queue goes, and when the recorder closes
// (deviceTrace::Backlog, which waits for work still running), so every box
// is in the trace. A callback or a marker's waiter only notes the host time
// it saw the work done (Sightings.h).
//
// Off (no trace recorded when work is enqueued): no events are made, and an
// enqueue costs an atomic load.

#include <cuda_runtime.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "accel/Sightings.h"
#include "lanes/monitor/DeviceTrace.h"

namespace lanes::accel {

// Externally synchronised by its owner: a CUDA event with timing on, made
// and destroyed on host threads.
class TimingEvent {
 public:
  TimingEvent();
  ~TimingEvent();
  TimingEvent(TimingEvent&& other) noexcept;
  TimingEvent& operator=(TimingEvent&& other) noexcept;  // swaps

  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Externally synchronised by the queue's lock (begin(), end(), ended(),
// with the enqueues they bracket), except record(), which any host thread
// may call (it has a lock of its own), and sightings(), which any thread
// may use. Goes on a host thread (its events with it), after a last
// record(true).
class CudaTrace {
 public:
  // A piece of work being enqueued: its begin event is on the stream.
  struct Piece {
    std::string name;
    std::uint64_t into = 0, out = 0;  // flows, as Kernel's
    TimingEvent begin, end;
    Clock::time_point enqueued;
  };

  CudaTrace(cudaStream_t stream, unsigned queue);

  // A piece of work begins on the stream now: none when no trace is recorded.
  std::optional<Piece> begin(std::string name, std::uint64_t into = 0, std::uint64_t out = 0);
  // ... and ends: the trace draws it once it is done. A piece not ended
  // (its enqueue threw: the job fails with that error) is not drawn.
  void end(std::optional<Piece> piece);
  // The pieces ended so far: a marker or callback enqueued now follows them.
  std::uint64_t ended() const { return ended_; }
  std::shared_ptr<Sightings> const& sightings() const { return sightings_; }

  // Under the queue's lock: draws the pieces done (in a job never traced,
  // without taking a lock).
  void recordDone();
  // Draws the pieces done, in order; with `wait`, waits for every piece first.
  void record(bool wait);

 private:
  void calibrate();
  void draw(Piece const& piece, bool timed);

  cudaStream_t const stream_;
  unsigned const queue_;  // its track: "device queue N"
  std::optional<TimingEvent> reference_;  // reached at referenceHost_; set under the queue's lock before the first piece
  Clock::time_point referenceHost_;
  std::uint64_t ended_ = 0;  // the queue's lock
  std::shared_ptr<Sightings> sightings_ = std::make_shared<Sightings>();
  std::mutex mutex_;  // guards the two members below
  std::deque<Piece> pending_;
  std::uint64_t drawn_ = 0;
  deviceTrace::Backlog backlog_{[this] { record(true); }};  // last: gone before the members it uses
};

}  // namespace lanes::accel
