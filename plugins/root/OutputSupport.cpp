#include "root/OutputSupport.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes::rootio {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  auto directory = fs::path(path_).parent_path();
  if (directory.empty()) directory = ".";
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    throw Exception("cannot write '" + path_ + "': directory '" + directory.string() + "' does not exist");
  }
  if (fs::is_directory(path_, error)) throw Exception("cannot write '" + path_ + "': it is a directory");
  // Next to the final name (so that the rename is atomic), unique per process.
  temporary_ = path_ + ".partial-" + std::to_string(::getpid());
  // Trying is the only sure test (permission bits do not bind root, a
  // read-only mount binds everyone): fail now rather than after the job.
  int const fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    throw Exception("cannot write '" + path_ + "' in directory '" + directory.string() + "': " + std::strerror(errno));
  }
  ::close(fd);
  ::unlink(temporary_.c_str());
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
