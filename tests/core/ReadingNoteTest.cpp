// What a thread reads now, for the report of a fatal signal: the note a
// source sets, nested notes, and one note per thread under contention.

#include "lanes/core/ReadingNote.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace lanes {
namespace {

std::string described(ReadingNote const& note, std::size_t size = 1024) {
  std::vector<char> buffer(size, '\0');
  appendReading(note, buffer.data(), buffer.size());
  return buffer.data();
}

TEST(ReadingNote, SaysWhatIsReadAtEachDepth) {
  EXPECT_EQ(described({}), "");
  EXPECT_EQ(described({"f.root"}), "while opening 'f.root'");
  EXPECT_EQ(described({"f.root", "TTree", "Events"}), "while reading the metadata of TTree 'Events' in 'f.root'");
  EXPECT_EQ(described({"f.root", "TTree", "Events", "branch", "Jet_pt"}),
            "while reading branch 'Jet_pt' of TTree 'Events' in 'f.root'");
  EXPECT_EQ(described({"f.root", "RNTuple", "Events", "field", "nMuon", 1234567890123}),
            "while reading field 'nMuon' of entry 1234567890123 of RNTuple 'Events' in 'f.root'");
  EXPECT_EQ(described({"f.root", "TTree", "Events", "branch", "x", 0}),
            "while reading branch 'x' of entry 0 of TTree 'Events' in 'f.root'");
}

TEST(ReadingNote, AppendsWhatFits) {
  char buffer[24] = "at: ";
  appendReading({"a-rather-long-file-name.root"}, buffer, sizeof buffer);
  EXPECT_EQ(std::string(buffer), "at: while opening 'a-ra");
}

TEST(ReadingScope, RestoresTheNoteItReplaced) {
  EXPECT_EQ(readingNow().file, nullptr);
  {
    ReadingScope outer({"a.root", "TTree", "Events", "branch", "x", 3});
    {
      ReadingScope const inner({"b.root"});  // the next file, opened inside the read
      EXPECT_EQ(described(readingNow()), "while opening 'b.root'");
    }
    EXPECT_EQ(described(readingNow()), "while reading branch 'x' of entry 3 of TTree 'Events' in 'a.root'");
    outer.entry(4);
    EXPECT_EQ(readingNow().entry, 4);
  }
  EXPECT_EQ(readingNow().file, nullptr);
}

class ReadingScopeThreads : public testing::TestWithParam<unsigned> {};

// Each thread sees only its own notes, however the others change theirs.
TEST_P(ReadingScopeThreads, EachThreadSeesItsOwnNote) {
  unsigned const threads = GetParam();
  std::vector<std::string> names;
  for (unsigned t = 0; t < threads; ++t) names.push_back("file-" + std::to_string(t) + ".root");
  std::atomic<unsigned> wrong{0};
  std::atomic<unsigned> ready{0};
  std::vector<std::thread> readers;
  for (unsigned t = 0; t < threads; ++t) {
    readers.emplace_back([&, t] {
      ++ready;
      while (ready.load() < threads) std::this_thread::yield();  // all at once
      for (std::int64_t entry = 0; entry < 20000; ++entry) {
        ReadingScope reading({names[t].c_str(), "TTree", "Events", "branch", "x", entry});
        if (readingNow().file != names[t].c_str() || readingNow().entry != entry) ++wrong;
        reading.entry(entry + 1);
        if (readingNow().entry != entry + 1) ++wrong;
      }
      if (readingNow().file != nullptr) ++wrong;
    });
  }
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(wrong.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Threads, ReadingScopeThreads, testing::Range(1u, 5u));

}  // namespace
}  // namespace lanes
