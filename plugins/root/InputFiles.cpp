#include "root/InputFiles.h"

#include <TFile.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "lanes/core/Exception.h"
#include "lanes/core/JobFiles.h"
#include "lanes/core/OutputModule.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

std::vector<std::string> inputFiles(PluginOptions const& options) {
  auto files = options.raw().getAll("file");
  if (auto list = options.raw().getString("files")) {
    auto const listed = options.forOption("files", [&] { return readFileList(*list); });
    files.insert(files.end(), listed.begin(), listed.end());
  }
  if (files.empty()) options.fail("file", "no input: give file=PATH (repeatable) or files=LIST");
  return files;
}

bool selectedName(std::string const& name, std::vector<std::string> const& include,
                  std::vector<std::string> const& exclude) {
  auto matches = [&](std::string const& pattern) { return globMatch(pattern, name); };
  bool const included = include.empty() || std::any_of(include.begin(), include.end(), matches);
  return included && std::none_of(exclude.begin(), exclude.end(), matches);
}

void requireReadable(std::string const& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw Exception("file '" + path + "' does not exist");
  if (std::filesystem::is_directory(path, error)) throw Exception("'" + path + "' is a directory, not a ROOT file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Exception("cannot read file '" + path + "' (permission denied?)");
  char magic[4] = {};
  if (!in.read(magic, sizeof magic) || std::string(magic, sizeof magic) != "root") {
    throw Exception("'" + path + "' is not a readable ROOT file (it does not start with \"root\")");
  }
}

std::unique_ptr<TFile> openInputFile(std::string const& path) {
  initialiseRoot();
  requireReadable(path);
  takeRootMessage();
  std::unique_ptr<TFile> file(TFile::Open(path.c_str(), "READ"));
  if (!file || file->IsZombie()) {
    auto const why = takeRootMessage();
    throw Exception("'" + path + "' is not a readable ROOT file" + (why.empty() ? "" : " (" + why + ")"));
  }
  if (file->TestBit(TFile::kRecovered)) {
    throw Exception("'" + path + "' is truncated or was not closed properly (ROOT had to recover it)");
  }
  return file;
}

}  // namespace lanes::rootio
