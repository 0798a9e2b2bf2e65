#pragma once
// How far a rank's monotonic clock is from rank 0's: ranks on other hosts
// start their clocks at other times, and a trace with a track per rank needs
// one timeline. Measured as NTP and Cristian's algorithm do: the rank asks
// rank 0 for its time a few times, and takes the round trip that came back
// soonest, assuming rank 0 read its clock halfway through it.

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace lanes::node {

// One round trip, each time in nanoseconds: sent and received on the rank's
// clock, `remote` read by rank 0 in between.
struct ClockSample {
  std::int64_t sent = 0;
  std::int64_t remote = 0;
  std::int64_t received = 0;
};

// Rank 0's clock minus this rank's, and the uncertainty: half the round trip
// it was measured over (the offset is exact to within it when both clocks
// run at the same rate).
struct ClockOffset {
  std::int64_t offsetNs = 0;
  std::int64_t uncertaintyNs = 0;
};

// From the round trip that took least time. `samples` is not empty.
ClockOffset clockOffsetOf(std::vector<ClockSample> const& samples);

// Collective over `comm`, on every rank's main thread: this rank's offset to
// rank 0 ({0, 0} on rank 0), over `rounds` round trips; rank 0 answers each
// rank in turn.
ClockOffset measureClockOffset(MPI_Comm comm, unsigned rounds = 16);

}  // namespace lanes::node
