// The claim path of --distribution mpi-queue (node/src/mpi/MpiEventQueue.h):
// every rank claims chunks from the counter in rank 0's window as fast as it
// can, as MpiAgent does, until `claims` were handed out in all. Rank 0
// prints JSON: claims per second the window served, and each rank's latency
// per claim (mean, median, 99th percentile, in microseconds).
//   mpirun --oversubscribe -np 8 build/bin/bench_mpi_claims [claims]

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "MpiEventQueue.h"

namespace {

struct Latencies {
  double mean = 0, median = 0, p99 = 0;
  double claims = 0;
};

Latencies summarise(std::vector<double>& seconds) {
  Latencies result;
  result.claims = static_cast<double>(seconds.size());
  if (seconds.empty()) return result;
  std::sort(seconds.begin(), seconds.end());
  double total = 0;
  for (auto s : seconds) total += s;
  result.mean = total / result.claims * 1e6;
  result.median = seconds[seconds.size() / 2] * 1e6;
  result.p99 = seconds[std::min(seconds.size() - 1, seconds.size() * 99 / 100)] * 1e6;
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::uint64_t const claims = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  Latencies mine;
  double wall = 0;
  {
    lanes::node::MpiJobWindow window(MPI_COMM_WORLD);
    std::vector<double> seconds;
    seconds.reserve(claims);
    MPI_Barrier(MPI_COMM_WORLD);
    double const start = MPI_Wtime();
    while (true) {
      double const before = MPI_Wtime();
      auto const chunk = window.claimChunk();
      if (chunk >= claims) break;
      seconds.push_back(MPI_Wtime() - before);
    }
    double const end = MPI_Wtime();
    MPI_Reduce(&end, &wall, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    wall -= start;
    mine = summarise(seconds);
  }
  std::vector<Latencies> all(static_cast<std::size_t>(size));
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("{\"ranks\": %d, \"claims\": %llu, \"wall_s\": %.6f, \"claims_per_s\": %.0f, \"per_rank\": [", size,
                static_cast<unsigned long long>(claims), wall, static_cast<double>(claims) / wall);
    for (int r = 0; r < size; ++r) {
      auto const& l = all[static_cast<std::size_t>(r)];
      std::printf("%s{\"rank\": %d, \"claims\": %.0f, \"mean_us\": %.3f, \"median_us\": %.3f, \"p99_us\": %.3f}",
                  r ? ", " : "", r, l.claims, l.mean, l.median, l.p99);
    }
    std::printf("]}\n");
  }
  MPI_Finalize();
  return 0;
}
