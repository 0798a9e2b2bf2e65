#include "lanes/node/BatchRing.h"

#include <fcntl.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

[[noreturn]] void systemError(std::string const& what) {
  throw Exception("shared writer: " + what + ": " + std::strerror(errno));
}

std::size_t pageSize() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

std::size_t roundUp(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

}  // namespace

struct BatchRing::Header {
  sem_t freeSlots;  // process-shared
  std::uint32_t slots;
  std::uint64_t slotBytes;
  struct Slot {
    std::atomic<std::uint32_t> taken;  // 1 from a shipper's claim until the writer's release
    std::uint32_t output;
    std::int32_t sender;
    std::uint64_t size;
  } slot[kMaxSlots];
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "shared between processes, the atomics must be lock-free");

BatchRing::BatchRing(unsigned slots, std::size_t slotBytes) : owner_(true) {
  if (slots < 1 || slots > kMaxSlots) throw Exception("shared writer: " + std::to_string(slots) + " slots: must be 1.." + std::to_string(kMaxSlots));
  if (slotBytes < 1) throw Exception("shared writer: a slot must hold at least one byte");
  // Not close-on-exec: a worker started with exec (--no-fork) inherits it.
  memoryFd_ = ::memfd_create("lanes-batch-ring", 0);
  if (memoryFd_ < 0) systemError("cannot create the shared memory");
  dataOffset_ = roundUp(sizeof(Header), pageSize());
  auto const bytes = dataOffset_ + slots * roundUp(slotBytes, pageSize());
  if (::ftruncate(memoryFd_, static_cast<off_t>(bytes)) != 0) systemError("cannot size the shared memory");
  void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memoryFd_, 0);
  if (address == MAP_FAILED) systemError("cannot map the shared memory");
  header_ = new (address) Header;  // zero-filled pages: every slot free
  header_->slots = slots;
  header_->slotBytes = roundUp(slotBytes, pageSize());
  if (::sem_init(&header_->freeSlots, 1, slots) != 0) systemError("cannot create the slot semaphore");
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) systemError("cannot create the pipe");
  readyRead_ = ready[0];
  readyWrite_ = ready[1];
  if (::fcntl(readyRead_, F_SETFL, O_NONBLOCK) != 0) systemError("cannot make the pipe non-blocking");
}

BatchRing::BatchRing(Descriptors inherited) : memoryFd_(inherited.memoryFd), readyWrite_(inherited.readyFd) {
  dataOffset_ = roundUp(sizeof(Header), pageSize());
  void* header = ::mmap(nullptr, dataOffset_, PROT_READ, MAP_SHARED, memoryFd_, 0);
  if (header == MAP_FAILED) systemError("cannot map the shared memory");
  auto const bytes = dataOffset_ + static_cast<Header*>(header)->slots * static_cast<Header*>(header)->slotBytes;
  ::munmap(header, dataOffset_);
  void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memoryFd_, 0);
  if (address == MAP_FAILED) systemError("cannot map the shared memory");
  header_ = static_cast<Header*>(address);
}

BatchRing::~BatchRing() {
  if (header_) {
    if (owner_) ::sem_destroy(&header_->freeSlots);
    ::munmap(header_, mappedBytes());
  }
  for (int fd : {memoryFd_, readyRead_, readyWrite_}) {
    if (fd >= 0) ::close(fd);
  }
}

std::size_t BatchRing::mappedBytes() const { return dataOffset_ + header_->slots * header_->slotBytes; }

unsigned char* BatchRing::slotData(unsigned slot) const {
  return reinterpret_cast<unsigned char*>(header_) + dataOffset_ + slot * header_->slotBytes;
}

std::size_t BatchRing::maxBatchBytes() const { return header_->slotBytes; }

unsigned BatchRing::slots() const { return header_->slots; }

void BatchRing::ship(unsigned output, void const* bytes, std::size_t size) {
  if (size > header_->slotBytes) {
    throw Exception("shared writer: a batch of " + std::to_string(size) + " bytes does not fit a slot of " +
                    std::to_string(header_->slotBytes) + " bytes");
  }
  while (::sem_wait(&header_->freeSlots) != 0) {
    if (errno != EINTR) systemError("cannot wait for a free slot");
  }
  // The semaphore counted a free slot for this call: one is there to claim.
  std::uint32_t slot = 0;
  for (;; slot = (slot + 1) % header_->slots) {
    std::uint32_t expected = 0;
    if (header_->slot[slot].taken.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) break;
  }
  std::memcpy(slotData(slot), bytes, size);
  auto& entry = header_->slot[slot];
  entry.output = output;
  entry.sender = ::getpid();
  entry.size = size;
  // Four bytes: one atomic write, never short, never blocking (the pipe holds
  // every slot's number); the system call orders the stores above before it.
  while (::write(readyWrite_, &slot, sizeof slot) != sizeof slot) {
    if (errno != EINTR) systemError("cannot announce a batch to the writer");
  }
}

std::vector<BatchRing::Batch> BatchRing::takeReady() {
  std::vector<Batch> batches;
  std::uint32_t slots[64];
  while (true) {
    auto const n = ::read(readyRead_, slots, sizeof slots);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n <= 0) systemError("cannot read the announced batches");
    for (ssize_t k = 0; k < n / static_cast<ssize_t>(sizeof(std::uint32_t)); ++k) {
      auto const& entry = header_->slot[slots[k]];
      batches.push_back({slots[k], entry.output, entry.sender, slotData(slots[k]), entry.size});
    }
  }
  return batches;
}

void BatchRing::release(unsigned slot) {
  auto& entry = header_->slot[slot];
  auto const used = roundUp(entry.size, pageSize());
  auto const offset = static_cast<off_t>(dataOffset_ + slot * header_->slotBytes);
  if (used && ::fallocate(memoryFd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, static_cast<off_t>(used)) != 0) {
    systemError("cannot give a slot's memory back");
  }
  entry.taken.store(0, std::memory_order_release);
  if (::sem_post(&header_->freeSlots) != 0) systemError("cannot free a slot");
}

}  // namespace lanes::node
