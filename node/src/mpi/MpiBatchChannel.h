#pragma once
// The channel of a shared-writer MPI job: every rank's outputs ship
// serialised batches (lanes::BatchSink, the same bytes a BatchRing carries
// between the processes of one node) to rank 0, the writer, which merges each
// as it arrives. The batches travel by MPI point-to-point on a communicator of
// their own: a batch of output N is a message of tag N, and an empty message
// of tag kEndTag says that its rank has shipped everything (one rank's
// messages arrive in the order it sent them).
//
// Every MPI call of the channel is made in progress(), which only the rank's
// MPI thread calls (the MpiAgent, then the main thread once the agent has
// ended): so the rank keeps to MPI_THREAD_SERIALIZED, and a lane's thread
// that ships only copies bytes and, while the writer is behind, waits.

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lanes/core/BatchSink.h"

namespace lanes::node {

// How often the MPI thread comes back to progress() while a channel is open:
// a receive or the completion of a send waits for it at most this long.
constexpr auto kMpiTrafficPoll = std::chrono::milliseconds(1);

// Externally synchronised by the rank's MPI thread, the one caller of
// progress(): work of that thread besides claims and the stop flag.
class MpiTraffic {
 public:
  virtual ~MpiTraffic() = default;
  // Starts and completes MPI calls without waiting for another rank. Called
  // by one thread at a time: the rank's MPI thread.
  virtual void progress() = 0;
};

// What a rank shipped, for its report.
struct ShippedBatches {
  std::uint64_t batches = 0, bytes = 0;
  std::uint64_t waits = 0;  // ship() calls that waited for the writer
};

// Thread-safe: ship() from the lanes' threads, progress() from the MPI
// thread, finish() and shipped() from the main thread. A rank's batches on
// their way to the writer (every rank but 0).
class MpiBatchSender : public BatchSink, public MpiTraffic {
 public:
  // At most `maxInFlight` batches queued or being sent at once: ship()
  // waits beyond (the writer is behind).
  MpiBatchSender(MPI_Comm comm, unsigned maxInFlight);
  ~MpiBatchSender() override;

  std::size_t maxBatchBytes() const override;
  void ship(unsigned output, void const* bytes, std::size_t size) override;
  void progress() override;

  // On the main thread once no batch can come any more and the MPI thread
  // has ended: sends what is left, then the end, and returns once the
  // writer has taken them all (calling progress() itself).
  void finish();
  ShippedBatches shipped() const;

 private:
  void sendAndComplete();

  struct Outgoing {
    unsigned output;
    std::vector<char> bytes;
    MPI_Request request = MPI_REQUEST_NULL;
    bool sent = false;  // MPI_Issend'ed
  };

  MPI_Comm const comm_;
  unsigned const maxInFlight_;
  mutable std::mutex mutex_;
  std::condition_variable room_;
  std::list<Outgoing> inFlight_;  // a list: MPI reads each one's bytes where they are
  unsigned reserved_ = 0;  // batches being copied in, counted as in flight
  ShippedBatches shipped_;
  std::string error_;  // an MPI call failed: nothing more is sent
  bool ending_ = false, ended_ = false;
  MPI_Request end_ = MPI_REQUEST_NULL;
};

// What the writer received and merged, for the job's report.
struct WrittenBatches {
  std::vector<std::uint64_t> batches, bytes;  // per rank that shipped them
  ShippedBatches own;                         // what rank 0's own lanes shipped
  std::size_t mostQueued = 0;                 // the most batches queued for merging at once
  double mergeSeconds = 0;                    // the writer's thread merging
  std::string error;                          // the first merge that failed; empty if none
};

// Thread-safe: ship() from the lanes' threads, progress() from the MPI
// thread, finish() and written() from the main thread. Rank 0's writer:
// receives the other ranks' batches and takes its own (ship()), and merges
// each, in the order they came, on a thread of its own through `merge`.
// Once a merge has failed, the batches are only received and dropped (the
// senders must not wait for a writer that has given up), and `onFailure` is
// called once.
class MpiBatchWriter : public BatchSink, public MpiTraffic {
 public:
  using Merge = std::function<void(unsigned output, void const* bytes, std::size_t size)>;
  // At most `maxQueued` batches wait for merging: beyond, rank 0's lanes
  // wait in ship() and the other ranks' messages wait unreceived, which
  // holds up their senders (synchronous sends).
  MpiBatchWriter(MPI_Comm comm, unsigned maxQueued, Merge merge, std::function<void()> onFailure);
  ~MpiBatchWriter() override;

  std::size_t maxBatchBytes() const override;
  void ship(unsigned output, void const* bytes, std::size_t size) override;
  void progress() override;

  // On the main thread once rank 0's part has ended and the MPI thread has
  // ended: receives until every other rank has sent its end, and returns
  // once every batch is merged (calling progress() itself).
  void finish();
  WrittenBatches written() const;

 private:
  struct Incoming {
    unsigned rank;
    unsigned output;
    std::vector<char> bytes;
  };
  bool hasRoom() const;           // with mutex_ held
  void push(Incoming batch);      // with mutex_ held
  void receive();                 // MPI thread
  std::optional<Incoming> receiveOne();
  void write();                   // the writer's thread
  void fail(std::string const& error);
  void stopWriting();

  MPI_Comm const comm_;
  unsigned const maxQueued_;
  Merge const merge_;
  std::function<void()> const onFailure_;
  unsigned ranksShipping_ = 0;  // those that have not sent their end yet (MPI thread only)
  mutable std::mutex mutex_;
  std::condition_variable queued_, room_;
  std::deque<Incoming> queue_;
  unsigned reserved_ = 0;  // batches being copied or received, counted as queued
  bool finishing_ = false;
  WrittenBatches written_;
  std::thread thread_;
};

}  // namespace lanes::node
