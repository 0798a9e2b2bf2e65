#include "hdf5/Hdf5Support.h"

#include <filesystem>
#include <type_traits>
#include <typeinfo>

#include "lanes/core/Exception.h"
#include "root/RootSupport.h"

namespace lanes::hdf5 {

namespace {

herr_t innermost(unsigned, H5E_error2_t const* error, void* found) {
  if (error->desc) *static_cast<std::string*>(found) = error->desc;
  return 0;
}

// h5py's convention for bool: an enum of FALSE and TRUE over a signed byte.
hid_t boolType() {
  static hid_t const type = [] {
    hid_t const made = H5Tenum_create(H5T_NATIVE_SCHAR);
    signed char value = 0;
    H5Tenum_insert(made, "FALSE", &value);
    value = 1;
    H5Tenum_insert(made, "TRUE", &value);
    return made;
  }();
  return type;
}

template <typename T>
std::size_t appendArray(void const* array, std::vector<unsigned char>& to) {
  auto const& vector = *static_cast<std::vector<T> const*>(array);
  if constexpr (std::is_same_v<T, bool>) {
    to.insert(to.end(), vector.begin(), vector.end());
  } else {
    auto const* bytes = reinterpret_cast<unsigned char const*>(vector.data());
    to.insert(to.end(), bytes, bytes + vector.size() * sizeof(T));
  }
  return vector.size();
}

template <typename T>
bool number(rootio::Fundamental const& fundamental, hid_t memoryType, Number& found) {
  if (fundamental.scalar != typeid(T)) return false;
  found = {memoryType, &appendArray<T>};
  return true;
}

}  // namespace

std::unique_lock<std::mutex> lockLibrary() {
  static std::mutex lock;
  std::unique_lock<std::mutex> held(lock);
  // No clean-up at exit: a file whose close failed (a full disk) stays open
  // in HDF5, and closing it again there crashes (HDF5 1.10) and prints
  // HDF5's error stack.
  static herr_t const noCleanUp = H5dont_atexit();
  // A thread-safe build keeps an error stack, and its printing, per thread.
  thread_local herr_t const silenced = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  (void)noCleanUp;
  (void)silenced;
  return held;
}

std::string takeError() {
  std::string found;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, &innermost, &found);
  H5Eclear2(H5E_DEFAULT);
  return found;
}

void throwError(std::string const& what) {
  auto reason = takeError();
  throw Exception(reason.empty() ? what : what + ": " + reason);
}

Id& Id::operator=(Id&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, -1);
    close_ = other.close_;
  }
  return *this;
}

bool Id::close() {
  if (id_ < 0) return true;
  bool const closed = close_(std::exchange(id_, -1)) >= 0;
  if (!closed) H5Eclear2(H5E_DEFAULT);
  return closed;
}

Id eventIdType() {
  Id type(check(H5Tcreate(H5T_COMPOUND, sizeof(EventIdRecord)), "cannot make the event id type"), &H5Tclose);
  check(H5Tinsert(type.get(), "run", HOFFSET(EventIdRecord, run), H5T_NATIVE_UINT32), "cannot make the event id type");
  check(H5Tinsert(type.get(), "luminosityBlock", HOFFSET(EventIdRecord, luminosityBlock), H5T_NATIVE_UINT32),
        "cannot make the event id type");
  check(H5Tinsert(type.get(), "event", HOFFSET(EventIdRecord, event), H5T_NATIVE_UINT64), "cannot make the event id type");
  return type;
}

Number numberOf(rootio::Fundamental const& fundamental) {
  Number found{};
  if (number<bool>(fundamental, boolType(), found) || number<char>(fundamental, H5T_NATIVE_SCHAR, found) ||
      number<std::uint8_t>(fundamental, H5T_NATIVE_UINT8, found) ||
      number<std::int16_t>(fundamental, H5T_NATIVE_INT16, found) ||
      number<std::uint16_t>(fundamental, H5T_NATIVE_UINT16, found) ||
      number<std::int32_t>(fundamental, H5T_NATIVE_INT32, found) ||
      number<std::uint32_t>(fundamental, H5T_NATIVE_UINT32, found) ||
      number<std::int64_t>(fundamental, H5T_NATIVE_INT64, found) ||
      number<std::uint64_t>(fundamental, H5T_NATIVE_UINT64, found) ||
      number<float>(fundamental, H5T_NATIVE_FLOAT, found) || number<double>(fundamental, H5T_NATIVE_DOUBLE, found)) {
    return found;
  }
  throw Exception(std::string("no HDF5 type for ") + fundamental.ntupleName);
}

namespace {

// "cannot read attribute 'NAME' of 'OBJECT' in 'FILE'" (the file's name, as it was opened), for a failure's message.
std::string attributeFailure(hid_t object, char const* name) {
  char path[512] = "", file[4096] = "";
  H5Iget_name(object, path, sizeof path);
  H5Fget_name(object, file, sizeof file);
  return std::string("cannot read attribute '") + name + "' of '" + path + "' in '" + file + "'";
}

// Whether `object` has the attribute `name`; throws if that cannot be read (damaged metadata).
bool hasAttribute(hid_t object, char const* name) {
  auto const exists = H5Aexists(object, name);
  if (exists < 0) throwError(attributeFailure(object, name));
  return exists > 0;
}

}  // namespace

std::string stringAttribute(hid_t object, char const* name) {
  if (!hasAttribute(object, name)) return {};
  auto const what = attributeFailure(object, name);
  Id attribute(check(H5Aopen(object, name, H5P_DEFAULT), what), &H5Aclose);
  Id type(check(H5Aget_type(attribute.get()), what), &H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING) return {};
  if (H5Tis_variable_str(type.get()) > 0) {  // as h5py writes a Python str or bytes
    Id memory(check(H5Tcopy(H5T_C_S1), what), &H5Tclose);
    check(H5Tset_size(memory.get(), H5T_VARIABLE), what);
    check(H5Tset_cset(memory.get(), H5Tget_cset(type.get())), what);
    char* text = nullptr;
    check(H5Aread(attribute.get(), memory.get(), &text), what);
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
  }
  std::string value(check(H5Tget_size(type.get()), what), '\0');
  Id memory(check(H5Tcopy(H5T_C_S1), what), &H5Tclose);
  check(H5Tset_size(memory.get(), value.size()), what);
  check(H5Aread(attribute.get(), memory.get(), value.data()), what);
  return value.substr(0, value.find('\0'));
}

void writeStringAttribute(hid_t object, char const* name, std::string const& value) {
  std::string const what = std::string("cannot write attribute '") + name + "'";
  Id type(check(H5Tcopy(H5T_C_S1), what), &H5Tclose);
  check(H5Tset_size(type.get(), value.empty() ? 1 : value.size()), what);
  Id space(check(H5Screate(H5S_SCALAR), what), &H5Sclose);
  Id attribute(check(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), what), &H5Aclose);
  check(H5Awrite(attribute.get(), type.get(), value.c_str()), what);
}

BlobEncoding blobEncodingOf(hid_t file) {
  BlobEncoding encoding;
  if (auto serialization = stringAttribute(file, "lanes_serialization"); !serialization.empty()) {
    encoding.serialization = std::move(serialization);
  }
  if (auto compression = stringAttribute(file, "lanes_compression"); !compression.empty()) {
    encoding.compression = std::move(compression);
  }
  encoding.compress = stringAttribute(file, "lanes_compress");
  return encoding;
}

void writeBlobEncoding(hid_t file, BlobEncoding const& encoding) {
  writeStringAttribute(file, "lanes_serialization", encoding.serialization);
  writeStringAttribute(file, "lanes_compression", encoding.compression);
  if (!encoding.compress.empty()) writeStringAttribute(file, "lanes_compress", encoding.compress);
}

Id openFile(std::string const& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw Exception("file '" + path + "' does not exist");
  auto const is = H5Fis_hdf5(path.c_str());
  if (is == 0) throw Exception("'" + path + "' is not an HDF5 file");
  if (is < 0) throwError("cannot open '" + path + "'");
  return Id(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open '" + path + "'"), &H5Fclose);
}

std::optional<std::uint64_t> eventsIn(std::string const& path) {
  auto const lock = lockLibrary();
  try {
    auto const file = openFile(path);
    Id ids(check(H5Dopen2(file.get(), kEventIds, H5P_DEFAULT), "no event ids"), &H5Dclose);
    return lengthOf(ids.get(), kEventIds);
  } catch (Exception const&) {
    return std::nullopt;
  }
}

bool hasLink(hid_t parent, std::string const& name) {
  auto const exists = H5Lexists(parent, name.c_str(), H5P_DEFAULT);
  if (exists < 0) H5Eclear2(H5E_DEFAULT);
  return exists > 0;
}

std::vector<std::string> childrenOf(hid_t group, std::string const& what) {
  std::vector<std::string> names;
  auto const collect = [](hid_t, char const* name, H5L_info_t const*, void* to) -> herr_t {
    static_cast<std::vector<std::string>*>(to)->push_back(name);
    return 0;
  };
  // Creation order where the group indexes it (lanes writes them so), else
  // names. A group that has the index but cannot be listed by it is damaged:
  // it is not listed again by name, a path on which HDF5 frees its table of
  // a damaged group's links twice (abort).
  Id properties(check(H5Gget_create_plist(group), what), &H5Pclose);
  unsigned order = 0;
  check(H5Pget_link_creation_order(properties.get(), &order), what);
  bool const indexed = (order & H5P_CRT_ORDER_INDEXED) != 0;
  hsize_t at = 0;
  check(H5Literate(group, indexed ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME, H5_ITER_INC, &at, collect, &names), what);
  return names;
}

std::uint64_t lengthOf(hid_t dataset, std::string const& what) {
  Id space(check(H5Dget_space(dataset), what), &H5Sclose);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) throw Exception(what + ": not a 1-D dataset");
  hsize_t length = 0;
  check(H5Sget_simple_extent_dims(space.get(), &length, nullptr), what);
  return length;
}

void readRange(hid_t dataset, hid_t memoryType, std::uint64_t first, std::uint64_t count, void* to,
               std::string const& what) {
  if (count == 0) return;
  Id space(check(H5Dget_space(dataset), what), &H5Sclose);
  hsize_t const start = first, size = count;
  check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &start, nullptr, &size, nullptr), what);
  Id memory(check(H5Screate_simple(1, &size, nullptr), what), &H5Sclose);
  if (H5Dread(dataset, memoryType, memory.get(), space.get(), H5P_DEFAULT, to) < 0) {
    auto const reason = takeError();  // before H5Iget_name, which would clear it
    char name[512] = "";
    H5Iget_name(dataset, name, sizeof name);
    throw Exception(what + ": dataset '" + name + "'" + (reason.empty() ? "" : ": " + reason));
  }
}

std::optional<int> intAttribute(hid_t object, char const* name) {
  if (!hasAttribute(object, name)) return std::nullopt;
  auto const what = attributeFailure(object, name);
  Id attribute(check(H5Aopen(object, name, H5P_DEFAULT), what), &H5Aclose);
  int value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_INT, &value), what);
  return value;
}

}  // namespace lanes::hdf5
