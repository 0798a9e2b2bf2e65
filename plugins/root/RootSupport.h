#pragma once
// What every ROOT plugin shares: ROOT's process-wide set-up, ROOT's error
// messages turned into lanes exceptions, and the mapping between the C++
// types of lanes products and the types ROOT stores.

#include <ROOT/RError.hxx>

#include <cstddef>
#include <exception>
#include <string>
#include <typeindex>
#include <typeinfo>

#include "lanes/core/Exception.h"
#include "lanes/core/Product.h"

class TBuffer;
class TClass;

namespace lanes::rootio {

// NanoAOD's run and lumi records beside its Events: the TTrees (or
// RNTuples) the sources read run and lumi products from and the outputs
// write them to.
inline constexpr char const* kLumiRecords = "LuminosityBlocks";
inline constexpr char const* kRunRecords = "Runs";

// Makes ROOT safe to use from many threads and routes its messages through
// our handler instead of stderr. Idempotent and thread-safe.
void initialiseRoot();

// Thread-safe: ROOT's implicit multi-threading (IMT) on the job's own
// threads, for an output that compresses with it. The first holder made
// turns IMT on in the oneTBB arena it is made in (the job's: outputs begin in
// it), so ROOT's tasks run on the job's threads, from the one libtbb; the
// last one destroyed turns it off again. IMT that was on before the first
// holder (a source's imt=true) is left as it was. Make it before the TTree
// or RNTuple writer that should use it: they look once, as they are made.
class JobImplicitMT {
 public:
  JobImplicitMT();
  ~JobImplicitMT();
  JobImplicitMT(JobImplicitMT const&) = delete;
  JobImplicitMT& operator=(JobImplicitMT const&) = delete;
};

// The last error or warning ROOT reported on this thread ("" if none), cleared.
// An error is kept over the warnings that follow it.
std::string takeRootMessage();

// How many errors (ROOT's Error() and worse) ROOT has reported on this
// thread. A read during which this grows failed, even where ROOT carries on
// (a damaged byte count: "read too many bytes", and the values after it are
// garbage). Lane-confined, like the messages. Inline: a reader asks twice
// per entry of every branch.
namespace detail {
inline thread_local unsigned rootErrors = 0;
}  // namespace detail
inline unsigned rootErrorsOnThisThread() { return detail::rootErrors; }

// While one is alive on a thread, a fatal error that ROOT reports on that
// thread (Fatal(), which would abort the process) throws a lanes::Exception
// saying what ROOT said, instead; elsewhere ROOT still aborts. Readers hold
// one around the ROOT calls that read a file, whose bytes can be corrupt: the
// exception unwinds through ROOT's frames (as CMSSW's handler does), so the
// ROOT object that was reading is left unusable and its job must fail.
// Lane-confined: the state is per thread, so concurrent lanes each guard
// their own reads (a fatal error on a thread of ROOT's implicit
// multi-threading still aborts).
class ThrowOnRootFatal {
 public:
  ThrowOnRootFatal();
  ~ThrowOnRootFatal();
  ThrowOnRootFatal(ThrowOnRootFatal const&) = delete;
  ThrowOnRootFatal& operator=(ThrowOnRootFatal const&) = delete;
};

// Why ROOT cannot make objects of `cls` here ("" if it can): a class without
// a dictionary is emulated from the file's streamer information, and ROOT
// emulates some members only by calling Fatal (a std::list<bool>: "Unsupported
// value type 18"). Makes and destroys one object of `cls`, and of each class
// its members and collections hold, with Fatal turned into the answer.
std::string emulationProblem(TClass* cls);

// What a ROOT exception (RNTuple's RException) says, in one line: its what()
// runs to several lines with a stack, and notes on ROOT's own error handling.
std::string rootExceptionMessage(std::exception const& error);

// Runs `action`; a ROOT exception (RException) comes back as a
// lanes::Exception saying `what` and rootExceptionMessage().
template <typename Action>
auto rethrowingRoot(std::string const& what, Action action) -> decltype(action()) {
  try {
    return action();
  } catch (ROOT::RException const& error) {
    throw Exception(what + ": " + rootExceptionMessage(error));
  }
}

// One fundamental type as a product (a scalar, or a std::vector of it for
// leaf arrays) and as ROOT knows it.
struct Fundamental {
  std::type_info const& scalar;  // e.g. float
  std::type_info const& array;   // e.g. std::vector<float>
  std::size_t size;
  char leafCode;            // TTree leaf-list code: 'F'
  char const* rootName;     // "Float_t"
  char const* ntupleName;   // "float", "std::int32_t": RNTuple's spelling
  // Fill `slot` with a scalar copied from `from`; the product weighs `bytes`.
  void (*putScalar)(void const* from, ProductSlot& slot, std::size_t bytes);
  // The same from a value as a TTree's basket stores it (big-endian).
  void (*putStored)(char const* from, ProductSlot& slot, std::size_t bytes);
  // A new std::vector of the `n` elements at `from`, and its deleter (a
  // ProductSlot::Destroy, for adopt()).
  void* (*newArray)(void const* from, std::size_t n);
  ProductSlot::Destroy deleteArray;
  // Makes the std::vector `array` hold the `n` elements at `from`, keeping its capacity.
  void (*assignArray)(void* array, void const* from, std::size_t n);
  // The same from `n` values as a TTree's basket stores them (big-endian).
  void (*assignStored)(void* array, char const* from, std::size_t n);
  // Swaps the contents of two std::vectors of the type.
  void (*swapArrays)(void* a, void* b);
  // Reads the std::vector `array`'s first element (false if it has none):
  // brings its header and the start of its elements into the cache, as a
  // load, which the CPU does not drop where it may drop a prefetch.
  bool (*touchArray)(void const* array);
  // Serialise one scalar, as TBufferFile does for a leaf of this type.
  void (*stream)(TBuffer& buffer, void const* scalar);
  // Read one scalar that stream() wrote.
  void (*unstream)(TBuffer& buffer, void* scalar);
};

// The element type of an RNTuple field's RVec or std::vector type
// ("ROOT::VecOps::RVec<float>" -> "float"); "" if `type` is neither.
std::string elementOfSequence(std::string const& type);

// nullptr when no fundamental type matches.
Fundamental const* fundamentalByRootName(std::string const& rootName);
Fundamental const* fundamentalByNtupleName(std::string const& ntupleName);
Fundamental const* fundamentalByScalar(std::type_index type);
Fundamental const* fundamentalByArray(std::type_index type);

// An object of a class ROOT knows only from a file's streamer information
// (no dictionary): the product type for such branches. Owns the object.
class EmulatedObject {
 public:
  EmulatedObject(TClass* cls, void* object) : class_(cls), object_(object) {}
  EmulatedObject(EmulatedObject&& other) noexcept : class_(other.class_), object_(other.object_) { other.object_ = nullptr; }
  EmulatedObject& operator=(EmulatedObject&&) = delete;
  EmulatedObject(EmulatedObject const&) = delete;
  ~EmulatedObject();

  TClass* rootClass() const { return class_; }
  void* object() const { return object_; }

 private:
  TClass* class_;
  void* object_;
};

// A ROOT-typed view of a product of any type, for outputs: either a
// fundamental scalar, or an object of a class with a TClass.
struct RootType {
  Fundamental const* fundamental = nullptr;
  TClass* cls = nullptr;
  bool emulated = false;  // the slot holds an EmulatedObject wrapping the object
  std::string name;       // the class name or the fundamental's RNTuple name
};

// How an output writes products declared with `type` (and the registry's
// `typeName`, which names the class of an emulated product); throws a
// lanes::ConfigurationError naming `label` if ROOT cannot store the type (an
// EmulatedRecord, or a class without a dictionary).
RootType rootTypeOf(std::string const& label, std::type_index type, std::string const& typeName);

// The object a slot holds, as ROOT wants it (unwrapping an EmulatedObject).
void* rootObjectOf(ProductSlot const& slot, RootType const& type);

// Puts an object made by `cls->New()` into `slot`; the slot deletes it
// through `cls`. The product's C++ type is the class's own.
void adoptObject(ProductSlot& slot, TClass* cls, void* object, std::size_t bytes);

// ROOT's spelling of a compression setting: "zstd:5" -> algorithm * 100 + level.
// Throws lanes::Exception on an unknown algorithm or a level outside 0..9.
int compressionSettings(std::string const& algorithm, int level);

}  // namespace lanes::rootio
