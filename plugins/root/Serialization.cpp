#include "root/Serialization.h"

#include <TBufferFile.h>
#include <TClass.h>
#include <TVirtualCollectionProxy.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <typeinfo>

#include "lanes/core/Exception.h"
#include "lanes/core/ProductRegistry.h"
#include "root/NumberTypes.h"
#include "root/ProductStreaming.h"
#include "root/Unrolled.h"

namespace lanes::rootio {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "TBufferFile's big-endian numbers are swapped here");

// One number in TBufferFile's byte order (big-endian), and back.
template <typename T>
T fromBig(char const* bytes) {
  if constexpr (sizeof(T) == 1) {
    return static_cast<T>(*bytes);
  } else {
    using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
    Bits bits;
    std::memcpy(&bits, bytes, sizeof bits);
    if constexpr (sizeof(T) == 2) {
      bits = __builtin_bswap16(bits);
    } else if constexpr (sizeof(T) == 4) {
      bits = __builtin_bswap32(bits);
    } else {
      bits = __builtin_bswap64(bits);
    }
    T value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
}

template <typename T>
void toBig(T value, char* bytes) {
  if constexpr (sizeof(T) == 1) {
    *bytes = static_cast<char>(value);
  } else {
    using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
    Bits bits;
    std::memcpy(&bits, &value, sizeof bits);
    bits = fromBig<Bits>(reinterpret_cast<char const*>(&bits));
    std::memcpy(bytes, &bits, sizeof bits);
  }
}

// A std::vector of numbers (or of bool) as ROOT's collection streamer
// streams it (TClass::Streamer of the class): its element count as an Int_t,
// then its elements, one byte for a bool, all big-endian. Read and written
// here without TBufferFile: nearly every NanoAOD product is such a vector,
// and ROOT's generic path costs several times the bytes it moves. The bytes
// are ROOT's own (tested against it).
struct NumberVectorCodec {
  std::type_info const& type;  // std::vector<T>
  void (*read)(char const* bytes, std::size_t size, void* object, std::string const& name);
  void (*write)(void const* object, std::vector<char>& out);
};

// The elements of a vector as the bytes hold them: the vector assigns from
// them in one pass, without first zeroing the elements it adds.
template <typename T>
class StoredNumbers {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  static constexpr std::size_t kElement = std::is_same_v<T, bool> ? 1 : sizeof(T);

  explicit StoredNumbers(char const* at) : at_(at) {}
  T operator*() const {
    if constexpr (std::is_same_v<T, bool>) {
      return *at_ != 0;
    } else {
      return fromBig<T>(at_);
    }
  }
  StoredNumbers& operator++() {
    at_ += kElement;
    return *this;
  }
  StoredNumbers& operator--() {
    at_ -= kElement;
    return *this;
  }
  StoredNumbers& operator+=(difference_type n) {
    at_ += n * static_cast<difference_type>(kElement);
    return *this;
  }
  difference_type operator-(StoredNumbers other) const {
    return (at_ - other.at_) / static_cast<difference_type>(kElement);
  }
  bool operator==(StoredNumbers other) const { return at_ == other.at_; }
  bool operator!=(StoredNumbers other) const { return at_ != other.at_; }

 private:
  char const* at_;
};

template <typename T>
void readNumbers(char const* bytes, std::size_t size, void* object, std::string const& name) {
  constexpr auto element = StoredNumbers<T>::kElement;
  auto const count = size >= 4 ? fromBig<std::int32_t>(bytes) : -1;
  if (count < 0 || size != 4 + static_cast<std::size_t>(count) * element) {
    throw Exception(std::to_string(size) + " bytes do not hold one " + name +
                    (count < 0 ? "" : " (it takes " + std::to_string(4 + std::size_t(count) * element) + ")"));
  }
  static_cast<std::vector<T>*>(object)->assign(StoredNumbers<T>(bytes + 4), StoredNumbers<T>(bytes + size));
}

template <typename T>
void writeNumbers(void const* object, std::vector<char>& out) {
  constexpr auto element = StoredNumbers<T>::kElement;
  auto const& values = *static_cast<std::vector<T> const*>(object);
  auto at = out.size();
  out.resize(at + 4 + values.size() * element);
  toBig(static_cast<std::int32_t>(values.size()), out.data() + at);
  at += 4;
  for (std::size_t i = 0; i < values.size(); ++i, at += element) toBig<T>(values[i], out.data() + at);
}

template <typename T>
NumberVectorCodec const* numberVectorCodec() {
  static NumberVectorCodec const codec{typeid(std::vector<T>), &readNumbers<T>, &writeNumbers<T>};
  return &codec;
}

// The codec of `cls` if it is a std::vector of numbers or of bool, else nullptr.
NumberVectorCodec const* numberVectorCodecOf(TClass* cls) {
  auto* proxy = cls->GetCollectionProxy();
  if (!proxy || proxy->GetCollectionType() != ROOT::kSTLvector || proxy->GetValueClass()) return nullptr;
  auto const type = static_cast<EDataType>(proxy->GetType());
  auto const* codec = type == kBool_t ? numberVectorCodec<bool>()
                                      : visitNumberType<NumberVectorCodec const*>(
                                            type, [](auto number) { return numberVectorCodec<decltype(number)>(); },
                                            nullptr);
  // The class must be that very vector (not, say, one of Double32_t, which streams narrower).
  return codec && cls->GetTypeInfo() && *cls->GetTypeInfo() == codec->type ? codec : nullptr;
}

// TBufferFile, as a TTree basket holds a product.
class RootSerializer : public ProductSerializer {
 public:
  explicit RootSerializer(RootType const& type)
      : ProductSerializer(type), numbers_(type.cls && !type.emulated ? numberVectorCodecOf(type.cls) : nullptr) {}

  void write(void const* object, std::vector<char>& out) const override {
    if (numbers_) return numbers_->write(object, out);
    thread_local TBufferFile buffer(TBuffer::kWrite);  // calls on a thread never overlap
    streamProduct(buffer, const_cast<void*>(object), type_);
    out.insert(out.end(), buffer.Buffer(), buffer.Buffer() + buffer.Length());
  }

  void readInto(char const* bytes, std::size_t size, void* object) const override {
    if (numbers_) return numbers_->read(bytes, size, object, type_.name);
    unstreamInto(bytes, size, type_, object);
  }

 private:
  NumberVectorCodec const* numbers_;
};

}  // namespace

void ProductSerializer::read(char const* bytes, std::size_t size, ProductSlot& slot) const {
  if (type_.fundamental) {
    alignas(8) unsigned char scalar[8];
    readInto(bytes, size, scalar);
    type_.fundamental->putScalar(scalar, slot, size);
    return;
  }
  void* object = type_.cls->New();
  try {
    readInto(bytes, size, object);
  } catch (...) {
    type_.cls->Destructor(object);
    throw;
  }
  if (type_.emulated) {
    slot.emplace(EmulatedObject(type_.cls, object), size);
  } else {
    adoptObject(slot, type_.cls, object, size);
  }
}

SerializationKind parseSerialization(std::string const& name) {
  if (name == "root") return SerializationKind::Root;
  if (name == "unrolled") return SerializationKind::Unrolled;
  throw Exception("unknown serialization '" + name + "' (known: root, unrolled)");
}

std::string nameOf(SerializationKind kind) { return kind == SerializationKind::Root ? "root" : "unrolled"; }

std::unique_ptr<ProductSerializer> makeSerializer(SerializationKind kind, RootType const& type,
                                                  std::string const& label) {
  if (kind == SerializationKind::Unrolled) return makeUnrolledSerializer(type, label);
  return std::make_unique<RootSerializer>(type);
}

SerializedColumns serializedColumns(Module const& output, ProductRegistry const& registry, SerializationKind kind) {
  SerializedColumns result;
  result.columns = columnsOf(output, registry);
  result.columnOf.assign(registry.size(), -1);
  for (std::size_t i = 0; i < result.columns.size(); ++i) {
    auto const& column = result.columns[i];
    result.columnOf[column.index] = static_cast<int>(i);
    result.serializers.push_back(makeSerializer(kind, column.type, column.label));
  }
  return result;
}

}  // namespace lanes::rootio
