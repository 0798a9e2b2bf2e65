#include "MpiClock.h"

#include <algorithm>

#include "multiprocess/MonotonicClock.h"

namespace lanes::node {

namespace {

constexpr int kAskTag = 41, kTimeTag = 42;

}  // namespace

ClockOffset clockOffsetOf(std::vector<ClockSample> const& samples) {
  auto const fastest = *std::min_element(samples.begin(), samples.end(), [](auto const& a, auto const& b) {
    return a.received - a.sent < b.received - b.sent;
  });
  auto const halfTrip = (fastest.received - fastest.sent) / 2;
  return {fastest.remote - (fastest.sent + halfTrip), halfTrip};
}

ClockOffset measureClockOffset(MPI_Comm comm, unsigned rounds) {
  int me = 0, size = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  std::vector<ClockSample> samples(rounds);
  for (int rank = 1; rank < size; ++rank) {
    for (auto& sample : samples) {
      if (me == 0) {
        MPI_Recv(nullptr, 0, MPI_BYTE, rank, kAskTag, comm, MPI_STATUS_IGNORE);
        auto const now = monotonicNanoseconds();
        MPI_Send(&now, 1, MPI_INT64_T, rank, kTimeTag, comm);
      } else if (me == rank) {
        sample.sent = monotonicNanoseconds();
        MPI_Send(nullptr, 0, MPI_BYTE, 0, kAskTag, comm);
        MPI_Recv(&sample.remote, 1, MPI_INT64_T, 0, kTimeTag, comm, MPI_STATUS_IGNORE);
        sample.received = monotonicNanoseconds();
      }
    }
  }
  return me == 0 ? ClockOffset{} : clockOffsetOf(samples);
}

}  // namespace lanes::node
