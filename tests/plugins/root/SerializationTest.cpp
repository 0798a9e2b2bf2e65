// Framework-side serialisation: every test-products type round-trips through
// root and unrolled serialisation, also from several threads at once; what
// unrolled cannot handle is refused naming the class; damaged bytes throw.

#include <TClass.h>

#include <gtest/gtest.h>

#include <cstring>
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

}  // namespace
}  // namespace lanes::rootio
