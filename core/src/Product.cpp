#include "lanes/core/Product.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace lanes {

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
