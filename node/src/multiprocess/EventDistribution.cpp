#include "lanes/node/EventDistribution.h"

#include <sys/mman.h>
#include <unistd.h>


#include "SharedMemory.h"
#include "lanes/core/Exception.h"

namespace lanes::node {

Distribution parseDistribution(std::string const& name) {
  if (name == "queue") return Distribution::Queue;
  if (name == "round-robin") return Distribution::RoundRobin;
  throw Exception("--distribution must be 'queue' or 'round-robin', not '" + name + "'");
}

char const* toString(Distribution distribution) {
  return distribution == Distribution::Queue ? "queue" : "round-robin";
}

std::optional<std::uint64_t> RangeDispenser::next() {
  auto const ordinal = next_.fetch_add(1, std::memory_order_relaxed);
  if (ordinal >= end_) return std::nullopt;
  return ordinal;
}

RoundRobinDispenser::RoundRobinDispenser(std::uint64_t first, unsigned worker, unsigned workers)
    : first_(first + worker), workers_(workers) {}

std::optional<std::uint64_t> RoundRobinDispenser::next() {
  return first_ + step_.fetch_add(1, std::memory_order_relaxed) * workers_;
}

// ---------------------------------------------------------------- queue

// Plain integers accessed through std::atomic_ref: the memfd's pages start
// zeroed, and constructing atomics would write (so make resident) every page
// of the sparse owner table.
struct SharedEventQueue::Block {
  std::uint64_t first;
  std::uint64_t chunkSize;
  std::uint64_t nextChunk;
  // Who took chunk c: worker index + 1; 0 while nobody has.
  std::uint32_t owner[kMaxChunks];
};
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free && std::atomic_ref<std::uint32_t>::is_always_lock_free,
              "shared between processes, the atomics must be lock-free");

namespace {

std::atomic_ref<std::uint64_t> atomically(std::uint64_t& value) { return std::atomic_ref<std::uint64_t>(value); }
std::atomic_ref<std::uint32_t> atomically(std::uint32_t& value) { return std::atomic_ref<std::uint32_t>(value); }

}  // namespace

SharedEventQueue::SharedEventQueue(std::uint64_t first, std::uint64_t chunkSize) {
  // The owner table is sparse: only the pages of chunks handed out are touched.
  fd_ = createSharedMemory("lanes-event-queue", sizeof(Block), "the shared event queue");
  block_ = static_cast<Block*>(mapSharedMemory(fd_, sizeof(Block), "the shared event queue"));  // zero-filled pages: owners 0
  block_->first = first;
  block_->chunkSize = chunkSize;
}

SharedEventQueue::SharedEventQueue(int fd)
    : fd_(fd), block_(static_cast<Block*>(mapSharedMemory(fd, sizeof(Block), "the shared event queue"))) {}

SharedEventQueue::~SharedEventQueue() {
  ::munmap(block_, sizeof(Block));
  ::close(fd_);
}

std::uint64_t SharedEventQueue::first() const { return block_->first; }
std::uint64_t SharedEventQueue::chunkSize() const { return block_->chunkSize; }

std::optional<std::uint64_t> SharedEventQueue::claimChunk(unsigned worker) {
  auto const chunk = atomically(block_->nextChunk).fetch_add(1, std::memory_order_relaxed);
  if (chunk >= kMaxChunks) return std::nullopt;
  atomically(block_->owner[chunk]).store(worker + 1, std::memory_order_release);
  return chunk;
}

std::vector<std::uint64_t> SharedEventQueue::reassign(unsigned from, unsigned to) {
  auto chunks = chunksOf(from);
  for (auto chunk : chunks) atomically(block_->owner[chunk]).store(to + 1, std::memory_order_release);
  return chunks;
}

std::vector<std::uint64_t> SharedEventQueue::chunksOf(unsigned worker) const {
  std::vector<std::uint64_t> chunks;
  for (std::uint64_t chunk = 0, n = chunksClaimed(); chunk < n; ++chunk) {
    if (atomically(block_->owner[chunk]).load(std::memory_order_acquire) == worker + 1) chunks.push_back(chunk);
  }
  return chunks;
}

std::uint64_t SharedEventQueue::chunksClaimed() const {
  return std::min(atomically(block_->nextChunk).load(std::memory_order_acquire), kMaxChunks);
}

QueueDispenser::QueueDispenser(SharedEventQueue& queue, unsigned worker, std::vector<std::uint64_t> inherited)
    : queue_(queue), worker_(worker), inherited_(std::move(inherited)) {}

std::optional<std::uint64_t> QueueDispenser::next() {
  std::lock_guard lock(mutex_);
  if (next_ == end_) {
    std::optional<std::uint64_t> chunk;
    if (nextInherited_ < inherited_.size()) {
      chunk = inherited_[nextInherited_++];
    } else {
      chunk = queue_.claimChunk(worker_);
      exhausted_ = !chunk;
    }
    if (!chunk) return std::nullopt;
    next_ = queue_.first() + *chunk * queue_.chunkSize();
    end_ = next_ + queue_.chunkSize();
  }
  return next_++;
}

}  // namespace lanes::node
