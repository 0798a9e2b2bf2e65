#pragma once
// One section of an ELF file (a shared library), read from the file without
// loading it: lanes reads a plugin library's stamp before any of its code
// runs (PluginLibraries.h). A free function without state: thread-safe.

#include <optional>
#include <string>

namespace lanes::cli {

// The bytes of section `name` of the file at `path`, a 64-bit ELF file of
// this machine's byte order; nothing when the file is not one, has no such
// section, or its headers point outside it. Throws lanes::Exception when the
// file cannot be opened or read.
std::optional<std::string> readElfSection(std::string const& path, std::string const& name);

}  // namespace lanes::cli
