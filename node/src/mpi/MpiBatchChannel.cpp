#include "MpiBatchChannel.h"

#include <algorithm>
#include <optional>

#include "lanes/core/Exception.h"
#include "lanes/node/BatchRing.h"

namespace lanes::node {

namespace {

constexpr int kEndTag = 32767;  // the largest tag every MPI library takes

void check(int result, char const* what) {
  if (result != MPI_SUCCESS) throw Exception(std::string("shared writer: MPI cannot ") + what);
}

// The batches are the ones a BatchRing's slot takes, so that a job's
// outputs batch alike on one node and over MPI (and a count fits an int).
void checkSize(std::size_t size) {
  if (size > BatchRing::kDefaultSlotBytes) {
    throw Exception("shared writer: a batch of " + std::to_string(size) + " bytes is larger than the " +
                    std::to_string(BatchRing::kDefaultSlotBytes) + " an MPI message may carry");
  }
}

// The main thread's turn as the rank's MPI thread, once the agent has ended.
template <typename Done>
void progressUntil(MpiTraffic& traffic, Done done) {
  while (true) {
    traffic.progress();
    if (done()) return;
    std::this_thread::sleep_for(kMpiTrafficPoll);
  }
}

}  // namespace

MpiBatchSender::MpiBatchSender(MPI_Comm comm, unsigned maxInFlight) : comm_(comm), maxInFlight_(maxInFlight) {}

MpiBatchSender::~MpiBatchSender() = default;

std::size_t MpiBatchSender::maxBatchBytes() const { return BatchRing::kDefaultSlotBytes; }

void MpiBatchSender::ship(unsigned output, void const* bytes, std::size_t size) {
  checkSize(size);
  if (output >= kEndTag) throw Exception("shared writer: too many outputs for MPI tags");
  std::unique_lock lock(mutex_);
  if (inFlight_.size() + reserved_ >= maxInFlight_) {
    ++shipped_.waits;
    room_.wait(lock, [this] { return inFlight_.size() + reserved_ < maxInFlight_ || !error_.empty(); });
  }
  if (!error_.empty()) throw Exception(error_);
  ++reserved_;  // the copy, outside the lock, counts as in flight
  lock.unlock();
  auto const* data = static_cast<char const*>(bytes);
  Outgoing batch{output, std::vector<char>(data, data + size)};
  lock.lock();
  --reserved_;
  inFlight_.push_back(std::move(batch));
  ++shipped_.batches;
  shipped_.bytes += size;
}

void MpiBatchSender::progress() {
  std::lock_guard lock(mutex_);
  if (!error_.empty()) return;
  try {
    sendAndComplete();
  } catch (Exception const& error) {
    error_ = error.what();
    room_.notify_all();
  }
}

void MpiBatchSender::sendAndComplete() {
  for (auto batch = inFlight_.begin(); batch != inFlight_.end();) {
    // Synchronous: complete only once the writer has taken the message, so
    // that a writer that is behind holds the sender up.
    if (!batch->sent) {
      check(MPI_Issend(batch->bytes.data(), static_cast<int>(batch->bytes.size()), MPI_BYTE, 0,
                       static_cast<int>(batch->output), comm_, &batch->request),
            "send a batch");
      batch->sent = true;
    }
    int done = 0;
    check(MPI_Test(&batch->request, &done, MPI_STATUS_IGNORE), "complete a send");
    if (!done) {
      ++batch;
      continue;
    }
    batch = inFlight_.erase(batch);
    room_.notify_one();
  }
  // The end follows the last batch: the writer takes one rank's messages in order.
  if (ending_ && inFlight_.empty() && reserved_ == 0 && end_ == MPI_REQUEST_NULL && !ended_) {
    check(MPI_Issend(nullptr, 0, MPI_BYTE, 0, kEndTag, comm_, &end_), "send the end of the batches");
  }
  if (end_ != MPI_REQUEST_NULL) {
    int done = 0;
    check(MPI_Test(&end_, &done, MPI_STATUS_IGNORE), "complete the end of the batches");
    ended_ = done != 0;
  }
}

void MpiBatchSender::finish() {
  {
    std::lock_guard lock(mutex_);
    ending_ = true;
  }
  progressUntil(*this, [this] {
    std::lock_guard lock(mutex_);
    return ended_ || !error_.empty();
  });
  std::lock_guard lock(mutex_);
  if (!error_.empty()) throw Exception(error_);
}

ShippedBatches MpiBatchSender::shipped() const {
  std::lock_guard lock(mutex_);
  return shipped_;
}

MpiBatchWriter::MpiBatchWriter(MPI_Comm comm, unsigned maxQueued, Merge merge, std::function<void()> onFailure)
    : comm_(comm), maxQueued_(maxQueued), merge_(std::move(merge)), onFailure_(std::move(onFailure)) {
  int ranks = 1;
  check(MPI_Comm_size(comm_, &ranks), "count the ranks");
  ranksShipping_ = static_cast<unsigned>(ranks) - 1;
  written_.batches.assign(static_cast<std::size_t>(ranks), 0);
  written_.bytes.assign(static_cast<std::size_t>(ranks), 0);
  thread_ = std::thread([this] { write(); });
}

MpiBatchWriter::~MpiBatchWriter() { stopWriting(); }

std::size_t MpiBatchWriter::maxBatchBytes() const { return BatchRing::kDefaultSlotBytes; }

void MpiBatchWriter::ship(unsigned output, void const* bytes, std::size_t size) {
  checkSize(size);
  std::unique_lock lock(mutex_);
  if (!hasRoom()) {
    ++written_.own.waits;
    room_.wait(lock, [this] { return hasRoom(); });
  }
  ++reserved_;
  lock.unlock();
  auto const* data = static_cast<char const*>(bytes);
  Incoming batch{0, output, std::vector<char>(data, data + size)};
  lock.lock();
  --reserved_;
  ++written_.own.batches;
  written_.own.bytes += size;
  push(std::move(batch));
}

bool MpiBatchWriter::hasRoom() const { return queue_.size() + reserved_ < maxQueued_; }

void MpiBatchWriter::push(Incoming batch) {
  if (!written_.error.empty()) return;  // the writer has given up: dropped
  queue_.push_back(std::move(batch));
  written_.mostQueued = std::max(written_.mostQueued, queue_.size());
  queued_.notify_one();
}

void MpiBatchWriter::progress() {
  try {
    receive();
  } catch (Exception const& error) {
    fail(error.what());
    ranksShipping_ = 0;  // nothing more can come
  }
}

// Takes the messages that have come while there is room for them; the
// others wait unreceived, and so do their synchronous senders.
void MpiBatchWriter::receive() {
  while (ranksShipping_ > 0) {
    {
      std::lock_guard lock(mutex_);
      if (!hasRoom()) return;
      ++reserved_;
    }
    std::optional<Incoming> message;
    try {
      message = receiveOne();
    } catch (Exception const&) {
      std::lock_guard lock(mutex_);
      --reserved_;
      throw;
    }
    std::lock_guard lock(mutex_);
    --reserved_;
    if (!message) return;
    if (message->output == kEndTag) {
      --ranksShipping_;
    } else {
      push(std::move(*message));
    }
  }
}

std::optional<MpiBatchWriter::Incoming> MpiBatchWriter::receiveOne() {
  int found = 0;
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;
  check(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &found, &message, &status), "look for a batch");
  if (!found) return std::nullopt;
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "size a batch");
  Incoming batch{static_cast<unsigned>(status.MPI_SOURCE), static_cast<unsigned>(status.MPI_TAG),
                 std::vector<char>(static_cast<std::size_t>(count))};
  check(MPI_Mrecv(batch.bytes.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE), "receive a batch");
  return batch;
}

void MpiBatchWriter::write() {
  std::unique_lock lock(mutex_);
  while (true) {
    queued_.wait(lock, [this] { return !queue_.empty() || finishing_; });
    if (queue_.empty()) return;
    auto batch = std::move(queue_.front());
    queue_.pop_front();
    room_.notify_all();
    if (!written_.error.empty()) continue;
    lock.unlock();
    auto const begin = std::chrono::steady_clock::now();
    std::string error;
    try {
      merge_(batch.output, batch.bytes.data(), batch.bytes.size());
    } catch (std::exception const& failure) {
      error = "a batch from rank " + std::to_string(batch.rank) + ": " + failure.what();
    }
    auto const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    lock.lock();
    written_.mergeSeconds += seconds;
    if (!error.empty()) {
      lock.unlock();
      fail(error);
      lock.lock();
      continue;
    }
    ++written_.batches.at(batch.rank);
    written_.bytes.at(batch.rank) += batch.bytes.size();
  }
}

void MpiBatchWriter::fail(std::string const& error) {
  {
    std::lock_guard lock(mutex_);
    if (!written_.error.empty()) return;
    written_.error = error;
    queue_.clear();
    room_.notify_all();
  }
  onFailure_();
}

void MpiBatchWriter::finish() {
  progressUntil(*this, [this] { return ranksShipping_ == 0; });
  stopWriting();
}

void MpiBatchWriter::stopWriting() {
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return;
    finishing_ = true;
  }
  queued_.notify_all();
  thread_.join();
}

WrittenBatches MpiBatchWriter::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

}  // namespace lanes::node
