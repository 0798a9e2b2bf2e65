#include "lanes/monitor/Sha256.h"

#include <fstream>

#include <gtest/gtest.h>

#include "lanes/core/Exception.h"

namespace lanes {
namespace {

TEST(Sha256, GivesTheStandardsDigests) {  // FIPS 180-4's examples
  EXPECT_EQ(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PadsMessagesThatEndAtEveryPlaceInABlock) {  // digests by Python's hashlib
  EXPECT_EQ(sha256(std::string(55, 'x')), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  EXPECT_EQ(sha256(std::string(56, 'x')), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  EXPECT_EQ(sha256(std::string(63, 'x')), "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2");
  EXPECT_EQ(sha256(std::string(64, 'x')), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
  EXPECT_EQ(sha256(std::string(119, 'x')), "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c");
}

TEST(Sha256, HashesAFileAndNamesOneItCannotRead) {
  auto const path = testing::TempDir() + "lanes-sha256-menu.toml";
  std::ofstream(path) << "[job]\nthreads = 2\n";
  EXPECT_EQ(sha256OfFile(path), "077b0b68f7696280ac03e045e52dcb2902b5a36c968c44219c28ba77f8df62b5");
  try {
    sha256OfFile(path + ".missing");
    FAIL() << "expected lanes::Exception";
  } catch (Exception const& error) {
    EXPECT_NE(std::string(error.what()).find(path + ".missing"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace lanes
