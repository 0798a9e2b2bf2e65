#pragma once
// The runs and lumis of an RNTuple input (the `rntuple` source; InputLumis.h
// says what a source makes of them): NanoAOD's `Runs` and `LuminosityBlocks`
// as RNTuples of those names beside `Events`.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "root/InputLumis.h"

class TFile;

namespace lanes::rootio {

// The products of the Runs (or LuminosityBlocks) RNTuple `name` of `file`
// (every top-level field but run, luminosityBlock and events), or none if it
// has no such RNTuple. Throws lanes::Exception naming the file, RNTuple and
// field that is not a number, nor an RVec or std::vector of numbers.
std::vector<InputRecords::Column> ntupleRecordColumns(TFile& file, char const* name);

// The lumis of the `entries` events of RNTuple `events` in `file`,
// `idOf(entry)` each one's, compared with the rows of its LuminosityBlocks
// RNTuple as `rows` says.
FileLumis ntupleLumis(TFile& file, std::string const& events, std::uint64_t entries,
                      std::function<LumiNumber(std::uint64_t)> const& idOf, LumiRows rows);

// Adds every row of `file`'s Runs and LuminosityBlocks RNTuples to
// `records` (the columns it declared). Throws lanes::Exception naming the
// file, RNTuple and the field it lacks.
void addNTupleRecords(TFile& file, InputRecords& records);

}  // namespace lanes::rootio
