// A rank's clock offset to rank 0: the estimate from the fastest round trip,
// and, measured under mpirun on one host (one clock for every rank), an
// offset within its own uncertainty of zero.

#include <mpi.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "MpiClock.h"

namespace lanes::node {
namespace {

TEST(MpiClockTest, TrustsTheFastestRoundTripAndAssumesRankZeroReadItsClockHalfwayThrough) {
  // Rank 0's clock runs 1 ms ahead; the second trip was slowed down on its way back.
  std::vector<ClockSample> const samples{{0, 1'000'300, 500}, {1'000, 2'000'100, 9'000}, {10'000, 1'010'100, 10'200}};
  auto const offset = clockOffsetOf(samples);
  EXPECT_EQ(offset.offsetNs, 1'000'000);
  EXPECT_EQ(offset.uncertaintyNs, 100);
}

TEST(MpiClockTest, RanksOfOneHostShareRankZerosClockWithinTheUncertainty) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto const offset = measureClockOffset(MPI_COMM_WORLD);
  if (rank == 0) {
    EXPECT_EQ(offset.offsetNs, 0);
    EXPECT_EQ(offset.uncertaintyNs, 0);
  } else {
    EXPECT_GE(offset.uncertaintyNs, 0);
    EXPECT_LE(std::llabs(offset.offsetNs), offset.uncertaintyNs + 1);  // +1: the halved trip's rounding
  }
}

}  // namespace
}  // namespace lanes::node
