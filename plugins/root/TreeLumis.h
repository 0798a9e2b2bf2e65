#pragma once
// The runs and lumis of a TTree input (the `root` source; InputLumis.h says
// what a source makes of them): its events' run and luminosityBlock ids, and
// NanoAOD's `Runs` and `LuminosityBlocks` trees beside `Events`.

#include <optional>
#include <string>
#include <vector>

#include "root/InputLumis.h"

class TFile;
class TLeaf;
class TTree;

namespace lanes::rootio {

// The products of the Runs (or LuminosityBlocks) tree `name` of `file`
// (every branch but run, luminosityBlock, events and the counts of leaf
// arrays), or none if it has no such tree. Throws lanes::Exception naming the file, tree and branch that
// is not a number, nor a leaf array or std::vector of numbers.
std::vector<InputRecords::Column> treeRecordColumns(TFile& file, char const* name);

// The lumis of `events` in `file`: each entry's ids through `runLeaf` and
// `lumiLeaf` (nullptr: no ids, every event in lumi 1:1), compared with the
// rows of its LuminosityBlocks tree as `rows` says. Reads the id branches
// past the tree's read-ahead cache, which is left to learn the branches of
// the products.
FileLumis treeLumis(TFile& file, TTree& events, TLeaf* runLeaf, TLeaf* lumiLeaf, LumiRows rows);

// Adds every row of `file`'s Runs and LuminosityBlocks trees to `records`
// (the columns it declared). Throws lanes::Exception naming the file, tree
// and the branch it lacks.
void addTreeRecords(TFile& file, InputRecords& records);

}  // namespace lanes::rootio
