#include "root/Unrolled.h"

#include <TClass.h>
#include <TDataType.h>
#include <TObject.h>
#include <TStreamerElement.h>
#include <TVirtualCollectionProxy.h>
#include <TVirtualStreamerInfo.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <unordered_map>

#include "lanes/core/Exception.h"
#include "root/NumberTypes.h"

namespace lanes::rootio {

namespace {

// Appends to a byte vector.
class Writer {
 public:
  explicit Writer(std::vector<char>& out) : out_(out) {}
  void bytes(void const* from, std::size_t size) {
    auto const* first = static_cast<char const*>(from);
    out_.insert(out_.end(), first, first + size);
  }
  void count(std::uint32_t n) { bytes(&n, sizeof n); }

 private:
  std::vector<char>& out_;
};

// Reads from a byte range; running past its end throws.
class Reader {
 public:
  Reader(char const* first, std::size_t size) : at_(first), end_(first + size) {}
  void bytes(void* to, std::size_t size) {
    if (remaining() < size) throw Exception("unrolled bytes end inside a product");
    if (size) std::memcpy(to, at_, size);
    at_ += size;
  }
  std::uint32_t count() {
    std::uint32_t n = 0;
    bytes(&n, sizeof n);
    return n;
  }
  std::size_t remaining() const { return static_cast<std::size_t>(end_ - at_); }

 private:
  char const* at_;
  char const* end_;
};

void finish(Reader const& reader) {
  if (reader.remaining()) {
    throw Exception(std::to_string(reader.remaining()) + " bytes left over after an unrolled product");
  }
}

// How one object of a given type is written and read. Immutable after construction.
class Node {
 public:
  virtual ~Node() = default;
  virtual void write(void const* object, Writer& out) const = 0;
  virtual void read(void* object, Reader& in) const = 0;
  // The fewest bytes an object takes (a bound on element counts read).
  virtual std::size_t least() const { return 0; }
};

class BytesNode : public Node {
 public:
  explicit BytesNode(std::size_t size) : size_(size) {}
  void write(void const* object, Writer& out) const override { out.bytes(object, size_); }
  void read(void* object, Reader& in) const override { in.bytes(object, size_); }
  std::size_t least() const override { return size_; }

 private:
  std::size_t size_;
};

class StringNode : public Node {
 public:
  void write(void const* object, Writer& out) const override {
    auto const& text = *static_cast<std::string const*>(object);
    out.count(static_cast<std::uint32_t>(text.size()));
    out.bytes(text.data(), text.size());
  }
  void read(void* object, Reader& in) const override {
    auto& text = *static_cast<std::string*>(object);
    auto const n = in.count();
    if (n > in.remaining()) throw Exception("unrolled string longer than the bytes left");
    text.resize(n);
    in.bytes(text.data(), n);
  }
  std::size_t least() const override { return sizeof(std::uint32_t); }
};

// std::vector<bool> packs its bits: no collection proxy gives an element's address.
class BoolVectorNode : public Node {
 public:
  void write(void const* object, Writer& out) const override {
    auto const& values = *static_cast<std::vector<bool> const*>(object);
    out.count(static_cast<std::uint32_t>(values.size()));
    for (bool value : values) out.bytes(&value, 1);
  }
  void read(void* object, Reader& in) const override {
    auto& values = *static_cast<std::vector<bool>*>(object);
    auto const n = in.count();
    if (n > in.remaining()) throw Exception("unrolled vector<bool> longer than the bytes left");
    values.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      bool value = false;
      in.bytes(&value, 1);
      values[i] = value;
    }
  }
  std::size_t least() const override { return sizeof(std::uint32_t); }
};

// A std::vector of numbers, through its C++ type: the commonest product
// (every NanoAOD leaf array) takes no collection proxy.
template <typename T>
class VectorNode : public Node {
 public:
  void write(void const* object, Writer& out) const override {
    auto const& values = *static_cast<std::vector<T> const*>(object);
    out.count(static_cast<std::uint32_t>(values.size()));
    out.bytes(values.data(), values.size() * sizeof(T));
  }
  void read(void* object, Reader& in) const override {
    auto& values = *static_cast<std::vector<T>*>(object);
    auto const n = in.count();
    if (n > in.remaining() / sizeof(T)) throw Exception("unrolled vector longer than the bytes left");
    values.resize(n);
    in.bytes(values.data(), n * sizeof(T));
  }
  std::size_t least() const override { return sizeof(std::uint32_t); }
};

// The VectorNode of the vector of `type`, or nullptr for another type.
std::unique_ptr<Node> vectorOf(EDataType type) {
  return visitNumberType<std::unique_ptr<Node>>(
      type, [](auto number) -> std::unique_ptr<Node> { return std::make_unique<VectorNode<decltype(number)>>(); },
      nullptr);
}

// An STL collection through ROOT's collection proxy: its size, then its
// elements (a vector of numbers in one copy).
class CollectionNode : public Node {
 public:
  CollectionNode(TClass* cls, Node const* element, std::size_t elementSize, bool contiguous)
      : class_(cls), element_(element), elementSize_(elementSize), contiguous_(contiguous) {}

  void write(void const* object, Writer& out) const override {
    auto* proxy = proxyOfThisThread();
    TVirtualCollectionProxy::TPushPop pushed(proxy, const_cast<void*>(object));
    auto const n = proxy->Size();
    out.count(n);
    if (contiguous_) {
      if (n) out.bytes(proxy->At(0), n * elementSize_);
      return;
    }
    for (UInt_t i = 0; i < n; ++i) element_->write(proxy->At(i), out);
  }

  void read(void* object, Reader& in) const override {
    auto const n = in.count();
    if (element_->least() > 0 ? n > in.remaining() / element_->least() : n > in.remaining()) {
      throw Exception("unrolled collection of " + std::to_string(n) + " elements is longer than the bytes left");
    }
    auto* proxy = proxyOfThisThread();
    TVirtualCollectionProxy::TPushPop pushed(proxy, object);
    void* staged = proxy->Allocate(n, true);
    if (contiguous_) {
      if (n) in.bytes(proxy->At(0), n * elementSize_);
    } else {
      for (UInt_t i = 0; i < n; ++i) element_->read(proxy->At(i), in);
    }
    proxy->Commit(staged);
  }

  std::size_t least() const override { return sizeof(std::uint32_t); }

 private:
  // A proxy keeps the collection it works on: each thread needs its own.
  TVirtualCollectionProxy* proxyOfThisThread() const {
    thread_local std::unordered_map<TClass*, std::unique_ptr<TVirtualCollectionProxy>> proxies;
    auto& proxy = proxies[class_];
    if (!proxy) proxy.reset(class_->GetCollectionProxy()->Generate());
    return proxy.get();
  }

  TClass* class_;
  Node const* element_;
  std::size_t elementSize_;
  bool contiguous_;
};

// A class: its base classes and members, each at its offset.
class ClassNode : public Node {
 public:
  void add(std::size_t offset, Node const* node) { members_.push_back({offset, node}); }
  void write(void const* object, Writer& out) const override {
    for (auto const& [offset, node] : members_) node->write(static_cast<char const*>(object) + offset, out);
  }
  void read(void* object, Reader& in) const override {
    for (auto const& [offset, node] : members_) node->read(static_cast<char*>(object) + offset, in);
  }
  std::size_t least() const override {
    std::size_t total = 0;
    for (auto const& member : members_) total += member.second->least();
    return total;
  }

 private:
  std::vector<std::pair<std::size_t, Node const*>> members_;
};

// Builds the nodes of a product's type, and owns them.
class Plan {
 public:
  explicit Plan(std::string label) : label_(std::move(label)) {}

  Node const* bytes(std::size_t size) { return own(std::make_unique<BytesNode>(size)); }

  Node const* of(TClass* cls) {
    if (auto found = nodes_.find(cls); found != nodes_.end()) return found->second;
    auto const* node = build(cls);
    nodes_[cls] = node;
    return node;
  }

 private:
  Node const* own(std::unique_ptr<Node> node) {
    owned_.push_back(std::move(node));
    return owned_.back().get();
  }

  [[noreturn]] void refuse(TClass* cls, std::string const& why) const {
    throw ConfigurationError("serialization=unrolled cannot handle product '" + label_ + "': class '" +
                             cls->GetName() + "' " + why + "; use serialization=root");
  }

  Node const* build(TClass* cls) {
    if (cls->GetTypeInfo() == &typeid(std::vector<bool>)) return own(std::make_unique<BoolVectorNode>());
    if (std::string(cls->GetName()) == "string") return own(std::make_unique<StringNode>());
    if (auto* proxy = cls->GetCollectionProxy()) return collection(cls, proxy);
    if (cls->InheritsFrom(TObject::Class())) refuse(cls, "derives from TObject");
    if (cls->GetStreamer() || cls->HasCustomStreamerMember()) refuse(cls, "has a custom streamer");
    auto* info = cls->GetStreamerInfo();
    if (!info) refuse(cls, "has no streamer information");
    auto node = std::make_unique<ClassNode>();
    for (auto* object : *info->GetElements()) member(cls, *node, *static_cast<TStreamerElement*>(object));
    return own(std::move(node));
  }

  Node const* collection(TClass* cls, TVirtualCollectionProxy* proxy) {
    if (proxy->HasPointers()) refuse(cls, "holds pointers");
    if (auto* value = proxy->GetValueClass()) return own(std::make_unique<CollectionNode>(cls, of(value), 0, false));
    auto* type = TDataType::GetDataType(proxy->GetType());
    if (!type) refuse(cls, "holds elements of an unknown type");
    bool const vector = proxy->GetCollectionType() == ROOT::kSTLvector;
    if (auto node = vector ? vectorOf(proxy->GetType()) : nullptr) return own(std::move(node));
    auto const size = static_cast<std::size_t>(type->Size());
    return own(std::make_unique<CollectionNode>(cls, bytes(size), size, vector));
  }

  void member(TClass* cls, ClassNode& node, TStreamerElement& element) {
    auto const type = element.GetType();
    auto const offset = static_cast<std::size_t>(element.GetOffset());
    using Info = TVirtualStreamerInfo;
    bool const basic = (type > Info::kBase && type < Info::kOffsetL) ||
                       (type > Info::kOffsetL && type < Info::kOffsetP);
    if (basic && type % Info::kOffsetL != Info::kCharStar) {
      node.add(offset, bytes(static_cast<std::size_t>(element.GetSize())));
      return;
    }
    bool const single = element.GetArrayLength() == 0;
    bool const nested = type == Info::kBase || type == Info::kObject || type == Info::kAny ||
                        type == Info::kSTL || type == Info::kSTLstring;
    if (nested && single && element.GetClassPointer()) {
      node.add(offset, of(element.GetClassPointer()));
      return;
    }
    refuse(cls, "has member '" + std::string(element.GetName()) + "' of type '" + element.GetTypeName() +
                    "' (a pointer, an array of objects or another kind it does not handle)");
  }

  std::string label_;
  std::vector<std::unique_ptr<Node>> owned_;
  std::map<TClass*, Node const*> nodes_;
};

class UnrolledSerializer : public ProductSerializer {
 public:
  UnrolledSerializer(RootType const& type, std::string const& label) : ProductSerializer(type), plan_(label) {
    if (!type_.fundamental) root_ = plan_.of(type_.cls);
  }

  void write(void const* object, std::vector<char>& out) const override {
    if (type_.fundamental) {  // a scalar: its bytes
      auto const* first = static_cast<char const*>(object);
      out.insert(out.end(), first, first + type_.fundamental->size);
      return;
    }
    Writer writer(out);
    root_->write(object, writer);
  }

  void readInto(char const* bytes, std::size_t size, void* object) const override {
    if (type_.fundamental) {
      if (size != type_.fundamental->size) {
        throw Exception(std::to_string(size) + " bytes cannot hold a " + type_.name);
      }
      std::memcpy(object, bytes, size);
      return;
    }
    Reader reader(bytes, size);
    root_->read(object, reader);
    finish(reader);
  }

 private:
  Plan plan_;
  Node const* root_ = nullptr;  // for a class
};

}  // namespace

std::unique_ptr<ProductSerializer> makeUnrolledSerializer(RootType const& type, std::string const& label) {
  if (type.emulated) {
    throw ConfigurationError("serialization=unrolled cannot handle product '" + label + "' of class '" + type.name +
                             "' (emulated: no dictionary); use serialization=root");
  }
  return std::make_unique<UnrolledSerializer>(type, label);
}

}  // namespace lanes::rootio
