#include "lanes/core/Product.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace lanes {

std::byte const* SyntheticBytes::data() const {
  // One zero-filled region shared by every synthetic product. calloc of this
  // size maps the kernel's zero page: reading it costs no physical memory.
  static constexpr std::size_t kLargest = std::size_t{1} << 30;
  static std::byte const* const zeros = static_cast<std::byte const*>(std::calloc(kLargest, 1));
  if (size > kLargest) throw std::length_error("synthetic products are limited to 1 GiB");
  return zeros;
}

namespace {
std::string demangleName(char const* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangled);
}
}  // namespace

std::string demangle(std::type_info const& type) { return demangleName(type.name()); }
std::string demangle(std::type_index type) { return demangleName(type.name()); }

}  // namespace lanes
