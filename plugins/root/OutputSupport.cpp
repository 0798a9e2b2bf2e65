#include "root/OutputSupport.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include <TFileMerger.h>

#include "lanes/core/Exception.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/TemporaryName.h"

namespace lanes::rootio {

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
  done_ = committed_ = false;
}

void OutputFile::mergeParts(std::vector<std::string> const& parts, int compression,
                            std::function<bool(std::string const&)> const& isEmpty) {
  begin("");
  std::vector<std::string> files;
  for (auto const& part : parts) {
    auto file = partPath(requested_, part);
    if (!isEmpty || !isEmpty(file)) files.push_back(std::move(file));
  }
  if (files.empty() && !parts.empty()) files.push_back(partPath(requested_, parts.front()));  // all empty: any one
  TFileMerger merger(false, false);
  merger.SetPrintLevel(0);
  takeRootMessage();
  // The parts' own compression: only then are their baskets copied as they
  // are rather than unzipped and compressed again.
  if (!merger.OutputFile(temporary_.c_str(), "RECREATE", compression)) {
    throw Exception("cannot create '" + temporary_ + "': " + takeRootMessage());
  }
  for (auto const& file : files) {
    if (!merger.AddFile(file.c_str(), false)) throw Exception("cannot merge '" + file + "': " + takeRootMessage());
  }
  if (!merger.Merge()) throw Exception("cannot merge the parts of '" + requested_ + "': " + takeRootMessage());
  commit();
  for (auto const& part : parts) std::filesystem::remove(partPath(requested_, part));
}

void OutputFile::discardParts(std::vector<std::string> const& parts) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  for (auto const& part : parts) {
    auto const file = fs::path(partPath(requested_, part));
    fs::remove(file, ignored);
    auto const partial = file.filename().string() + ".partial-";
    auto directory = file.parent_path();
    if (directory.empty()) directory = ".";
    for (auto const& entry : fs::directory_iterator(directory, ignored)) {
      if (entry.path().filename().string().rfind(partial, 0) == 0) fs::remove(entry.path(), ignored);
    }
  }
}

void OutputFile::commit() {
  std::error_code error;
  std::filesystem::rename(temporary_, path_, error);
  if (error) throw Exception("cannot rename '" + temporary_ + "' to '" + path_ + "': " + error.message());
  done_ = committed_ = true;
}

void OutputFile::discard() {
  if (done_) return;
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
  done_ = true;
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

int compressionOption(PluginOptions const& options) {
  auto const algorithm = options.choice("compression", "zstd", {"zlib", "lz4", "zstd", "lzma"});
  auto const level = options.count("level", 5);
  if (level > 9) options.fail("level", "must be 0..9");
  return compressionSettings(algorithm, static_cast<int>(level));
}

std::string fileDetails(OutputFile const& file, std::uint64_t events) {
  std::error_code error;
  auto const bytes = file.committed() ? std::filesystem::file_size(file.path(), error) : 0;
  return nlohmann::json{{"file", file.path()},
                        {"committed", file.committed()},
                        {"events_written", file.committed() ? events : 0},
                        {"bytes", error ? 0 : bytes}}
      .dump();
}

}  // namespace lanes::rootio
