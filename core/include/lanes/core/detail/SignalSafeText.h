#pragma once
// Text built without allocating or locking, for what a signal handler
// writes: appends to a NUL-terminated buffer, cutting what does not fit.
// strlen and strncat are async-signal-safe (POSIX.1-2016).

#include <cstddef>
#include <cstdint>

namespace lanes::detail {

// Appends what fits of `text` to the NUL-terminated text in `buffer`, of `size` bytes.
void appendText(char const* text, char* buffer, std::size_t size) noexcept;
// 'text', quoted.
void appendQuoted(char const* text, char* buffer, std::size_t size) noexcept;
void appendNumber(std::int64_t number, char* buffer, std::size_t size) noexcept;
void appendUnsigned(std::uint64_t number, char* buffer, std::size_t size) noexcept;
// 0x1f2e, the number in hexadecimal.
void appendHex(std::uint64_t number, char* buffer, std::size_t size) noexcept;

}  // namespace lanes::detail
