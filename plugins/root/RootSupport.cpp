#include "root/RootSupport.h"

#include <Bytes.h>
#include <TBuffer.h>
#include <TClass.h>
#include <TError.h>
#include <RVersion.h>
#include <TROOT.h>
#include <TStreamerElement.h>
#include <TSystem.h>
#include <TVirtualCollectionProxy.h>
#include <TVirtualStreamerInfo.h>

#include <Compression.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <mutex>
#include <set>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lanes/core/Exception.h"
#include "lanes/core/LibraryVersions.h"
#include "lanes/core/StartupMarks.h"
#include "root/EmulatedRecord.h"
#include "root/StartupProbes.h"

namespace lanes::rootio {

namespace {

thread_local std::string lastRootMessage;
thread_local int lastRootLevel = 0;  // of lastRootMessage
thread_local int fatalGuards = 0;  // ThrowOnRootFatal objects alive on this thread

// ROOT's messages would otherwise go to stderr in ROOT's own format; lanes
// reports one line per failure, so they are kept for the exception that
// follows. LANES_ROOT_VERBOSE=1 prints them as well. ROOT calls this
// directly from Fatal() and friends, holding no lock of its own, so a throw
// from here unwinds only the frames of the ROOT call that failed.
void keepRootMessage(int level, Bool_t abort, char const* location, char const* message) {
  if (level >= kError) ++detail::rootErrors;
  if (level >= kWarning && (lastRootMessage.empty() || level >= lastRootLevel)) {
    lastRootMessage = std::string(location) + ": " + message;
    lastRootLevel = level;
  }
  if (abort && fatalGuards > 0) {
    lastRootMessage.clear();
    throw Exception("ROOT fatal error" + (*location ? " in " + std::string(location) : std::string()) + ": " + message);
  }

  static bool const verbose = std::getenv("LANES_ROOT_VERBOSE") != nullptr;
  if (verbose || abort) DefaultErrorHandler(level, abort, location, message);
}

template <typename T>
void putScalar(void const* from, ProductSlot& slot, std::size_t bytes) {
  T value;
  std::memcpy(&value, from, sizeof value);
  slot.emplace(value, bytes);
}

// The type ROOT's frombuf() reads a T as: the same but for the 64-bit
// integers, which ROOT spells long long where std::int64_t is a long.
template <typename T>
using RootScalar = std::conditional_t<std::is_same_v<T, std::int64_t>, Long64_t,
                                      std::conditional_t<std::is_same_v<T, std::uint64_t>, ULong64_t, T>>;

template <typename T>
void putStored(char const* from, ProductSlot& slot, std::size_t bytes) {
  RootScalar<T> value;
  auto* cursor = const_cast<char*>(from);  // frombuf() moves it past the value, reading only
  frombuf(cursor, &value);
  slot.emplace(static_cast<T>(value), bytes);
}

template <typename T>
void* newArray(void const* from, std::size_t n) {
  auto const* first = static_cast<T const*>(from);
  return new std::vector<T>(first, first + n);
}

template <typename T>
void deleteArray(void* array, void*) {
  delete static_cast<std::vector<T>*>(array);
}

template <typename T>
void assignArray(void* array, void const* from, std::size_t n) {
  auto const* first = static_cast<T const*>(from);
  static_cast<std::vector<T>*>(array)->assign(first, first + n);
}

template <typename T>
void swapArrays(void* a, void* b) {
  static_cast<std::vector<T>*>(a)->swap(*static_cast<std::vector<T>*>(b));
}

template <typename T>
void assignStored(void* array, char const* from, std::size_t n) {
  auto& elements = *static_cast<std::vector<T>*>(array);
  if constexpr (sizeof(T) == 1) {
    // One byte a value, no byte order: assigned as a range, which a
    // std::vector<bool> packs far faster than bit by bit.
    auto const* bytes = reinterpret_cast<unsigned char const*>(from);
    elements.assign(bytes, bytes + n);
  } else {
    elements.resize(n);
    auto* cursor = const_cast<char*>(from);  // frombuf() moves it past each value, reading only
    for (std::size_t i = 0; i < n; ++i) {
      RootScalar<T> value;
      frombuf(cursor, &value);
      elements[i] = static_cast<T>(value);
    }
  }
}

template <typename T>
bool touchArray(void const* array) {
  auto const& elements = *static_cast<std::vector<T> const*>(array);
  return !elements.empty() && elements.front() != T{};
}

template <typename T>
void stream(TBuffer& buffer, void const* scalar) {
  buffer.WriteFastArray(static_cast<T const*>(scalar), 1);
}

template <typename T>
void unstream(TBuffer& buffer, void* scalar) {
  buffer.ReadFastArray(static_cast<T*>(scalar), 1);
}

template <typename T>
Fundamental fundamental(char leafCode, char const* rootName, char const* ntupleName) {
  return {typeid(T), typeid(std::vector<T>), sizeof(T),       leafCode,         rootName,
          ntupleName, &putScalar<T>,         &putStored<T>, &newArray<T>, &deleteArray<T>, &assignArray<T>, &assignStored<T>, &swapArrays<T>, &touchArray<T>, &stream<T>, &unstream<T>};
}

// 64-bit integers are std::int64_t/std::uint64_t products (what analysis code
// names), stored as ROOT's Long64_t/ULong64_t, which have the same layout.
std::vector<Fundamental> const& fundamentals() {
  static std::vector<Fundamental> const table{
      fundamental<bool>('O', "Bool_t", "bool"),
      fundamental<char>('B', "Char_t", "char"),
      fundamental<std::uint8_t>('b', "UChar_t", "std::uint8_t"),
      fundamental<std::int16_t>('S', "Short_t", "std::int16_t"),
      fundamental<std::uint16_t>('s', "UShort_t", "std::uint16_t"),
      fundamental<std::int32_t>('I', "Int_t", "std::int32_t"),
      fundamental<std::uint32_t>('i', "UInt_t", "std::uint32_t"),
      fundamental<std::int64_t>('L', "Long64_t", "std::int64_t"),
      fundamental<std::uint64_t>('l', "ULong64_t", "std::uint64_t"),
      fundamental<float>('F', "Float_t", "float"),
      fundamental<double>('D', "Double_t", "double"),
  };
  return table;
}

void destroyWithClass(void* object, void* cls) { static_cast<TClass*>(cls)->Destructor(object); }

// Loading ROOT's libraries creates gROOT, which installs handlers for
// SIGSEGV, SIGALRM, SIGPIPE, ... (a crash then runs gdb for a stack trace; an
// alarm is swallowed). lanes keeps each signal's default meaning: a crash is
// reported by whoever waits for the process, and SIGINT/SIGTERM are the
// command's own (cli/SignalStop). Runs when this library is loaded.
struct DefaultSignals {
  DefaultSignals() {
    if (gSystem) gSystem->ResetSignals();
  }
} const defaultSignals;

// Every report's provenance names the ROOT release these plugins were built
// against, which is the one they run with (the project's wheel).
RegisterLibraryVersion const rootVersion("root_version", [] { return std::string(ROOT_RELEASE); });

bool allDirectories(std::initializer_list<char const*> paths) {
  std::error_code error;
  auto const isDirectory = [&error](char const* path) { return std::filesystem::is_directory(path, error); };
  return paths.size() > 0 && std::all_of(paths.begin(), paths.end(), isDirectory);
}

// ROOT's interpreter, as it starts, runs child processes to learn what the
// machine already told CMake: `LD_DEBUG=libs ls` twice (the dynamic linker's
// system search path, once for TSystem and once for cling) and
// `c++ -xc++ -E -v /dev/null` through sed (the C++ standard library's include
// directories): 7-9 ms of the 0.2 s that a job on a NanoAOD file takes to
// its first event, in ROOT alone as in lanes (bench/startup.py). Since 6.38 ROOT takes the answers
// from ROOT_LDSYSPATH, CLING_LDSYSPATH and CLING_CPPSYSINCL instead (its
// release notes' "expert option to reduce static startup cost");
// cmake/RootStartupProbes.cmake asked the same questions once, as lanes was
// configured. A variable the user set is left as it is, and include
// directories that are gone (a compiler upgraded since) are not given, so
// that cling asks the compiler itself. Called from initialiseRoot(), before
// ROOT's interpreter starts, as a job's sources and outputs are built and
// before its threads run (setenv() must not race a getenv()).
void answerStartupProbes() {
  if (!std::string_view(LANES_LD_SYSTEM_PATH).empty()) {
    ::setenv("ROOT_LDSYSPATH", LANES_LD_SYSTEM_PATH, 0);
    ::setenv("CLING_LDSYSPATH", LANES_LD_SYSTEM_PATH, 0);
  }
  if (allDirectories({LANES_CXX_STDLIB_INCLUDE_DIRS})) ::setenv("CLING_CPPSYSINCL", LANES_CXX_STDLIB_INCLUDES, 0);
}

}  // namespace

void initialiseRoot() {
  static std::once_flag once;
  std::call_once(once, [] {
    answerStartupProbes();
    ROOT::EnableThreadSafety();
    SetErrorHandler(&keepRootMessage);
    gROOT->SetBatch(true);
    gSystem->ResetSignals();  // in case gROOT was made only now (see DefaultSignals)
    markStartup("root");
  });
}

namespace {
std::mutex implicitMTLock;
unsigned implicitMTHolders = 0;  // under implicitMTLock
bool implicitMTOurs = false;     // whether the holders turned IMT on; under implicitMTLock
}  // namespace

JobImplicitMT::JobImplicitMT() {
  std::lock_guard const lock(implicitMTLock);
  if (implicitMTHolders++ == 0 && !ROOT::IsImplicitMTEnabled()) {
    ROOT::EnableImplicitMT(ROOT::EIMTConfig::kExistingTBBArena);
    implicitMTOurs = true;
  }
}

JobImplicitMT::~JobImplicitMT() {
  std::lock_guard const lock(implicitMTLock);
  if (--implicitMTHolders == 0 && implicitMTOurs) {
    ROOT::DisableImplicitMT();
    implicitMTOurs = false;
  }
}

ThrowOnRootFatal::ThrowOnRootFatal() { ++fatalGuards; }

ThrowOnRootFatal::~ThrowOnRootFatal() { --fatalGuards; }

std::string takeRootMessage() { return std::exchange(lastRootMessage, {}); }

namespace {

// emulationProblem() of `cls`, and of the classes it holds, skipping those in `seen`.
std::string probeEmulation(TClass* cls, std::set<TClass*>& seen) {
  if (!cls || cls->HasDictionary() || !seen.insert(cls).second) return {};
  try {
    ThrowOnRootFatal const guard;
    if (auto* object = cls->New()) cls->Destructor(object);
  } catch (Exception const& fatal) {
    return fatal.message();
  }
  // A collection's elements, and objects behind pointers, are made only as
  // they are read.
  if (auto* proxy = cls->GetCollectionProxy()) return probeEmulation(proxy->GetValueClass(), seen);
  auto* info = cls->GetStreamerInfo();
  if (!info || !info->GetElements()) return {};
  for (auto* object : *info->GetElements()) {
    auto why = probeEmulation(static_cast<TStreamerElement*>(object)->GetClassPointer(), seen);
    if (!why.empty()) return why;
  }
  return {};
}

}  // namespace

std::string emulationProblem(TClass* cls) {
  std::set<TClass*> seen;
  return probeEmulation(cls, seen);
}

std::string rootExceptionMessage(std::exception const& error) {
  std::string message = error.what();
  message = message.substr(0, message.find('\n'));
  std::string const noise = " (unchecked RResult access!)";
  for (auto at = message.find(noise); at != std::string::npos; at = message.find(noise)) message.erase(at, noise.size());
  return message;
}

std::string elementOfSequence(std::string const& type) {
  for (std::string prefix : {"ROOT::VecOps::RVec<", "ROOT::RVec<", "std::vector<"}) {
    if (type.rfind(prefix, 0) == 0 && type.back() == '>') return type.substr(prefix.size(), type.size() - prefix.size() - 1);
  }
  return {};
}

Fundamental const* fundamentalByRootName(std::string const& rootName) {
  for (auto const& entry : fundamentals()) {
    if (rootName == entry.rootName) return &entry;
  }
  return nullptr;
}

Fundamental const* fundamentalByNtupleName(std::string const& ntupleName) {
  for (auto const& entry : fundamentals()) {
    if (ntupleName == entry.ntupleName) return &entry;
  }
  return nullptr;
}

Fundamental const* fundamentalByScalar(std::type_index type) {
  for (auto const& entry : fundamentals()) {
    if (type == entry.scalar) return &entry;
  }
  return nullptr;
}

Fundamental const* fundamentalByArray(std::type_index type) {
  for (auto const& entry : fundamentals()) {
    if (type == entry.array) return &entry;
  }
  return nullptr;
}

EmulatedObject::~EmulatedObject() {
  if (object_) class_->Destructor(object_);
}

RootType rootTypeOf(std::string const& label, std::type_index type, std::string const& typeName) {
  initialiseRoot();
  RootType result;
  if ((result.fundamental = fundamentalByScalar(type))) {
    result.name = result.fundamental->ntupleName;
    return result;
  }
  if (type == typeid(EmulatedRecord)) {  // ROOT 6.40: RNTupleWriter refuses emulated fields; no TClass has the layout
    throw ConfigurationError("product '" + label + "' of type '" + typeName +
                             "' is read emulated from an RNTuple (no dictionary), which no ROOT output can store: "
                             "give the rntuple source dictionaries=DIR, or leave it out with keep=");
  }
  // The registry spells each type out ("std::vector<float, std::allocator<float> >"),
  // which ROOT normalises; an emulated product's type name is its class's.
  result.cls = TClass::GetClass(typeName.c_str());
  result.emulated = type == typeid(EmulatedObject);
  if (!result.cls || (!result.emulated && !result.cls->HasDictionary())) {
    throw ConfigurationError("product '" + label + "' of type '" + typeName +
                             "' cannot be stored by ROOT (no dictionary); leave it out with keep=");
  }
  result.name = result.cls->GetName();
  return result;
}

void* rootObjectOf(ProductSlot const& slot, RootType const& type) {
  if (type.emulated) return static_cast<EmulatedObject const*>(slot.object())->object();
  return const_cast<void*>(slot.object());
}

void adoptObject(ProductSlot& slot, TClass* cls, void* object, std::size_t bytes) {
  slot.adopt(object, *cls->GetTypeInfo(), bytes, &destroyWithClass, cls);
}

int compressionSettings(std::string const& algorithm, int level) {
  static std::pair<char const*, ROOT::RCompressionSetting::EAlgorithm::EValues> const algorithms[] = {
      {"zlib", ROOT::RCompressionSetting::EAlgorithm::kZLIB},
      {"lz4", ROOT::RCompressionSetting::EAlgorithm::kLZ4},
      {"zstd", ROOT::RCompressionSetting::EAlgorithm::kZSTD},
      {"lzma", ROOT::RCompressionSetting::EAlgorithm::kLZMA},
  };
  if (level < 0 || level > 9) throw Exception("compression level " + std::to_string(level) + " is not in 0..9");
  for (auto const& [name, value] : algorithms) {
    if (algorithm == name) return ROOT::CompressionSettings(value, level);
  }
  throw Exception("unknown compression algorithm '" + algorithm + "' (known: zlib, lz4, zstd, lzma)");
}

}  // namespace lanes::rootio
