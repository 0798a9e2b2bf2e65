#pragma once
// How the events of a multi-process job are shared among its workers: a
// queue of chunks in memory shared by every process, or a fixed round-robin.
// The queue also records which worker took each chunk, so that the events of
// a worker that died can be named and given to another.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lanes/core/EventDispenser.h"

namespace lanes::node {

enum class Distribution {
  Queue,       // workers take chunks of events from a shared queue as they become free
  RoundRobin,  // worker r of P takes events r, r+P, r+2P, ...
};

Distribution parseDistribution(std::string const& name);  // throws lanes::Exception
char const* toString(Distribution distribution);

// Ordinals [first, end): the parent's events before the fork.
class RangeDispenser : public EventDispenser {
 public:
  RangeDispenser(std::uint64_t first, std::uint64_t end) : next_(first), end_(end) {}
  std::optional<std::uint64_t> next() override;

 private:
  std::atomic<std::uint64_t> next_;
  std::uint64_t const end_;
};

// Ordinals first + worker, first + worker + workers, ...
class RoundRobinDispenser : public EventDispenser {
 public:
  RoundRobinDispenser(std::uint64_t first, unsigned worker, unsigned workers);
  std::optional<std::uint64_t> next() override;

 private:
  std::atomic<std::uint64_t> step_{0};
  std::uint64_t const first_;
  unsigned const workers_;
};

// The state the processes of one job share: a page-aligned block in a memfd,
// mapped by every process (inherited by a fork, passed by descriptor across
// an exec). Lock-free: its fields are accessed only atomically (lock-free
// atomics are address-free, so they work across processes).
class SharedEventQueue {
 public:
  static constexpr std::uint64_t kMaxChunks = std::uint64_t{1} << 20;

  // The parent's: a new block. Events start at ordinal `first`.
  SharedEventQueue(std::uint64_t first, std::uint64_t chunkSize);
  // A worker's, after an exec: the block behind descriptor `fd`.
  explicit SharedEventQueue(int fd);
  ~SharedEventQueue();
  SharedEventQueue(SharedEventQueue const&) = delete;
  SharedEventQueue& operator=(SharedEventQueue const&) = delete;

  int fd() const { return fd_; }
  std::uint64_t first() const;
  std::uint64_t chunkSize() const;

  // A new chunk for `worker`, or nothing once kMaxChunks were handed out
  // (the caller stops: an error, since the source did not end).
  std::optional<std::uint64_t> claimChunk(unsigned worker);
  // Hands the chunks `from` took over to `to` (a replacement for a dead
  // worker); returns them, in order.
  std::vector<std::uint64_t> reassign(unsigned from, unsigned to);
  // The chunks `worker` took, in order.
  std::vector<std::uint64_t> chunksOf(unsigned worker) const;
  // The chunks handed out so far.
  std::uint64_t chunksClaimed() const;

 private:
  struct Block;
  int fd_ = -1;
  Block* block_ = nullptr;
};

// Chunks from a SharedEventQueue: first `inherited` (a dead worker's, for
// its replacement), then new ones. Thread-safe: a mutex guards the current
// chunk (held for a few instructions per event).
class QueueDispenser : public EventDispenser {
 public:
  QueueDispenser(SharedEventQueue& queue, unsigned worker, std::vector<std::uint64_t> inherited = {});
  std::optional<std::uint64_t> next() override;
  // True if it stopped because the queue ran out of chunks.
  bool exhausted() const { return exhausted_; }

 private:
  SharedEventQueue& queue_;
  unsigned const worker_;
  std::mutex mutex_;
  std::vector<std::uint64_t> inherited_;
  std::size_t nextInherited_ = 0;
  std::uint64_t next_ = 0, end_ = 0;
  bool exhausted_ = false;
};

}  // namespace lanes::node
