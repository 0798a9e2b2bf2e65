#pragma once
// SHA-256 (FIPS 180-4) of a file, as a report's provenance names the menu a
// job ran: `sha256sum FILE` gives the same digest.

#include <string>

namespace lanes {

// The lowercase hexadecimal digest of `bytes`.
std::string sha256(std::string const& bytes);

// The digest of the file at `path`; throws lanes::Exception naming the file
// if it cannot be read.
std::string sha256OfFile(std::string const& path);

}  // namespace lanes
