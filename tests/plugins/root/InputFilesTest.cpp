// The input-file helpers of the ROOT sources: entry bookkeeping over several
// files, and the small cache of open files.

#include "root/InputFiles.h"

#include <gtest/gtest.h>

#include <linux/magic.h>

#include <atomic>
#include <initializer_list>
#include <thread>
#include <vector>

#include "lanes/core/Exception.h"

namespace lanes::rootio::test {
namespace {

TEST(FileSequenceTest, LocatesGlobalEntriesAcrossFilesIncludingEmptyOnes) {
  FileSequence sequence({"a", "b", "c"});
  sequence.addEntries(3);
  sequence.addEntries(0);
  sequence.addEntries(2);
  EXPECT_EQ(sequence.entries(), 5u);
  EXPECT_EQ(sequence.locate(0), (std::pair<std::size_t, std::uint64_t>{0, 0}));
  EXPECT_EQ(sequence.locate(2), (std::pair<std::size_t, std::uint64_t>{0, 2}));
  EXPECT_EQ(sequence.locate(3), (std::pair<std::size_t, std::uint64_t>{2, 0})) << "the empty file is skipped";
  EXPECT_EQ(sequence.locate(4), (std::pair<std::size_t, std::uint64_t>{2, 1}));
}

TEST(FileSequenceTest, SkipsEntriesWithoutGoingPastTheEnd) {
  FileSequence sequence({"a", "b"});
  sequence.addEntries(3);
  sequence.addEntries(2);
  std::uint64_t next = 1;
  EXPECT_TRUE(sequence.skip(next, 3));
  EXPECT_EQ(next, 4u);
  EXPECT_TRUE(sequence.skip(next, 1));
  EXPECT_EQ(next, 5u);
  EXPECT_TRUE(sequence.skip(next, 0));
  EXPECT_FALSE(sequence.skip(next, 1));
  EXPECT_EQ(next, 5u);
  next = 2;
  EXPECT_FALSE(sequence.skip(next, 10)) << "fewer entries than asked";
  EXPECT_EQ(next, 5u);
}

TEST(FileSequenceTest, CountsFilesWhenReachedAndSharesTheCounts) {
  EntryCounts shared(3);
  std::vector<std::size_t> counted;
  auto count = [&](std::size_t index) {
    counted.push_back(index);
    return std::uint64_t{10} * (index + 1);  // 10, 20, 30 entries
  };
  FileSequence first({"a", "b", "c"});
  EXPECT_TRUE(first.reach(15, shared, count));
  EXPECT_EQ(first.filesCounted(), 2u);
  FileSequence second({"a", "b", "c"});
  EXPECT_TRUE(second.reach(59, shared, count));
  EXPECT_EQ(second.locate(59), (std::pair<std::size_t, std::uint64_t>{2, 29}));
  EXPECT_FALSE(second.reach(60, shared, count)) << "60 entries in all";
  EXPECT_EQ(counted, (std::vector<std::size_t>{0, 1, 2})) << "each file counted once, by the first to reach it";
}

// A copy that needs a file's count while another copy opens that file takes
// the count it learns, and opens nothing.
TEST(FileSequenceTest, ACountUnderWayIsAwaitedNotOpenedAgain) {
  EntryCounts shared(2);
  shared.learn(0, 10);
  auto opening = shared.opening(1);  // another copy opens file 1 now
  std::atomic<int> opened{0};
  std::uint64_t reached = 0;
  std::thread second([&] {
    FileSequence sequence({"a", "b"});
    sequence.reach(15, shared, [&](std::size_t) {
      ++opened;
      return std::uint64_t{99};
    });
    reached = sequence.entries();
  });
  shared.learn(1, 20);
  opening.unlock();
  second.join();
  EXPECT_EQ(opened.load(), 0);
  EXPECT_EQ(reached, 30u) << "the count the opening copy learned";
}

// Copies that open a file whose count is known take no lock: the lanes
// that start a job open its first file side by side.
TEST(FileSequenceTest, AFileCountedAlreadyIsOpenedWithoutTheLock) {
  EntryCounts shared(2);
  shared.learn(0, 10);
  auto first = shared.opening(0);
  auto second = shared.opening(0);  // would wait forever for `first` if it locked
  EXPECT_FALSE(first.owns_lock());
  EXPECT_FALSE(second.owns_lock());
  EXPECT_TRUE(shared.opening(1).owns_lock()) << "a count not yet known is learned by one copy";
}

// Copies of one source on many threads, each counting a long list whose
// every open holds the file's lock until it learns the count: each copy
// finds the same entries, and no file is counted by two copies at once.
TEST(FileSequenceTest, CopiesOnManyThreadsAgreeOnEveryCount) {
  constexpr std::size_t kFiles = 200;
  constexpr int kCopies = 8;
  EntryCounts shared(kFiles);
  std::vector<std::atomic<int>> inside(kFiles);
  std::atomic<bool> overlapped{false};
  std::vector<std::uint64_t> totals(kCopies);
  std::vector<std::thread> copies;
  for (int c = 0; c < kCopies; ++c) {
    copies.emplace_back([&, c] {
      FileSequence sequence(std::vector<std::string>(kFiles, "f"));
      while (sequence.reach(sequence.entries(), shared, [&](std::size_t index) {
        auto const opening = shared.opening(index);
        if (inside[index]++ > 0) overlapped = true;
        std::uint64_t const entries = index % 7;  // some files empty
        shared.learn(index, entries);
        --inside[index];
        return entries;
      })) {
      }
      totals[c] = sequence.entries();
    });
  }
  for (auto& copy : copies) copy.join();
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < kFiles; ++i) expected += i % 7;
  for (auto total : totals) EXPECT_EQ(total, expected);
  EXPECT_FALSE(overlapped.load());
}

// Local disks and memory need no read-ahead cache; network and FUSE
// filesystems, and those statfs() cannot tell, keep ROOT's.
TEST(LocalStorageTest, LocalDisksAndMemoryAreLocalNetworkAndFuseFilesystemsAreNot) {
  for (long type : std::initializer_list<long>{EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC, TMPFS_MAGIC,
                                               OVERLAYFS_SUPER_MAGIC, SQUASHFS_MAGIC, 0x2fc12fc1 /* ZFS */}) {
    EXPECT_TRUE(localStorageType(type)) << std::hex << type;
  }
  for (long type : std::initializer_list<long>{NFS_SUPER_MAGIC, 0x65735546 /* FUSE: EOS, CVMFS */, 0x5346414f /* AFS */,
                                               0x0bd00bd0 /* Lustre */, 0x47504653 /* GPFS */, 0x00c36400 /* CephFS */,
                                               0}) {
    EXPECT_FALSE(localStorageType(type)) << std::hex << type;
  }
  EXPECT_FALSE(onLocalStorage("/proc")) << "procfs: no storage at all";
  EXPECT_FALSE(onLocalStorage("/no/such/path")) << "statfs() cannot tell: not local";
}

TEST(RequireMatchesTest, NamesThePatternThatMatchesNothing) {
  std::vector<std::string> const names{"Jet_pt", "Jet_eta", "nJet"};
  EXPECT_NO_THROW(requireMatches("branches", {"Jet_*", "nJet"}, names, "branch"));
  EXPECT_NO_THROW(requireMatches("exclude", {}, names, "branch"));
  try {
    requireMatches("exclude", {"Jet_*", "Muon_*"}, names, "branch");
    FAIL() << "no exception";
  } catch (Exception const& error) {
    EXPECT_EQ(error.message(), "exclude=Muon_* matches no branch (there are 3)");
  }
}

TEST(RecentlyOpenedTest, KeepsTheMostRecentFilesAndReopensOthers) {
  RecentlyOpened<std::size_t> files;
  std::vector<std::size_t> opened;
  auto open = [&](std::size_t index) {
    opened.push_back(index);
    return std::make_unique<std::size_t>(index);
  };
  for (std::size_t i : {0, 1, 2, 3, 0, 4, 0, 1}) EXPECT_EQ(files.get(i, open), i);
  // 0 was used again before 4 arrived, so 1 (least recent) went, and comes back.
  EXPECT_EQ(opened, (std::vector<std::size_t>{0, 1, 2, 3, 4, 1}));
}

TEST(RecentlyOpenedTest, AFailedOpenLeavesTheCacheAsItWas) {
  RecentlyOpened<int> files;
  auto open = [](std::size_t index) -> std::unique_ptr<int> {
    if (index == 9) throw std::runtime_error("cannot open");
    return std::make_unique<int>(static_cast<int>(index));
  };
  for (std::size_t i : {0, 1, 2, 3}) files.get(i, open);
  EXPECT_THROW(files.get(9, open), std::runtime_error);
  int reopened = 0;
  for (std::size_t i : {0, 1, 2, 3}) files.get(i, [&](std::size_t) { ++reopened; return std::make_unique<int>(0); });
  EXPECT_EQ(reopened, 0);
}

// Opens "good*" files; any other throws, naming the file.
void openGood(std::vector<std::string> const& files, std::size_t index) {
  if (files[index].rfind("good", 0) != 0) throw Exception("'" + files[index] + "' is bad");
}

TEST(SkipBadFilesTest, WithoutSkippingTheFirstFileMustOpen) {
  std::vector<std::string> const files{"bad", "good"};
  EXPECT_THROW(openFirstReadable(files, nullptr, [&](std::size_t i) { openGood(files, i); }), Exception);
  std::vector<std::string> const fine{"good", "bad"};
  EXPECT_EQ(openFirstReadable(fine, nullptr, [&](std::size_t i) { openGood(fine, i); }), 0u);
}

TEST(SkipBadFilesTest, SkipsToTheFirstGoodFileAndNamesTheOthers) {
  std::vector<std::string> const files{"bad1", "bad2", "good"};
  SkippedFiles skipped;
  EXPECT_EQ(openFirstReadable(files, &skipped, [&](std::size_t i) { openGood(files, i); }), 2u);
  EXPECT_EQ(skipped.details(),
            R"({"skipped_files":[{"error":"'bad1' is bad","file":"bad1"},{"error":"'bad2' is bad","file":"bad2"}]})");
}

TEST(SkipBadFilesTest, NoGoodFileIsAnError) {
  std::vector<std::string> const files{"bad1", "bad2"};
  SkippedFiles skipped;
  try {
    openFirstReadable(files, &skipped, [&](std::size_t i) { openGood(files, i); });
    FAIL() << "no file can be read";
  } catch (Exception const& error) {
    EXPECT_EQ(error.message(), "none of the 2 input files can be read (the last: 'bad2' is bad)");
  }
}

TEST(SkipBadFilesTest, BadLaterFilesCountNoEntries) {
  std::vector<std::string> const files{"good", "bad", "good2"};
  EntryCounts counts(files.size());
  SkippedFiles skipped;
  EXPECT_TRUE(skipped.details().empty());
  countOrSkip(files, 1, counts, skipped, [&](std::size_t i) {
    openGood(files, i);
    return std::uint64_t{7};
  });
  EXPECT_FALSE(counts.known(0)) << "the first file is the caller's";
  EXPECT_EQ(counts.known(1), 0u);
  EXPECT_EQ(counts.known(2), 7u);
  EXPECT_EQ(skipped.details(), R"({"skipped_files":[{"error":"'bad' is bad","file":"bad"}]})");
}

}  // namespace
}  // namespace lanes::rootio::test
