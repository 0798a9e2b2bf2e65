#include "ElfSection.h"

#include <elf.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "lanes/core/Exception.h"

namespace lanes::cli {

namespace {

// Larger tables than this are damage, not a shared library's.
constexpr std::uint64_t kMaxTable = 64 << 20;

class ElfFile {
 public:
  explicit ElfFile(std::string const& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) fail();
    in_.seekg(0, std::ios::end);
    size_ = static_cast<std::uint64_t>(in_.tellg());
  }

  // `size` bytes at `offset`, or nothing if they lie outside the file.
  std::optional<std::string> bytes(std::uint64_t offset, std::uint64_t size) {
    if (offset > size_ || size > size_ - offset || size > kMaxTable) return std::nullopt;
    std::string data(size, '\0');
    in_.seekg(static_cast<std::streamoff>(offset));
    if (!in_.read(data.data(), static_cast<std::streamsize>(size))) fail();
    return data;
  }

  template <typename T>
  std::optional<T> object(std::uint64_t offset) {
    auto const data = bytes(offset, sizeof(T));
    if (!data) return std::nullopt;
    T value;
    std::memcpy(&value, data->data(), sizeof(T));
    return value;
  }

 private:
  [[noreturn]] void fail() const {
    throw Exception("cannot read '" + path_ + "'" + (errno ? std::string(": ") + std::strerror(errno) : ""));
  }

  std::string path_;
  std::ifstream in_;
  std::uint64_t size_ = 0;
};

bool isNativeElf64(Elf64_Ehdr const& header) {
  unsigned char const order = std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
  return std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == ELFCLASS64 &&
         header.e_ident[EI_DATA] == order && header.e_shentsize == sizeof(Elf64_Shdr);
}

}  // namespace

std::optional<std::string> readElfSection(std::string const& path, std::string const& name) {
  ElfFile file(path);
  auto const header = file.object<Elf64_Ehdr>(0);
  if (!header || !isNativeElf64(*header) || header->e_shstrndx >= header->e_shnum) return std::nullopt;
  std::vector<Elf64_Shdr> sections;
  for (unsigned i = 0; i < header->e_shnum; ++i) {
    auto const section = file.object<Elf64_Shdr>(header->e_shoff + std::uint64_t{i} * sizeof(Elf64_Shdr));
    if (!section) return std::nullopt;
    sections.push_back(*section);
  }
  auto const& namesSection = sections[header->e_shstrndx];
  auto const names = file.bytes(namesSection.sh_offset, namesSection.sh_size);
  if (!names) return std::nullopt;
  for (auto const& section : sections) {
    if (section.sh_name >= names->size() || section.sh_type == SHT_NOBITS) continue;
    auto const* entry = names->data() + section.sh_name;
    if (std::string(entry, strnlen(entry, names->size() - section.sh_name)) != name) continue;
    return file.bytes(section.sh_offset, section.sh_size);
  }
  return std::nullopt;
}

}  // namespace lanes::cli
