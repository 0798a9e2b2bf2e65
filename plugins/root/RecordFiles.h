#pragma once
// The run and lumi records of a ROOT output (TreeRecords.h) as its file
// holds them: the TTrees `LuminosityBlocks` and `Runs` beside a TTree
// output's `Events`, RNTuples of those names beside an RNTuple output's. A
// product a row lacks is written as its type's default value (0, an empty
// vector). Written, and read back from the parts of a multi-process job, on
// one thread.

#include <string>
#include <vector>

#include "root/TreeRecords.h"
#include "root/TreeFiller.h"

class TDirectory;
class TFile;
class TTree;

namespace lanes::rootio {

// Fills the TTrees of `records` in `directory`, which owns them, and returns
// them unwritten: a shared-writer batch writes them with its file. Throws
// lanes::Exception if ROOT cannot.
std::vector<TTree*> fillRecordTrees(TreeRecords const& records, TDirectory& directory, TreeSettings const& settings);
// Fills and writes them into `directory`, replacing trees of those names.
void writeRecordTrees(TreeRecords const& records, TDirectory& directory, TreeSettings const& settings);
// Adds the rows of the record trees in `directory` (of the file `path`) to
// `records`. Throws lanes::Exception naming the file and what it lacks.
void readRecordTrees(TDirectory& directory, std::string const& path, TreeRecords& records);

// Writes `records` as RNTuples into `file`, compressed as `compression`.
void writeRecordNTuples(TreeRecords const& records, TFile& file, int compression);
// Adds the rows of the record RNTuples in `file` to `records`.
void readRecordNTuples(TFile& file, TreeRecords& records);

// Opens the finished output file at `path` and writes `records` into it
// (`ntuples`: as RNTuples, else as TTrees), replacing records of those names
// (a part it was merged from held its own). Throws lanes::Exception naming the
// file.
void writeRecordsInto(std::string const& path, TreeRecords const& records, bool ntuples, int compression);
// Reads the records of each file of `paths` into `records`.
void readRecordsOf(std::vector<std::string> const& paths, TreeRecords& records, bool ntuples);

}  // namespace lanes::rootio
