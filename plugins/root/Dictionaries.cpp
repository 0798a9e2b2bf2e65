#include "root/Dictionaries.h"

#include <TClass.h>
#include <TFile.h>
#include <TList.h>
#include <TROOT.h>
#include <TStreamerInfo.h>
#include <TSystem.h>
#include <TVirtualCollectionProxy.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>

#include "lanes/core/Exception.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

namespace {

namespace fs = std::filesystem;

bool emulatedClass(TClass const* cls) { return cls && !cls->HasDictionary(); }

// The classes of the file's streamer information that have no dictionary
// here and are not collections: what MakeProject generates code for.
std::set<std::string> userClassesWithoutDictionary(TFile& file) {
  std::set<std::string> names;
  std::unique_ptr<TList> infos(file.GetStreamerInfoList());
  if (!infos) return names;
  for (auto* object : *infos) {
    auto* info = dynamic_cast<TStreamerInfo*>(object);
    if (!info) continue;  // the list of schema rules
    auto* cls = TClass::GetClass(info->GetName());
    if (emulatedClass(cls) && !cls->GetCollectionProxy()) names.insert(info->GetName());
  }
  return names;
}

// A directory name that changes whenever the classes do.
std::string cacheKey(std::set<std::string> const& userClasses, std::vector<std::string> const& emulated) {
  std::ostringstream text;
  for (auto const& name : userClasses) text << name << ':' << TClass::GetClass(name.c_str())->GetCheckSum() << ';';
  for (auto const& name : emulated) text << name << ';';
  std::ostringstream key;
  key << "lanes-dict-" << std::hex << std::hash<std::string>{}(text.str());
  return key.str();
}

[[noreturn]] void failed(TFile const& file, std::string const& what) {
  throw Exception("cannot build dictionaries for the classes of '" + std::string(file.GetName()) + "': " + what +
                  " (LANES_ROOT_VERBOSE=1 shows ROOT's messages)");
}

// MakeProject writes the classes' code and a build script, MAKEP, that runs
// rootcling (by name, hence PATH) and the compiler. Its code can declare a
// member named like its own type ("P3 P3;"), which GCC rejects unless
// -fpermissive, so the script is run here with that flag, output to a log.
void buildProject(TFile& file, fs::path const& project) {
  takeRootMessage();
  file.MakeProject(project.c_str(), "*", "RECREATE+nocompilation");
  auto const script = project / "MAKEP";
  std::ifstream in(script);
  if (!in) failed(file, "TFile::MakeProject wrote no build script: " + takeRootMessage());
  std::string commands((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto at = commands.find("c++ -fPIC"); at != std::string::npos; at = commands.find("c++ -fPIC", at + 1)) {
    commands.insert(at + 3, " -fpermissive");
  }
  std::ofstream(script) << commands;
  auto const log = project / "build.log";
  auto const command = "cd '" + project.string() + "' && PATH='" + gROOT->GetBinDir().Data() + "':\"$PATH\" sh MAKEP >'" +
                       log.string() + "' 2>&1";
  if (gSystem->Exec(command.c_str()) != 0) failed(file, "building the classes failed, see '" + log.string() + "'");
}

void loadProject(TFile& file, fs::path const& directory) {
  auto const project = directory / "project";
  auto const library = project / "project.so";
  if (!fs::exists(library)) buildProject(file, project);
  if (gSystem->Load(library.c_str()) < 0) failed(file, "cannot load '" + library.string() + "'");
}

// The header that declares `cls`: a MakeProject header for the file's own
// classes, else the one its dictionary names.
std::string headerOf(TClass* cls, fs::path const& project) {
  auto const generated = project / (std::string(cls->GetName()) + ".h");
  if (fs::exists(generated)) return generated.string();
  return cls->GetDeclFileName() ? cls->GetDeclFileName() : "";
}

void loadCollections(TFile& file, std::vector<TClass*> const& collections, fs::path const& directory) {
  auto const source = directory / "collections.cxx";
  if (!fs::exists(source)) {
    std::ostringstream code;
    code << "#include <vector>\n#include <list>\n#include <deque>\n#include <set>\n#include <map>\n";
    for (auto* cls : collections) {
      auto* value = cls->GetCollectionProxy()->GetValueClass();
      if (value) {
        auto const header = headerOf(value, directory / "project");
        if (!header.empty()) code << "#include \"" << header << "\"\n";
      }
    }
    code << "#ifdef __ROOTCLING__\n";
    for (auto* cls : collections) code << "#pragma link C++ class " << cls->GetName() << "+;\n";
    code << "#endif\n";
    std::ofstream(source) << code.str();
  }
  takeRootMessage();
  // ACLiC compiles only when the library is missing or older than the source.
  auto const library = directory / "collections";
  if (gSystem->CompileMacro(source.c_str(), "kO", library.c_str()) != 1) {
    failed(file, "ACLiC failed on '" + source.string() + "': " + takeRootMessage());
  }
}

}  // namespace

void loadDictionaries(TFile& file, std::vector<std::string> const& emulated, std::string const& cache) {
  initialiseRoot();
  auto const userClasses = userClassesWithoutDictionary(file);
  // Absolute: the build script runs in the project directory and logs to a path under it.
  auto const directory = fs::absolute(fs::path(cache)) / cacheKey(userClasses, emulated);
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) failed(file, "cannot create '" + directory.string() + "': " + error.message());

  if (!userClasses.empty()) loadProject(file, directory);
  std::vector<TClass*> collections;
  for (auto const& name : emulated) {
    auto* cls = TClass::GetClass(name.c_str());
    if (emulatedClass(cls) && cls->GetCollectionProxy()) collections.push_back(cls);
  }
  if (!collections.empty()) loadCollections(file, collections, directory);

  for (auto const& name : emulated) {
    if (emulatedClass(TClass::GetClass(name.c_str()))) failed(file, "still none for " + name);
  }
}

}  // namespace lanes::rootio
