#include "lanes/node/WorkerBoard.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "MonotonicClock.h"
#include "SharedMemory.h"
#include "lanes/core/Exception.h"

namespace lanes::node {

// Plain integers accessed through std::atomic_ref (the memfd's pages start
// zeroed), a cache line for the header and one per seat: the workers count
// events at full speed.
struct alignas(64) WorkerBoard::Header {
  std::uint32_t released;
};
struct alignas(64) WorkerBoard::Seat {
  std::uint64_t events;
  std::int64_t lastBeat;
  char lastWords[496];  // NUL-terminated; written only by the seat's dying worker
  CrashNote crash;      // likewise
};
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free && std::atomic_ref<std::int64_t>::is_always_lock_free &&
                  std::atomic_ref<std::uint32_t>::is_always_lock_free,
              "shared between processes, the atomics must be lock-free");

WorkerBoard::WorkerBoard(unsigned seats) : seats_(seats), bytes_(sizeof(Header) + seats * sizeof(Seat)) {
  fd_ = createSharedMemory("lanes-worker-board", bytes_, "the workers' board");
  memory_ = mapSharedMemory(fd_, bytes_, "the workers' board");
}

WorkerBoard::WorkerBoard(Descriptor descriptor) : fd_(descriptor.fd) {
  struct stat status {};
  if (::fstat(fd_, &status) != 0) systemError("cannot find the workers' board");
  bytes_ = static_cast<std::size_t>(status.st_size);
  seats_ = static_cast<unsigned>((bytes_ - std::min(bytes_, sizeof(Header))) / sizeof(Seat));
  memory_ = mapSharedMemory(fd_, bytes_, "the workers' board");
}

WorkerBoard::~WorkerBoard() {
  ::munmap(memory_, bytes_);
  ::close(fd_);
}

WorkerBoard::Header& WorkerBoard::header() const { return *static_cast<Header*>(memory_); }

WorkerBoard::Seat& WorkerBoard::seat(unsigned index) const {
  if (index >= seats_) throw Exception("multi-process job: no seat " + std::to_string(index) + " on the workers' board");
  return reinterpret_cast<Seat*>(static_cast<char*>(memory_) + sizeof(Header))[index];
}

void WorkerBoard::release() { std::atomic_ref<std::uint32_t>(header().released).store(1, std::memory_order_release); }

bool WorkerBoard::released() const {
  return std::atomic_ref<std::uint32_t>(header().released).load(std::memory_order_acquire) != 0;
}

void WorkerBoard::addEvent(unsigned index) {
  std::atomic_ref<std::uint64_t>(seat(index).events).fetch_add(1, std::memory_order_relaxed);
}

void WorkerBoard::beat(unsigned index) {
  std::atomic_ref<std::int64_t>(seat(index).lastBeat).store(monotonicNanoseconds(), std::memory_order_relaxed);
}

std::uint64_t WorkerBoard::events(unsigned index) const {
  return std::atomic_ref<std::uint64_t>(seat(index).events).load(std::memory_order_relaxed);
}

std::int64_t WorkerBoard::lastBeat(unsigned index) const {
  return std::atomic_ref<std::int64_t>(seat(index).lastBeat).load(std::memory_order_relaxed);
}

void WorkerBoard::reset(unsigned index) {
  std::atomic_ref<std::uint64_t>(seat(index).events).store(0, std::memory_order_relaxed);
  std::atomic_ref<std::int64_t>(seat(index).lastBeat).store(0, std::memory_order_relaxed);
  seat(index).lastWords[0] = '\0';
  seat(index).crash = CrashNote{};
}

// Read after the worker was reaped: its writes are complete.
std::string WorkerBoard::lastWords(unsigned index) const {
  auto const& words = seat(index).lastWords;
  return std::string(words, ::strnlen(words, sizeof words));
}

CrashNote WorkerBoard::crashNote(unsigned index) const { return seat(index).crash; }

LastWords WorkerBoard::lastWordsRoom(unsigned index) {
  return {seat(index).lastWords, sizeof(Seat::lastWords), &seat(index).crash};
}

namespace {
std::atomic<char*> lastWordsText{nullptr};
std::atomic<std::size_t> lastWordsSize{0};
std::atomic<CrashNote*> lastWordsCrash{nullptr};
}  // namespace

LastWords workerLastWords() noexcept {
  auto* text = lastWordsText.load(std::memory_order_acquire);
  if (!text) return {nullptr, 0, nullptr};
  return {text, lastWordsSize.load(std::memory_order_relaxed), lastWordsCrash.load(std::memory_order_relaxed)};
}

WorkerPresence::WorkerPresence(WorkerBoard& board, unsigned seat, std::chrono::milliseconds period)
    : board_(board), seat_(seat) {
  board_.beat(seat_);
  auto const room = board_.lastWordsRoom(seat_);
  lastWordsSize.store(room.size, std::memory_order_relaxed);
  lastWordsCrash.store(room.crash, std::memory_order_relaxed);
  lastWordsText.store(room.text, std::memory_order_release);
  thread_ = std::thread([this, period] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return closing_; })) board_.beat(seat_);
  });
}

WorkerPresence::~WorkerPresence() {
  lastWordsText.store(nullptr, std::memory_order_release);
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void WorkerPresence::eventFinished(unsigned, EventId const&, EventStatus status, Clock::time_point) {
  if (status == EventStatus::Done) board_.addEvent(seat_);
}

}  // namespace lanes::node
