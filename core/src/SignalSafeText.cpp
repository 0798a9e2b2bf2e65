#include "lanes/core/detail/SignalSafeText.h"

#include <cstring>

namespace lanes::detail {

namespace {

// The digits of `value` in `base`, written backwards from `end` (which gets the NUL); returns the first.
char* digitsOf(std::uint64_t value, unsigned base, char* end) {
  *--end = '\0';
  do *--end = "0123456789abcdef"[value % base];
  while ((value /= base) != 0);
  return end;
}

}  // namespace

void appendText(char const* text, char* buffer, std::size_t size) noexcept {
  auto const used = std::strlen(buffer);
  if (used + 1 < size) std::strncat(buffer, text, size - used - 1);
}

void appendQuoted(char const* text, char* buffer, std::size_t size) noexcept {
  appendText("'", buffer, size);
  appendText(text, buffer, size);
  appendText("'", buffer, size);
}

void appendUnsigned(std::uint64_t number, char* buffer, std::size_t size) noexcept {
  char digits[24];
  appendText(digitsOf(number, 10, digits + sizeof digits), buffer, size);
}

void appendNumber(std::int64_t number, char* buffer, std::size_t size) noexcept {
  if (number < 0) appendText("-", buffer, size);
  appendUnsigned(number < 0 ? 0 - static_cast<std::uint64_t>(number) : static_cast<std::uint64_t>(number), buffer, size);
}

void appendHex(std::uint64_t number, char* buffer, std::size_t size) noexcept {
  char digits[24];
  appendText("0x", buffer, size);
  appendText(digitsOf(number, 16, digits + sizeof digits), buffer, size);
}

}  // namespace lanes::detail
