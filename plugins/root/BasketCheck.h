#pragma once
// Cheap checks of a TTree's baskets before ROOT follows what they say. A
// basket's bytes are checked by its compression only where the algorithm
// carries a checksum (ROOT's zlib and lz4 do; its zstd frames and a basket
// that compression did not shrink, stored as it is, do not), and ROOT trusts
// what it reads: a damaged entry offset sends it to read outside the basket,
// and the process dies of a segmentation fault. These checks catch that
// damage first, as one error naming the basket:
// - when a file is opened, each basket's place (seek and length) against
//   the file's size, and the entries the tree says each basket holds;
// - when a basket is first read: before ROOT reads it, its record header
//   (its length, the entries it holds, where its data end, its room for
//   entry offsets); after, its entry offsets against its data.
// Values damaged inside an entry stay unseen (no checksum covers them).

#include <string>
#include <vector>

class TBranch;
class TFile;

namespace lanes::rootio {

// Throws lanes::Exception naming the file at `path`, TTree `tree`, `branch`
// (or a sub-branch) and the basket whose place or entry range, as the tree's
// metadata states it, does not fit the file's `fileBytes` (TFile::GetSize(),
// which asks the system each time: take it once per file, not per branch)
// or the branch's entries.
void requireBasketsInFile(TBranch& branch, long long fileBytes, std::string const& path, std::string const& tree);

// What requireBasketsInFile() finds wrong with `branch` in a file of
// `fileBytes`, naming the branch and basket but not the file ("" if nothing).
std::string basketPlaceProblem(TBranch& branch, long long fileBytes);

// Lane-confined, like the open file whose branch it checks: one per product
// of an open file.
class BasketCheck {
 public:
  // Checks `branch` and every sub-branch (a split object reads them all),
  // whose baskets are records of `file`.
  BasketCheck(TBranch& branch, TFile& file);

  // Before `entry` is read: reads each basket that holds it and has not been
  // checked (ROOT then reads the entry from it, not again from the file),
  // and throws lanes::Exception saying what is wrong with it, if anything.
  void require(long long entry) {
    if (entry < checkedFirst_ || entry >= checkedEnd_) checkBaskets(entry);
  }

 private:
  struct Checked {
    TBranch* branch;
    long long first = 0, end = 0;  // the entries of the basket checked last
  };
  void checkBaskets(long long entry);
  void check(Checked& checked, long long entry);
  void checkHeader(TBranch& branch, int number, long long entries) const;

  TFile& file_;
  std::vector<Checked> branches_;
  long long checkedFirst_ = 0, checkedEnd_ = 0;  // the entries that every branch's basket checked last holds
};

}  // namespace lanes::rootio
