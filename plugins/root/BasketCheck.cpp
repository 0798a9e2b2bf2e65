#include "root/BasketCheck.h"

#include <TBasket.h>
#include <TBranch.h>
#include <TBuffer.h>
#include <TFile.h>
#include <TMath.h>
#include <TObjArray.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "lanes/core/Exception.h"

namespace lanes::rootio {

namespace {

// A ROOT file's header: no record starts before it.
constexpr long long kFileHeaderBytes = 100;

[[noreturn]] void damaged(TBranch const& branch, long long basket, std::string const& what) {
  throw Exception("basket " + std::to_string(basket) + " of branch '" + branch.GetName() + "' " + what +
                  ": the file is damaged");
}

// The fields of a basket's record header (its key, then the basket's own)
// that ROOT sizes its reading by.
struct BasketHeader {
  int nbytes = 0, objlen = 0, keylen = 0;  // the key's
  int version = 0, bufferSize = 0, nevBufSize = 0, nevBuf = 0, last = 0, flag = 0;  // the basket's
  int parsed = 0;  // the header's length as its fields say
};

// Big-endian fields, as ROOT writes them; reads past `size` give 0.
class HeaderReader {
 public:
  HeaderReader(unsigned char const* bytes, int size) : bytes_(bytes), size_(size) {}
  long long field(int width) {
    long long value = 0;
    for (int i = 0; i < width; ++i) value = value << 8 | (at_ < size_ ? bytes_[at_] : 0), ++at_;
    return width == 2 ? static_cast<short>(value) : width == 4 ? static_cast<int>(value) : value;
  }
  void skipString() {
    auto length = field(1) & 0xff;
    if (length == 255) length = field(4);
    at_ += static_cast<int>(length);
  }
  int at() const { return at_; }

 private:
  unsigned char const* bytes_;
  int size_;
  int at_ = 0;
};

// The record header of the basket at `seek`, or nullopt if it cannot be read.
std::optional<BasketHeader> readHeader(TFile& file, long long seek, int bytes) {
  unsigned char buffer[512] = {};
  int const size = std::min<int>(sizeof buffer, bytes);
  if (size <= 0 || file.ReadBuffer(reinterpret_cast<char*>(buffer), seek, size)) return std::nullopt;
  HeaderReader in(buffer, size);
  BasketHeader header;
  header.nbytes = static_cast<int>(in.field(4));
  auto const version = in.field(2);
  header.objlen = static_cast<int>(in.field(4));
  in.field(4);  // date and time
  header.keylen = static_cast<int>(in.field(2) & 0xffff);
  in.field(2);  // cycle
  in.field(version > 1000 ? 16 : 8);  // where the key and its directory are
  for (int i = 0; i < 3; ++i) in.skipString();  // class name, name, title
  header.version = static_cast<int>(in.field(2));
  header.bufferSize = static_cast<int>(in.field(4));
  header.nevBufSize = static_cast<int>(in.field(4));
  if (header.nevBufSize < 0) {  // I/O feature bits follow
    header.nevBufSize = -header.nevBufSize;
    in.field(1);
  }
  header.nevBuf = static_cast<int>(in.field(4));
  header.last = static_cast<int>(in.field(4));
  header.flag = static_cast<int>(in.field(1) & 0xff);
  header.parsed = in.at();
  return header;
}

template <typename Visit>
void forEachBranch(TBranch& branch, Visit const& visit) {
  visit(branch);
  for (auto* sub : *branch.GetListOfBranches()) forEachBranch(*static_cast<TBranch*>(sub), visit);
}

// requireBasketsInFile() for a file of `fileBytes` bytes: the error names the branch and basket.
void requireBasketPlaces(TBranch& top, long long fileBytes) {
  forEachBranch(top, [fileBytes](TBranch& branch) {
    // Baskets 0 .. GetWriteBasket()-1 are records of the file; the one after
    // them, if any, is in the tree's own record.
    int const written = branch.GetWriteBasket();
    auto const* bytes = branch.GetBasketBytes();
    auto const* entries = branch.GetBasketEntry();
    if (written < 0 || written >= branch.GetMaxBaskets() || !bytes || !entries) {
      throw Exception("branch '" + std::string(branch.GetName()) + "' says it has " + std::to_string(written) +
                      " baskets, out of its room for " + std::to_string(branch.GetMaxBaskets()) + ": the file is damaged");
    }
    for (int basket = 0; basket <= written; ++basket) {
      if (entries[basket] < (basket ? entries[basket - 1] : 0) || entries[basket] > branch.GetEntryNumber()) {
        damaged(branch, basket, "starts at entry " + std::to_string(entries[basket]) + ", out of order or past the " +
                                    std::to_string(branch.GetEntryNumber()) + " entries of its branch");
      }
      if (basket == written) break;
      auto const seek = branch.GetBasketSeek(basket);
      if (seek < kFileHeaderBytes || bytes[basket] < 0 || seek + bytes[basket] > fileBytes) {
        damaged(branch, basket, "lies at bytes " + std::to_string(seek) + ".." + std::to_string(seek + bytes[basket]) +
                                    ", outside the file's " + std::to_string(fileBytes));
      }
    }
  });
}

}  // namespace

void requireBasketsInFile(TBranch& branch, long long fileBytes, std::string const& path, std::string const& tree) {
  try {
    requireBasketPlaces(branch, fileBytes);
  } catch (Exception const& damage) {
    throw Exception("'" + path + "': TTree '" + tree + "': " + damage.message());
  }
}

std::string basketPlaceProblem(TBranch& branch, long long fileBytes) {
  try {
    requireBasketPlaces(branch, fileBytes);
  } catch (Exception const& damage) {
    return damage.message();
  }
  return {};
}

// Before ROOT reads basket `number`: its header sizes the arrays that ROOT
// fills from the basket, and is covered by no checksum.
void BasketCheck::checkHeader(TBranch& branch, int number, long long entries) const {
  int const bytes = branch.GetBasketBytes()[number];
  auto const header = readHeader(file_, branch.GetBasketSeek(number), bytes);
  if (!header) return;  // ROOT cannot read it either, and says so
  // A basket record's header is written alone (flag 0, or 80 where the
  // entry offsets are to be computed); a version ROOT would take for a byte
  // count shifts every field after it.
  if (header->nbytes != bytes || header->parsed != header->keylen || header->objlen < 0 || header->version <= 0 ||
      header->version > TBasket::Class_Version() || header->bufferSize < 0 || (header->flag != 0 && header->flag != 80)) {
    damaged(branch, number, "has a record header that does not fit its " + std::to_string(bytes) + " bytes");
  }
  if (header->nevBuf != entries) {
    damaged(branch, number, "holds " + std::to_string(header->nevBuf) + " entries where the tree says " +
                                std::to_string(entries));
  }
  if (header->last < header->keylen || header->last > header->keylen + header->objlen) {
    damaged(branch, number, "says its data end at byte " + std::to_string(header->last) + ", outside its " +
                                std::to_string(header->keylen + header->objlen));
  }
  if (branch.GetEntryOffsetLen() > 0 && header->nevBufSize <= header->nevBuf) {
    damaged(branch, number, "has room for " + std::to_string(header->nevBufSize) + " entry offsets, not " +
                                std::to_string(header->nevBuf + 1));
  }
}

BasketCheck::BasketCheck(TBranch& branch, TFile& file) : file_(file) {
  forEachBranch(branch, [this](TBranch& each) { branches_.push_back({&each}); });
}

void BasketCheck::checkBaskets(long long entry) {
  checkedFirst_ = checkedEnd_ = 0;  // none, until every branch's basket is checked
  auto first = std::numeric_limits<long long>::min();
  auto end = std::numeric_limits<long long>::max();
  for (auto& checked : branches_) {
    if (entry < checked.first || entry >= checked.end) check(checked, entry);
    first = std::max(first, checked.first);
    end = std::min(end, checked.end);
  }
  checkedFirst_ = first;
  checkedEnd_ = end;
}

void BasketCheck::check(Checked& checked, long long entry) {
  auto& branch = *checked.branch;
  if (entry < branch.GetFirstEntry() || entry >= branch.GetEntryNumber()) return;  // ROOT reads nothing
  int const written = branch.GetWriteBasket();
  auto const* starts = branch.GetBasketEntry();
  auto const number = TMath::BinarySearch(static_cast<Long64_t>(written) + 1, starts, static_cast<Long64_t>(entry));
  long long const first = starts[number];
  long long const end = number < written ? starts[number + 1] : branch.GetEntryNumber();
  if (number < written) checkHeader(branch, static_cast<int>(number), end - first);
  auto* basket = branch.GetBasket(static_cast<Int_t>(number));
  if (!basket || !basket->GetBufferRef()) return;  // GetEntry fails, saying why
  int const entries = basket->GetNevBuf();
  if (entries != end - first) {
    damaged(branch, number, "holds " + std::to_string(entries) + " entries where the tree says " + std::to_string(end - first));
  }
  int const begin = basket->GetKeylen();
  int const last = basket->GetLast();
  if (last < begin || last > basket->GetBufferRef()->BufferSize()) {
    damaged(branch, number, "ends at byte " + std::to_string(last) + ", outside its buffer of " +
                                std::to_string(basket->GetBufferRef()->BufferSize()));
  }
  if (auto const* offsets = basket->GetEntryOffset()) {
    for (int i = 0; i < entries; ++i) {
      if (offsets[i] < begin || offsets[i] > last || (i > 0 && offsets[i] < offsets[i - 1])) {
        damaged(branch, number, "says entry " + std::to_string(first + i) + " starts at byte " + std::to_string(offsets[i]) +
                                    ", outside its data (bytes " + std::to_string(begin) + ".." + std::to_string(last) + ")");
      }
    }
  } else if (static_cast<long long>(begin) + static_cast<long long>(entries) * basket->GetNevBufSize() > last) {
    damaged(branch, number, "holds " + std::to_string(entries) + " entries of " + std::to_string(basket->GetNevBufSize()) +
                                " bytes, more than its data (bytes " + std::to_string(begin) + ".." + std::to_string(last) + ")");
  }
  checked.first = first;
  checked.end = end;
}

}  // namespace lanes::rootio
