#include "root/InputFiles.h"

#include <TClass.h>
#include <TFile.h>
#include <TKey.h>
#include <TList.h>
#include <TROOT.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <linux/magic.h>
#include <sys/vfs.h>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/JobFiles.h"
#include "lanes/core/OutputModule.h"
#include "lanes/core/ReadingNote.h"
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

void requireMatches(std::string const& key, std::vector<std::string> const& patterns,
                    std::vector<std::string> const& names, char const* what) {
  for (auto const& pattern : patterns) {
    auto matches = [&](std::string const& name) { return globMatch(pattern, name); };
    if (std::none_of(names.begin(), names.end(), matches)) {
      throw Exception(key + "=" + pattern + " matches no " + what + " (there are " + std::to_string(names.size()) +
                      ")");
    }
  }
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

bool localStorageType(long type) {
  constexpr long kZfs = 0x2fc12fc1;  // not in linux/magic.h: ZFS is not in the kernel's tree
  switch (static_cast<unsigned long>(type) & 0xffffffffUL) {
    case EXT4_SUPER_MAGIC:  // ext2 and ext3 too
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
    case kZfs:
    case TMPFS_MAGIC:
    case RAMFS_MAGIC:
    case OVERLAYFS_SUPER_MAGIC:
    case SQUASHFS_MAGIC: return true;
    default: return false;
  }
}

bool onLocalStorage(std::string const& path) {
  struct statfs filesystem {};
  return ::statfs(path.c_str(), &filesystem) == 0 && localStorageType(static_cast<long>(filesystem.f_type));
}

namespace {

// The files ROOT lists (and closes when the process exits), as pointers that
// are never followed.
std::vector<TObjLink const*> listedFiles() {
  std::vector<TObjLink const*> links;
  for (auto* link = static_cast<TList*>(gROOT->GetListOfFiles())->FirstLink(); link; link = link->Next()) {
    links.push_back(link);
  }
  return links;
}

// An exception out of TFile's constructor (a length that a damaged record
// states, too large to allocate) frees a file that had listed itself: it is
// taken off the list, unread, before the exit would close it.
void unlistFilesSince(std::vector<TObjLink const*> const& before) {
  auto* files = static_cast<TList*>(gROOT->GetListOfFiles());
  for (auto* link = files->FirstLink(); link;) {
    auto* next = link->Next();
    if (std::find(before.begin(), before.end(), link) == before.end()) files->Remove(link);
    link = next;
  }
}

}  // namespace

std::unique_ptr<TFile> openInputFile(std::string const& path) {
  initialiseRoot();
  requireReadable(path);
  takeRootMessage();
  std::unique_ptr<TFile> file;
  std::string why;
  auto const listed = listedFiles();
  try {
    ReadingScope const reading({path.c_str()});
    ThrowOnRootFatal const guard;
    file.reset(TFile::Open(path.c_str(), "READ"));
  } catch (Exception const& fatal) {
    why = fatal.message();
  } catch (std::exception const& error) {
    unlistFilesSince(listed);
    why = error.what();
  }
  if (!file || file->IsZombie()) {
    if (why.empty()) why = takeRootMessage();
    throw Exception("'" + path + "' is not a readable ROOT file" + (why.empty() ? "" : " (" + why + ")"));
  }
  if (file->TestBit(TFile::kRecovered)) {
    throw Exception("'" + path + "' is truncated or was not closed properly (ROOT had to recover it)");
  }
  return file;
}

std::string SkippedFiles::details() const {
  if (files_.empty()) return {};
  auto files = nlohmann::json::array();
  for (auto const& [path, error] : files_) files.push_back({{"file", path}, {"error", error}});
  return nlohmann::json{{"skipped_files", files}}.dump();
}

void* readObject(TFile& file, std::string const& name, TClass* cls, char const* kind) {
  takeRootMessage();
  std::string why;
  try {
    ReadingScope const reading({file.GetName(), kind, name.c_str()});
    ThrowOnRootFatal const guard;
    if (auto* object = file.GetObjectChecked(name.c_str(), cls)) return object;
    why = takeRootMessage();
  } catch (Exception const& fatal) {
    why = fatal.message();
  } catch (std::exception const& error) {  // RNTuple's anchor streamer throws RException (checksum mismatch)
    why = rootExceptionMessage(error);
  }
  auto* key = file.GetKey(name.c_str());
  if (!key) return nullptr;
  std::string const where = "'" + std::string(file.GetName()) + "': ";
  auto* stored = TClass::GetClass(key->GetClassName());
  if (!stored || !stored->InheritsFrom(cls)) {
    throw Exception(where + "'" + name + "' is of class " + key->GetClassName() + ", not " + cls->GetName());
  }
  throw Exception(where + "its " + kind + " '" + name + "' cannot be read (" +
                  (why.empty() ? "its metadata is corrupt" : why) + ")");
}

}  // namespace lanes::rootio
