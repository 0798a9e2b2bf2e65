#pragma once
// The `pds` source: reads a file the `pds` output wrote. With one shared
// handle (handles=shared, the default) the scheduler's source queue reads
// each record and checks its checksum; opening the batch, event and product
// frames and deserialising each product run concurrently, in the lanes that
// read them. With handles=lane every lane reads records through a handle of
// its own, taking a record's events at a time. Its runs and lumis come from
// the records' ids, and their records are read back as run and lumi
// products (root/InputBlocks.h): both read as the file is opened.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/Source.h"
#include "pds/PdsFormat.h"
#include "root/BlobReader.h"

namespace lanes::pds {

// Shared use: externally synchronised by the scheduler's serial source
// queue: next() and skip() read the file. read() may run concurrently with
// itself and with next() (concurrentReads()): it touches only its event's
// record, which next() made and frees only when the lane that held it asks
// for its next event, and the record's batch, whose frame is opened once.
// Object products are read into the lane's objects, which the lane's next
// record takes over (ReusedObjects). Replicated use (handles=lane): each copy is lane-confined, with a handle of
// its own; the layout the copies share is immutable.
class PdsSource : public Source {
 public:
  // Options: file=PATH (required), handles=shared|lane, chunk=N (handles=lane:
  // events a lane takes at a time; default: the first record's).
  explicit PdsSource(Options const& options);
  ~PdsSource() override;

  bool next(SourceEvent& event) override;
  bool skip(std::uint64_t count) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  bool concurrentReads() const override { return true; }
  std::unique_ptr<Source> replicate() const override;
  std::unique_ptr<Source> lookAhead() const override;
  bool at(std::uint64_t ordinal, SourceEvent& event) override;
  std::uint64_t replicaChunk() const override;
  std::optional<std::uint64_t> eventCount() const override;
  std::string origin() const override;
  std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) override;
  void readRun(std::uint32_t run, ProductSlot* slots) override;
  void readLumi(LumiNumber lumi, ProductSlot* slots) override;

 private:
  struct Layout;
  PdsSource(Options const& options, PluginOptions const& checked);
  explicit PdsSource(std::shared_ptr<Layout const> layout);

  void declareProducts();
  // Positions `event` on the event of `ordinal`; false past the last.
  bool position(std::uint64_t ordinal, SourceEvent& event);
  // The event record that holds the event of `ordinal` (< the file's events).
  std::size_t recordOf(std::uint64_t ordinal) const;
  std::shared_ptr<rootio::StoredBatch> load(std::size_t record);

  std::shared_ptr<Layout const> layout_;
  std::unique_ptr<PdsFile> file_;  // this copy's handle
  std::uint64_t next_ = 0;         // shared use: the next event's ordinal
  std::shared_ptr<rootio::StoredBatch> loaded_;
  rootio::HeldEvents<rootio::StoredEvent> events_;
};

}  // namespace lanes::pds
