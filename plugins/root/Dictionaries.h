#pragma once
// Compiled dictionaries, made at run time, for the classes a file stores but
// this process has no dictionary for. ROOT emulates such classes from the
// file's streamer information: they can be read, but not written (TTree and
// RNTuple both refuse an emulated class), so a job that copies them needs
// real ones.

#include <string>
#include <vector>

class TClass;
class TFile;

namespace lanes::rootio {

// Builds dictionaries for the classes named `emulated` (classes of `file`'s
// branches that ROOT emulates) and everything they need, once, into a subdirectory of `cache`
// named after the classes and their checksums, and loads them; a later job
// with the same classes only loads them. The file's own classes come from
// ROOT's TFile::MakeProject, STL collections of them from ACLiC. Needs a C++
// compiler at run time. Throws lanes::Exception naming the file if a
// dictionary cannot be built.
// Loading replaces ROOT's emulated TClass objects: hold names, not pointers.
void loadDictionaries(TFile& file, std::vector<std::string> const& emulated, std::string const& cache);

}  // namespace lanes::rootio
