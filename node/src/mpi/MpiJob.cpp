#include <mpi.h>
#include <unistd.h>

#include <memory>
#include <optional>

#include "multiprocess/MonotonicClock.h"
#include "multiprocess/MultiProcessReport.h"
#include "multiprocess/MultiProcessWorker.h"
#include "multiprocess/OutputParts.h"
#include "multiprocess/PartTiming.h"
#include "MpiEventQueue.h"
#include "MpiFileChunks.h"
#include "MpiSharedOutputs.h"
#include "MpiTrace.h"
#include "MpiWriteTogether.h"
#include "lanes/core/Exception.h"
#include "lanes/monitor/ProcessMemory.h"
#include "lanes/node/EventDistribution.h"
#include "lanes/node/MpiJob.h"

namespace lanes::node {

namespace {

std::string hostName() {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length));
}

// Every rank's text, on rank 0 (empty elsewhere). Collective.
std::vector<std::string> gatherOnRankZero(std::string const& text, MpiSession const& session) {
  int const length = static_cast<int>(text.size());
  std::vector<int> lengths(session.rank() == 0 ? session.size() : 0), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(all.size());
    all.resize(all.size() + static_cast<std::size_t>(lengths[r]));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> texts;
  for (std::size_t r = 0; r < lengths.size(); ++r) texts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return texts;
}

// This rank's events, by the job's distribution.
std::unique_ptr<EventDispenser> dispenserFor(MpiOptions const& options, MpiSession const& session, MpiAgent& agent) {
  switch (options.distribution) {
    case MpiDistribution::Queue: return std::make_unique<MpiQueueDispenser>(agent, options.chunk, options.events);
    case MpiDistribution::Block:
      return std::make_unique<RangeDispenser>(options.events * session.rank() / session.size(),
                                              options.events * (session.rank() + 1) / session.size());
    case MpiDistribution::RoundRobin: return std::make_unique<RoundRobinDispenser>(0, session.rank(), session.size());
  }
  throw Exception("MPI: unknown distribution");
}

// --chunk file: this rank's whole files, which start at ordinals `starts`.
std::unique_ptr<FileChunkDispenser> fileDispenserFor(std::vector<std::uint64_t> starts, MpiOptions const& options,
                                                     MpiSession const& session, MpiAgent& agent) {
  auto files = filesOfRank(options.distribution, starts.size() - 1, session.rank(), session.size(),
                           [&agent] { return agent.takeChunk(); });
  return std::make_unique<FileChunkDispenser>(std::move(starts), options.events, std::move(files));
}

MpiAgent::Claims claimsOf(MpiOptions const& options) {
  if (options.distribution != MpiDistribution::Queue) return MpiAgent::Claims::None;
  return options.byFile ? MpiAgent::Claims::WhenAsked : MpiAgent::Claims::Ahead;
}

// The names of the files a rank took.
nlohmann::json namesOf(std::vector<std::size_t> const& taken, Source const& source) {
  auto const files = source.fileList();
  nlohmann::json names = nlohmann::json::array();
  for (auto file : taken) names.push_back(files[file]);
  return names;
}

// One rank's part: runs it, stops the others if it ended early, and returns
// its report with the rank's figures. Times are relative to `aligned`, this
// rank's clock at the barrier every rank passed before starting: so the
// ranks' times compare, whatever their hosts' clocks.
nlohmann::json runRankPart(EventProcessor& processor, MpiSession const& session, MpiOptions const& options,
                           PartRunner const& runner, std::int64_t aligned) {
  std::vector<std::uint64_t> fileStarts;  // shared before the agent's thread calls MPI too (calls are serialised)
  if (options.byFile) fileStarts = shareFileEntries(processor.source(), options.distribution, session);
  MpiJobWindow window(MPI_COMM_WORLD);
  std::optional<MpiSharedOutputs> shared;
  if (options.outputMode == OutputMode::SharedWriter) shared.emplace(processor, MPI_COMM_WORLD);
  MpiAgent agent(window, [&processor] { processor.requestStop(); }, claimsOf(options),
                 shared ? shared->traffic() : nullptr);
  std::unique_ptr<FileChunkDispenser> files;
  std::unique_ptr<EventDispenser> chunks;
  if (options.byFile) {
    files = fileDispenserFor(std::move(fileStarts), options, session, agent);
  } else {
    chunks = dispenserFor(options, session, agent);
  }
  EventDispenser* events = files ? files.get() : chunks.get();
  auto const started = monotonicNanoseconds();
  auto report = runner(processor, {partName(session.rank()), events, 0, session.rank(), session.size(),
                                   shared ? shared->sink() : nullptr});
  auto const finished = monotonicNanoseconds();
  if (files) report["files"] = namesOf(files->filesTaken(), processor.source());
  // A failure or a signal here stops every rank (a signal reaches every
  // rank anyway when mpirun forwards it).
  agent.finish(report.value("failed", false) || report.value("stop_requested", false));
  if (shared) shared->finish(report);
  report["rank"] = session.rank();
  report["host"] = hostName();
  report["pid"] = ::getpid();
  report["started_ns"] = started - aligned;
  report["finished_ns"] = finished - aligned;
  report["claim_waits"] = agent.waits();
  // Beside the rank's sampled RSS (its report's memory), merged by rank 0.
  if (auto memory = ProcessMemory::of(::getpid())) report["process_memory"] = memory->toJson();
  return report;
}

// Rank 0's report of the whole job, from every rank's (in rank order).
class MpiJobReport {
 public:
  MpiJobReport(MpiOptions const& options, std::vector<nlohmann::json> ranks) : options_(options), ranks_(std::move(ranks)) {}

  // The first failed rank's error, naming the rank; empty if none failed.
  std::string error() const {
    for (auto const& rank : ranks_) {
      if (!rank.value("failed", false)) continue;
      return "rank " + rank["rank"].dump() + " (host " + rank.value("host", std::string("?")) + ", pid " +
             rank["pid"].dump() + "): " + rank.value("error", std::string("failed"));
    }
    return {};
  }

  nlohmann::json build(PartsMerge const& merge, nlohmann::json outputs) const {
    nlohmann::json workers = nlohmann::json::array();
    FinishSpread spread;
    std::uint64_t events = 0, totalPss = 0, totalRss = 0;
    double latestFinish = 0;
    bool stopRequested = false;
    int signal = 0;
    for (auto const& rank : ranks_) {
      nlohmann::json row{{"index", rank["rank"]}, {"rank", rank["rank"]}, {"host", rank["host"]}, {"pid", rank["pid"]},
                         {"part", partName(rank["rank"].get<unsigned>())},
                         {"memory", rank.value("process_memory", nlohmann::json())},
                         {"claim_waits", rank.value("claim_waits", 0ull)}, {"shipped", rank.value("shipped", nlohmann::json())}};
      if (rank.contains("files")) row["files"] = rank["files"];
      row["status"] = rank.value("failed", false) ? "failed" : rank.value("stop_requested", false) ? "stopped" : "ok";
      spread.addRow(row, rank, 0);
      latestFinish = std::max(latestFinish, row["finished_s"].get<double>());
      events += eventsOf(rank);
      totalPss += row["memory"].is_object() ? row["memory"].value("pss_bytes", 0ull) : 0;
      totalRss += row["memory"].is_object() ? row["memory"].value("rss_bytes", 0ull) : 0;
      stopRequested = stopRequested || rank.value("stop_requested", false);
      signal = std::max(signal, rank.value("signal", 0));
      row["report"] = rank;
      workers.push_back(std::move(row));
    }
    auto const failure = error();
    bool const failed = !failure.empty() || !merge.error.empty();
    return {{"mode", "mpi"},
            {"output_mode", toString(options_.outputMode)},
            {"writer", ranks_.front().value("writer", nlohmann::json())},
            {"processes", ranks_.size()},
            {"distribution", toString(options_.distribution)},
            {"chunk", options_.byFile ? nlohmann::json("file") : nlohmann::json(options_.chunk)},
            {"events", events},
            {"wall_s", latestFinish},
            {"events_per_s", latestFinish > 0 ? static_cast<double>(events) / latestFinish : 0.0},
            {"finish_spread_s", spread.seconds()},
            {"merge_s", merge.seconds},
            {"workers", workers},
            {"outputs", outputs},
            {"memory", {{"total_pss_bytes", totalPss}, {"total_rss_bytes", totalRss}}},
            {"failed", failed},
            {"error", failure.empty() ? merge.error : failure},
            {"stop_requested", stopRequested},
            {"aborted", false},
            {"signal", signal}};
  }

  // Rank 0 merges the parts (or closes the shared outputs, or takes the
  // files the ranks wrote together) when every rank succeeded and the ranks
  // wrote `together` without error, else removes them.
  nlohmann::json finish(EventProcessor& processor, PartsMerge const& together) const {
    std::vector<std::string> parts;
    std::vector<nlohmann::json const*> reports;
    for (auto const& rank : ranks_) {
      parts.push_back(partName(rank["rank"].get<unsigned>()));
      reports.push_back(&rank);
    }
    bool const failed = !error().empty() || !together.error.empty();
    auto merge = options_.outputMode == OutputMode::SharedWriter ? finishSharedOutputs(processor, ranks_.front(), failed)
                       : failed ? finishOutputParts(processor, {}, parts, true)
                                : finishOutputParts(processor, parts, {}, false);
    if (merge.error.empty()) merge.error = together.error;
    merge.seconds += together.seconds;
    auto report = build(merge, failed ? nlohmann::json::array() : describeMergedOutputs(processor, reports));
    addMergedFigures(report);
    return report;
  }

 private:
  MpiOptions const& options_;
  std::vector<nlohmann::json> ranks_;
};

// Rank 0: the job's trace, or its failure in the report.
void writeTrace(MpiTrace const& trace, nlohmann::json& report, std::vector<TraceSlice> const& work) {
  try {
    trace.write(report["workers"], work);
  } catch (Exception const& error) {
    auto const before = report["error"].get<std::string>();
    report["error"] = before.empty() ? std::string(error.what()) : before + "; " + error.what();
    report["failed"] = true;
  }
}

}  // namespace

nlohmann::json runMpi(EventProcessor& processor, MpiSession const& session, MpiOptions const& options,
                      PartRunner const& runner) {
  validate(options);
  std::optional<MpiTrace> trace;
  if (!options.trace.empty()) trace.emplace(session, options.trace);
  MPI_Barrier(MPI_COMM_WORLD);
  auto const aligned = monotonicNanoseconds();
  auto const mine = runRankPart(processor, session, options, runner, aligned);
  auto texts = gatherOnRankZero(mine.dump(), session);
  if (trace) trace->collect(aligned);
  nlohmann::json report{{"rank", session.rank()}};
  std::vector<nlohmann::json> ranks;
  for (auto const& text : texts) ranks.push_back(nlohmann::json::parse(text));
  MpiJobReport const job(options, std::move(ranks));
  auto const merging = monotonicNanoseconds();
  auto const together = writeOutputsTogether(processor, MPI_COMM_WORLD, session.rank() == 0 && job.error().empty());
  if (session.rank() == 0) {
    report = job.finish(processor, together);
    if (trace) writeTrace(*trace, report, {{"merge outputs", merging, monotonicNanoseconds()}});
  }
  processor.endJob();
  return report;
}

}  // namespace lanes::node
