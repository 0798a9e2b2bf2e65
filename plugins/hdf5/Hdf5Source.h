#pragma once
// The `hdf5` source: the events of a file the `hdf5` output wrote, either
// layout, every product of it read back as the type the original had (the
// `type` attribute of its group), each only when consumed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hdf5/Hdf5Support.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/Source.h"

namespace lanes::hdf5 {

// Shared use only: externally synchronised by the scheduler's serial source
// queue. HDF5 calls hold lockLibrary(). Each product is read `batch` events
// at a time into a window of its own.
class Hdf5Source : public Source {
 public:
  // Options: file=PATH (required), batch=N (events read at a time, default 1000).
  explicit Hdf5Source(Options const& options);
  ~Hdf5Source() override;

  bool next(SourceEvent& event) override;
  bool skip(std::uint64_t count) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  std::optional<std::uint64_t> eventCount() const override { return events_; }
  std::string origin() const override { return path_; }

 private:
  struct Product;
  Hdf5Source(Options const& options, PluginOptions const& checked);

  void open();
  void openProduct(hid_t products, std::string const& label);
  // Reads `product`'s window of events from `entry` on.
  void load(Product& product, std::uint64_t entry);
  // Reads the end offsets of events [first, last) of `product` and checks them.
  void loadOffsets(Product& product, std::uint64_t first, std::uint64_t last);
  [[noreturn]] void fail(std::string const& problem) const;

  std::string path_;
  std::uint64_t batch_;
  std::string layout_;
  Id file_;
  Id ids_;
  std::uint64_t events_ = 0;
  std::uint64_t next_ = 0;
  std::vector<EventIdRecord> idWindow_;
  std::uint64_t idFirst_ = 0;
  std::vector<Product> products_;
};

}  // namespace lanes::hdf5
