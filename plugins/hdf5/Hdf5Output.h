#pragma once
// The `hdf5` output: the events in an HDF5 file (Hdf5Support.h has the
// layout), written `batch` events at a time. layout=columns stores numbers
// as typed datasets that h5py reads as they are (a scalar per event, or a
// std::vector's values with offsets) and every other product as a blob;
// layout=blobs stores every product as a blob. A blob is the bytes of the
// framework's serialisation (root/Serialization.h), with layout=blobs
// optionally compressed by the framework (codec/Codec.h): a frame per
// product per event, or per product per written batch. With parallel=true,
// the ranks of an MPI job write one file together (ParallelHdf5.h). The
// records of runs and lumis (Hdf5Records.h) are written at the end, and
// merged from every part by the process that merges them.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codec/Codec.h"
#include "hdf5/Hdf5Writer.h"
#include "lanes/core/EventId.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "root/BlockRecords.h"
#include "root/OutputSupport.h"
#include "root/Serialization.h"

namespace lanes::hdf5 {

// A `one` module: the framework serialises write(); the other calls run on
// the job's thread, but for productReady(), which serialises each blob as
// it becomes ready, concurrently, into its lane's slot of staged_ (a lane's
// calls for one product never overlap; write() reads the slot after them).
// compress=batch compresses a full batch's products in parallel, in the
// write() that fills it. writeLumi() and writeRun() keep the records in
// memory (OutputRecords). HDF5 calls hold lockLibrary().
class Hdf5Output : public one::Output {
 public:
  // Options: file=PATH (required), layout=columns|blobs (default columns),
  // batch=N (events per write, default 1000), chunk=BYTES (the largest chunk
  // of a dataset, default 1 MiB), deflate=0..9 (HDF5's deflate filter; 0,
  // the default, is none), serialization=root|unrolled (root), and for
  // layout=blobs compression=none|lz4|zstd (none; not with deflate=), level=,
  // compress=product|batch (batch; event and both do not apply: each product
  // is a dataset of its own), keep=GLOB, parallel=true|false (false; true:
  // only in an MPI job, with parallel HDF5).
  Hdf5Output(std::string label, Options const& options);
  ~Hdf5Output() override;

  void beginJob(JobContext const& context) override;
  bool wantsProductReady() const override { return true; }
  void productReady(Event const& event, ProductIndex product) const override;
  void write(Event const& event) override;
  void writeLumi(Lumi const& lumi) override { records_.writeLumi(lumi); }
  void writeRun(Run const& run) override { records_.writeRun(run); }
  void endJob() override;
  void abandon() override;
  void mergeParts(std::vector<std::string> const& parts) override;
  void discardParts(std::vector<std::string> const& parts) override;
  void writeTogether(ProcessGroup const& group) override;
  std::string details() const override;

 private:
  struct Product;
  // A blob productReady() serialised for write().
  struct Staged {
    EventId id;
    bool ready = false;
    std::vector<char> bytes;
  };
  Hdf5Output(std::string label, Options const& options, PluginOptions const& checked);

  // Appends `product` of `event` to the batch, taking a blob from `staged`
  // when productReady() made it.
  void add(Event const& event, Product& product, Staged& staged);
  // Appends the blob of `object`, a `product`, to `out`: serialised, and compressed if asked.
  void appendBlob(Product const& product, void const* object, std::vector<char>& out) const;
  // Writes the batch; the first makes the datasets, sized by it.
  void flush();
  // compress=batch: replaces each blob product's pending values by their frame.
  void compressBatch();
  BlobEncoding encoding() const;
  void makeDatasets();
  // Runs `write` (HDF5 calls, with the library locked); a failure fails the file.
  template <typename Write>
  void writing(Write write);
  void close();

  rootio::OutputFile file_;
  std::string layout_;
  rootio::SerializationKind serialization_;
  std::string compress_;
  codec::Compression compression_;
  std::uint64_t batch_;
  WriteSettings settings_;
  std::vector<Product> products_;
  std::vector<EventIdRecord> ids_;  // the batch's
  std::size_t idsDataset_ = 0;
  std::size_t batchEndsDataset_ = 0;  // compress=batch
  std::uint64_t batchEnd_ = 0;        // events written in whole batches
  bool datasetsMade_ = false;
  std::unique_ptr<Hdf5Writer> writer_;
  std::vector<int> productOf_;  // per product index: its entry in products_, or -1
  mutable std::vector<Staged> staged_;  // [lane * products_.size() + product]
  std::uint64_t written_ = 0;
  std::string together_;  // parallel=true: the job's file, which the ranks write together; else empty
  rootio::OutputRecords records_{*this};
};

}  // namespace lanes::hdf5
