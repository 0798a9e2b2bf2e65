#include "MpiTrace.h"

#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "multiprocess/MultiProcessWorker.h"
#include "lanes/core/Exception.h"
#include "lanes/core/Module.h"
#include "lanes/core/TemporaryName.h"

namespace lanes::node {

namespace {

constexpr int kDataTag = 51, kEndTag = 52;
constexpr std::size_t kMessageBytes = std::size_t{1} << 20;

// The message that ends a rank's part: whether it sent one whole, its start and its clock's offset.
struct PartEnd {
  std::int64_t present = 0;
  std::int64_t startNs = 0;
  std::int64_t offsetNs = 0;
};

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// The trace's pid of a rank: its own, unless a rank on another host has the
// same one; then one that no process has (pids stay below 2^22 on Linux).
int trackPid(int pid, unsigned rank, std::set<int>& used) {
  if (!used.insert(pid).second) pid += static_cast<int>(rank) << 22;
  used.insert(pid);
  return pid;
}

}  // namespace

std::string mpiTraceRecording() {
  return (std::filesystem::temp_directory_path() / ("lanes-trace-" + std::to_string(::getpid()) + ".json")).string();
}

MpiTrace::MpiTrace(MpiSession const& session, std::string path)
    : session_(session),
      path_(std::move(path)),
      recorded_(partPath(mpiTraceRecording(), partName(session.rank()))),
      clock_(measureClockOffset(MPI_COMM_WORLD)) {}

MpiTrace::~MpiTrace() {
  std::error_code ignored;  // a part that is not there is what removing wants
  std::filesystem::remove(recorded_, ignored);
  std::filesystem::remove(partialPath(recorded_, ::getpid()), ignored);  // a recorder that failed
  for (auto const& part : parts_) std::filesystem::remove(part.path, ignored);
}

void MpiTrace::collect(std::int64_t startNs) {
  if (session_.rank() != 0) return send(startNs);
  parts_.push_back({recorded_, std::filesystem::is_regular_file(recorded_), startNs, 0});
  for (unsigned rank = 1; rank < session_.size(); ++rank) parts_.push_back(receive(rank));
}

void MpiTrace::send(std::int64_t startNs) const {
  PartEnd end{0, startNs + clock_.offsetNs, clock_.offsetNs};
  std::ifstream in(recorded_, std::ios::binary);
  std::vector<char> buffer(kMessageBytes);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) MPI_Send(buffer.data(), static_cast<int>(in.gcount()), MPI_CHAR, 0, kDataTag, MPI_COMM_WORLD);
  }
  end.present = in.eof() && !in.bad() && std::filesystem::is_regular_file(recorded_);
  MPI_Send(&end, 3, MPI_INT64_T, 0, kEndTag, MPI_COMM_WORLD);
}

// Every message of `rank`'s part is received, whatever fails: the rank waits on each.
MpiTrace::Part MpiTrace::receive(unsigned rank) {
  Part part{partPath(mpiTraceRecording(), "rank-" + std::to_string(rank))};
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(part.path.c_str(), "wb"));
  auto failure = file ? 0 : errno;
  std::vector<char> buffer(kMessageBytes);
  for (;;) {
    MPI_Status status;
    MPI_Probe(static_cast<int>(rank), MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == kEndTag) break;
    int bytes = 0;
    MPI_Get_count(&status, MPI_CHAR, &bytes);
    MPI_Recv(buffer.data(), bytes, MPI_CHAR, static_cast<int>(rank), kDataTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!failure && std::fwrite(buffer.data(), 1, static_cast<std::size_t>(bytes), file.get()) != static_cast<std::size_t>(bytes)) {
      failure = errno;
    }
  }
  PartEnd end;
  MPI_Recv(&end, 3, MPI_INT64_T, static_cast<int>(rank), kEndTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (!failure && std::fclose(file.release()) != 0) failure = errno;
  part.present = end.present && !failure;
  part.startNs = end.startNs;
  part.offsetNs = end.offsetNs;
  if (failure && error_.empty()) {
    error_ = "cannot keep rank " + std::to_string(rank) + "'s trace in '" + part.path + "': " + std::strerror(failure);
  }
  if (!part.present) std::filesystem::remove(part.path);  // the merge notes a missing part on its track
  return part;
}

void MpiTrace::write(nlohmann::json const& workers, std::vector<TraceSlice> const& work) const {
  if (!error_.empty()) throw Exception(error_ + "; no trace written to '" + path_ + "'");
  TraceMergeInput input;
  input.originNs = parts_.front().startNs;
  std::set<int> pids;
  for (auto const& worker : workers) {
    auto const rank = worker["rank"].get<unsigned>();
    auto const& part = parts_.at(rank);
    auto const name = "rank " + std::to_string(rank) + " on " + worker["host"].get<std::string>();
    auto const pid = trackPid(worker["pid"].get<int>(), rank, pids);
    if (rank == 0) {
      input.parentPid = pid;
      input.parentName = name;
    }
    input.originNs = std::min(input.originNs, part.startNs);
    input.parts.push_back({part.path, pid, name, part.offsetNs});  // a part not present is no file
  }
  input.parentWork = work;
  mergeTraces(path_, input);
}

}  // namespace lanes::node
