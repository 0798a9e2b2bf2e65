// Framework-side serialisation: every test-products type round-trips through
// root and unrolled serialisation, also from several threads at once and into
// objects that held another event's product; what unrolled cannot handle is
// refused naming the class; damaged bytes throw. A std::vector of numbers,
// which root serialisation streams without ROOT, takes ROOT's own bytes.

#include <TBufferFile.h>
#include <TClass.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>

#include "lanes/core/Exception.h"
#include "root/Serialization.h"
#include "root/TestProducts.h"

namespace lanes::rootio {
namespace {

struct Case {
  TestProduct const* product;
  std::unique_ptr<ProductSerializer> serializer;
};

std::vector<Case> casesFor(SerializationKind kind) {
  std::vector<Case> cases;
  for (auto const& product : testProducts()) {
    auto const type = rootTypeOf(product.label, product.type, demangle(product.type));
    cases.push_back({&product, makeSerializer(kind, type, product.label)});
  }
  return cases;
}

// Serialises the value of event `event` and reads it back; true if equal.
bool roundTrips(Case const& c, std::uint64_t event) {
  ProductSlot original, copy;
  c.product->fill(event, original);
  std::vector<char> bytes;
  c.serializer->write(original.object(), bytes);
  c.serializer->read(bytes.data(), bytes.size(), copy);
  return copy.filled() && copy.type() == c.product->type && c.product->matches(event, copy.object());
}

class SerializationTest : public ::testing::TestWithParam<SerializationKind> {};

TEST_P(SerializationTest, EveryTestProductRoundTrips) {
  auto const cases = casesFor(GetParam());
  for (auto const& c : cases) {
    for (std::uint64_t event = 1; event <= 30; ++event) {
      EXPECT_TRUE(roundTrips(c, event)) << c.product->label << " of event " << event;
    }
  }
}

TEST_P(SerializationTest, ConcurrentRoundTripsAgree) {
  auto const cases = casesFor(GetParam());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint64_t event = 1; event <= 200; ++event) {
        for (auto const& c : cases) failures += roundTrips(c, event * 4 + t) ? 0 : 1;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_P(SerializationTest, BytesThatDoNotHoldOneProductThrow) {
  auto const cases = casesFor(GetParam());
  for (auto const& c : cases) {
    ProductSlot original, copy;
    c.product->fill(7, original);
    std::vector<char> bytes;
    c.serializer->write(original.object(), bytes);
    bytes.push_back('x');  // one byte too many
    EXPECT_THROW(c.serializer->read(bytes.data(), bytes.size(), copy), Exception) << c.product->label;
  }
}

TEST_P(SerializationTest, ReadingIntoAnObjectReplacesTheProductItHeld) {
  auto const cases = casesFor(GetParam());
  for (auto const& c : cases) {
    auto const& type = c.serializer->type();
    if (type.fundamental) continue;
    void* object = type.cls->New();
    for (std::uint64_t event : {7, 3, 12, 1}) {  // longer and shorter collections, in turn
      ProductSlot original;
      c.product->fill(event, original);
      std::vector<char> bytes;
      c.serializer->write(original.object(), bytes);
      c.serializer->readInto(bytes.data(), bytes.size(), object);
      EXPECT_TRUE(c.product->matches(event, object)) << c.product->label << " of event " << event;
    }
    type.cls->Destructor(object);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, SerializationTest,
                         ::testing::Values(SerializationKind::Root, SerializationKind::Unrolled),
                         [](auto const& info) { return nameOf(info.param); });

TEST(UnrolledSerializationTest, RefusesTObjectClassesNamingThem) {
  RootType type;
  type.cls = TClass::GetClass("TNamed");
  type.name = "TNamed";
  try {
    makeSerializer(SerializationKind::Unrolled, type, "names");
    FAIL() << "no error";
  } catch (ConfigurationError const& error) {
    EXPECT_NE(error.message().find("product 'names': class 'TNamed' derives from TObject"), std::string::npos)
        << error.message();
  }
  EXPECT_NE(makeSerializer(SerializationKind::Root, type, "names"), nullptr);
}

TEST(UnrolledSerializationTest, WritesAVectorOfNumbersAsItsCountAndValues) {
  auto const* floats = findTestProduct("floats");
  auto const type = rootTypeOf("floats", floats->type, demangle(floats->type));
  ProductSlot value;
  floats->fill(6, value);
  std::vector<char> unrolled;
  makeSerializer(SerializationKind::Unrolled, type, "floats")->write(value.object(), unrolled);
  ASSERT_EQ(unrolled.size(), sizeof(std::uint32_t) + 6 * sizeof(float));
  std::uint32_t count = 0;
  float first = 0;
  std::memcpy(&count, unrolled.data(), sizeof count);
  std::memcpy(&first, unrolled.data() + sizeof count, sizeof first);
  EXPECT_EQ(count, 6u);
  EXPECT_EQ(first, static_cast<std::vector<float> const*>(value.object())->front());
}

// The bytes ROOT's TBufferFile makes of `values` through its class's streamer.
template <typename T>
std::vector<char> rootBytes(std::vector<T>& values) {
  TBufferFile buffer(TBuffer::kWrite);
  TClass::GetClass(typeid(std::vector<T>))->Streamer(&values, buffer);
  return {buffer.Buffer(), buffer.Buffer() + buffer.Length()};
}

template <typename T>
void expectROOTsBytes(std::vector<T> values) {
  auto const name = TClass::GetClass(typeid(std::vector<T>))->GetName();
  auto const serializer = makeSerializer(SerializationKind::Root, rootTypeOf("v", typeid(std::vector<T>), name), "v");
  std::vector<char> ours;
  serializer->write(&values, ours);
  EXPECT_EQ(ours, rootBytes(values)) << name;
  std::vector<T> copy(7);  // longer than any written here: shrinks
  serializer->readInto(ours.data(), ours.size(), &copy);
  EXPECT_EQ(copy, values) << name;
}

TEST(RootSerializationTest, AVectorOfNumbersTakesROOTsOwnBytes) {
  expectROOTsBytes<bool>({true, false, false, true});
  expectROOTsBytes<char>({'a', -3});
  expectROOTsBytes<unsigned char>({0, 255, 7});
  expectROOTsBytes<short>({-2, 31000});
  expectROOTsBytes<unsigned short>({65535, 1});
  expectROOTsBytes<int>({-1, 1 << 30, 5});
  expectROOTsBytes<unsigned int>({4000000000u});
  expectROOTsBytes<long>({-5, std::numeric_limits<long>::max()});
  expectROOTsBytes<unsigned long>({std::numeric_limits<unsigned long>::max()});
  expectROOTsBytes<long long>({std::numeric_limits<long long>::min()});
  expectROOTsBytes<unsigned long long>({1, 2, 3});
  expectROOTsBytes<float>({1.5f, -0.0f, std::numeric_limits<float>::infinity(), 3.25e-20f});
  expectROOTsBytes<double>({-2.5, 1e300});
  expectROOTsBytes<float>({});
}

TEST(RootSerializationTest, AVectorOfNumbersInBytesThatDoNotHoldOneThrows) {
  auto const serializer =
      makeSerializer(SerializationKind::Root, rootTypeOf("v", typeid(std::vector<float>), "vector<float>"), "v");
  std::vector<float> values{1, 2, 3}, copy;
  std::vector<char> bytes;
  serializer->write(&values, bytes);
  auto const expectThrow = [&](std::size_t size, std::string const& message) {
    try {
      serializer->readInto(bytes.data(), size, &copy);
      ADD_FAILURE() << "no error for " << size << " bytes";
    } catch (Exception const& error) {
      EXPECT_EQ(error.message(), message);
    }
  };
  expectThrow(bytes.size() - 1, "15 bytes do not hold one vector<float> (it takes 16)");
  expectThrow(3, "3 bytes do not hold one vector<float>");
  bytes[0] = '\xff';  // a negative count
  expectThrow(bytes.size(), "16 bytes do not hold one vector<float>");
}

}  // namespace
}  // namespace lanes::rootio
