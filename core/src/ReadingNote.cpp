#include "lanes/core/ReadingNote.h"

#include <cstring>

namespace lanes {

namespace {

// strncat and strlen are async-signal-safe (POSIX.1-2016).
void append(char const* text, char* buffer, std::size_t size) {
  auto const used = std::strlen(buffer);
  if (used + 1 < size) std::strncat(buffer, text, size - used - 1);
}

void appendQuoted(char const* text, char* buffer, std::size_t size) {
  append("'", buffer, size);
  append(text, buffer, size);
  append("'", buffer, size);
}

void appendNumber(std::int64_t number, char* buffer, std::size_t size) {
  char digits[24];
  auto* end = digits + sizeof digits;
  auto* first = end;
  *--first = '\0';
  auto value = number < 0 ? 0 - static_cast<std::uint64_t>(number) : static_cast<std::uint64_t>(number);
  do *--first = static_cast<char>('0' + value % 10);
  while ((value /= 10) != 0);
  if (number < 0) *--first = '-';
  append(first, buffer, size);
}

}  // namespace

void appendReading(ReadingNote const& note, char* buffer, std::size_t size) noexcept {
  if (!note.file) return;
  if (!note.datasetKind) {
    append("while opening ", buffer, size);
  } else {
    append("while reading ", buffer, size);
    if (note.itemKind) {
      append(note.itemKind, buffer, size);
      append(" ", buffer, size);
      appendQuoted(note.item, buffer, size);
      if (note.entry >= 0) {
        append(" of entry ", buffer, size);
        appendNumber(note.entry, buffer, size);
      }
      append(" of ", buffer, size);
    } else {
      append("the metadata of ", buffer, size);
    }
    append(note.datasetKind, buffer, size);
    append(" ", buffer, size);
    appendQuoted(note.dataset, buffer, size);
    append(" in ", buffer, size);
  }
  appendQuoted(note.file, buffer, size);
}

}  // namespace lanes
