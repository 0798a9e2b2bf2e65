#pragma once
// The channel of a shared-writer multi-process job: the workers' outputs ship
// serialised batches of events into slots of shared memory, and the parent,
// the one writer, merges each into the output file as it arrives.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lanes/core/BatchSink.h"

namespace lanes::node {

// Process-safe and thread-safe for ship(): any thread of any process that
// maps the ring may ship at any time. takeReady() and release() are the
// writer's, called from one thread of one process.
//
// `slots` slots of `slotBytes` each in a memfd, mapped MAP_SHARED by every
// process of the job (inherited by a fork, passed by descriptor across an
// exec). The memfd is sparse: only the bytes of a batch take memory, and
// release() gives a slot's pages back, so the ring holds at most
// slots x slotBytes. A process-shared semaphore counts the free slots: ship()
// blocks on it while every slot holds a batch the writer has not merged yet
// (back-pressure: the writer is behind), then claims a free slot, copies the
// batch in and writes the slot's number to a pipe, whose read end the
// writer polls. A process that dies in ship() keeps the slot it claimed; the
// job fails then anyway.
class BatchRing : public BatchSink {
 public:
  static constexpr std::size_t kDefaultSlotBytes = std::size_t{64} << 20;
  static constexpr unsigned kMaxSlots = 1024;  // the pipe holds every slot's number at once

  // The parent's: a new ring. Throws lanes::Exception.
  BatchRing(unsigned slots, std::size_t slotBytes);
  // A worker's, after an exec: the ring behind `memoryFd`, shipping through
  // the write end `readyFd` of its pipe. Takes both descriptors over.
  struct Descriptors {
    int memoryFd;
    int readyFd;
  };
  explicit BatchRing(Descriptors inherited);
  ~BatchRing() override;
  BatchRing(BatchRing const&) = delete;
  BatchRing& operator=(BatchRing const&) = delete;

  // Kept across an exec; -1 in a worker's ring for the read end.
  int memoryFd() const { return memoryFd_; }
  int readyWriteFd() const { return readyWrite_; }
  // The writer polls it: readable when a batch is ready.
  int readyReadFd() const { return readyRead_; }

  std::size_t maxBatchBytes() const override;
  unsigned slots() const;
  void ship(unsigned output, void const* bytes, std::size_t size) override;

  struct Batch {
    unsigned slot;
    unsigned output;   // as BatchSink::ship() numbers them
    pid_t sender;
    void const* bytes;  // valid until release(slot)
    std::size_t size;
  };
  // The batches shipped and not taken yet, in the order their shippers
  // announced them; returns at once (empty if none).
  std::vector<Batch> takeReady();
  // The writer is done with the slot: its pages are given back, and a
  // shipper may take it.
  void release(unsigned slot);

 private:
  struct Header;
  std::size_t mappedBytes() const;
  unsigned char* slotData(unsigned slot) const;

  int memoryFd_ = -1;
  int readyRead_ = -1;
  int readyWrite_ = -1;
  bool owner_ = false;  // the parent's: destroys the semaphore
  Header* header_ = nullptr;
  std::size_t dataOffset_ = 0;
};

}  // namespace lanes::node
