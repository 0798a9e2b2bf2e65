#include "root/OutputSupport.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include <TFile.h>
#include <TFileMerger.h>
#include <TTree.h>

#include "lanes/core/Exception.h"
#include "lanes/core/PathClaim.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/TemporaryName.h"

namespace lanes::rootio {

EntryCounter treeEntries(std::string tree) {
  return [tree = std::move(tree)](std::string const& path) -> std::optional<std::uint64_t> {
    std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "READ"));
    // Shorter than its header says (ROOT then recovers what it can): some
    // write failed. Reading on would decompress truncated data.
    if (!file || file->IsZombie() || file->TestBit(TFile::kRecovered)) return std::nullopt;
    // Every output writes its tree, if only an empty one: a file without it lost it.
    auto* const found = file->Get<TTree>(tree.c_str());
    if (!found) return std::nullopt;
    return static_cast<std::uint64_t>(found->GetEntries());
  };
}

OutputFile::OutputFile(std::string path) : requested_(path), path_(std::move(path)) {
  namespace fs = std::filesystem;
  auto directory = fs::path(path_).parent_path();
  if (directory.empty()) directory = ".";
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    throw Exception("cannot write '" + path_ + "': directory '" + directory.string() + "' does not exist");
  }
  if (fs::is_directory(path_, error)) throw Exception("cannot write '" + path_ + "': it is a directory");
  // Next to the final name (so that the rename is atomic), unique per process.
  temporary_ = partialPath(path_, ::getpid());
  // Trying is the only sure test (permission bits do not bind root, a
  // read-only mount binds everyone): fail now rather than after the job.
  int const fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    throw Exception("cannot write '" + path_ + "' in directory '" + directory.string() + "': " + std::strerror(errno));
  }
  ::close(fd);
  ::unlink(temporary_.c_str());
}

void OutputFile::begin(std::string const& part) {
  discard();
  path_ = partPath(requested_, part);
  temporary_ = partialPath(path_, ::getpid());
  error_.clear();
  done_ = committed_ = replaced_ = false;
}

void OutputFile::mergeParts(std::vector<std::string> const& parts, int compression, EntryCounter const& entries,
                            Merge const& records) {
  auto const merge = [&](std::vector<std::string> const& files) {
    TFileMerger merger(false, false);
    merger.SetPrintLevel(0);
    takeRootMessage();
    // The parts' own compression: only then are their baskets copied as they
    // are rather than unzipped and compressed again.
    if (!merger.OutputFile(temporary_.c_str(), "RECREATE", compression)) fail(writeFailure(temporary_, takeRootMessage()));
    for (auto const& file : files) {
      if (!merger.AddFile(file.c_str(), false)) fail("cannot merge its part '" + file + "': " + takeRootMessage());
    }
    auto type = TFileMerger::kAll | TFileMerger::kRegular;
    if (records) {
      for (auto const* name : {kLumiRecords, kRunRecords}) merger.AddObjectNames(name);
      type |= TFileMerger::kSkipListed;
    }
    if (!merger.PartialMerge(type)) fail(writeFailure(temporary_, takeRootMessage()));
  };
  mergeParts(parts, entries, merge, records);
}

void OutputFile::mergeParts(std::vector<std::string> const& parts, EntryCounter const& entries, Merge const& merge,
                            Merge const& records) {
  begin("");
  try {
    mergeInto(parts, entries, merge, records);
  } catch (...) {
    discardParts(parts);  // a failed merge leaves no part behind either
    throw;
  }
  for (auto const& part : parts) std::filesystem::remove(partPath(requested_, part));
}

void OutputFile::mergeInto(std::vector<std::string> const& parts, EntryCounter const& entries, Merge const& merge,
                           Merge const& records) {
  std::vector<std::string> files, all;
  std::uint64_t total = 0;
  for (auto const& part : parts) {
    auto file = partPath(requested_, part);
    auto const count = entries(file);
    if (!count) fail("its part '" + file + "' cannot be read");
    total += *count;
    all.push_back(file);
    if (*count > 0) files.push_back(std::move(file));
  }
  if (files.empty() && !parts.empty()) {
    // All empty: the first, as it is (ROOT's RNTuple merger aborts on an
    // RNTuple without a cluster).
    std::error_code error;
    std::filesystem::rename(partPath(requested_, parts.front()), temporary_, error);
    if (error) fail(writeFailure(temporary_, error.message()));
    all.front() = temporary_;  // its records are read from where it went
  } else {
    merge(files);
  }
  if (records) {
    try {
      records(all);
    } catch (Exception const& error) {
      if (!error_.empty()) throw;  // records() failed the file itself
      fail(error.message());
    }
  }
  commit(total, entries);
}

void OutputFile::discardParts(std::vector<std::string> const& parts) {
  std::error_code ignored;
  for (auto const& part : parts) {
    auto const file = partPath(requested_, part);
    std::filesystem::remove(file, ignored);
    for (auto const& partial : partialsOf(file)) std::filesystem::remove(partial, ignored);
  }
}

void OutputFile::commit(std::optional<std::uint64_t> events, EntryCounter const& entries) {
  auto const found = entries(temporary_);
  if (!found) fail(writeFailure(temporary_, "it cannot be read back"));
  if (events && *found != *events) {
    fail(writeFailure(temporary_, "it reads back " + std::to_string(*found) + " of " + std::to_string(*events) + " entries"));
  }
  try {
    replaced_ = commitFile(temporary_, path_);
  } catch (Exception const& error) {
    discard();
    error_ = error.what();
    throw;
  }
  done_ = committed_ = true;
}

void OutputFile::fail(std::string const& cause) {
  discard();
  error_ = cause;
  throw Exception("cannot write '" + path_ + "': " + cause);
}

void OutputFile::discard() {
  if (done_) return;
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
  done_ = true;
}

std::string writeFailure(std::string const& path, std::string const& rootMessage) {
  int const fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
  if (fd < 0) return std::strerror(errno);
  // Growing the file by more than any write ROOT makes at once fails as its
  // write did, if the reason lasts.
  struct stat status {};
  int reason = ::fstat(fd, &status) == 0 ? ::posix_fallocate(fd, status.st_size, 1 << 20) : 0;
  if (reason == EINVAL || reason == EOPNOTSUPP) reason = 0;  // a file system that cannot tell
  ::close(fd);
  if (reason != 0) return std::strerror(reason);
  if (!rootMessage.empty()) return rootMessage.substr(0, rootMessage.find('\n'));
  return "it is incomplete";
}

std::vector<Column> columnsOf(Module const& output, ProductRegistry const& registry) {
  std::vector<Column> columns;
  for (auto const& consumed : output.consumed()) {
    if (std::find(std::begin(kIdColumns), std::end(kIdColumns), consumed.label) != std::end(kIdColumns)) continue;
    auto const& description = registry[consumed.index].description;
    columns.push_back({consumed.label, consumed.index,
                       rootTypeOf(consumed.label, description.type, description.typeName)});
  }
  return columns;
}

int compressionOption(PluginOptions const& options, char const* defaultAlgorithm) {
  auto const algorithm = options.choice("compression", defaultAlgorithm, {"zlib", "lz4", "zstd", "lzma"});
  auto const level = options.count("level", algorithm == "lz4" ? 4 : 5);
  if (level > 9) options.fail("level", "must be 0..9");
  return compressionSettings(algorithm, static_cast<int>(level));
}

std::string fileDetails(OutputFile const& file, std::uint64_t events) {
  std::error_code error;
  auto const bytes = file.committed() ? std::filesystem::file_size(file.path(), error) : 0;
  nlohmann::json details{{"file", file.path()},
                         {"committed", file.committed()},
                         {"events_written", file.committed() ? events : 0},
                         {"bytes", error ? 0 : bytes}};
  if (file.replaced()) details["replaced"] = true;
  if (!file.error().empty()) {
    details["failed"] = true;
    details["error"] = file.error();
  }
  return details.dump();
}

}  // namespace lanes::rootio
