#pragma once
// What the ROOT plugin tests share: the experiment files in data/files, a
// scratch directory, and a job run through the public EventProcessor.

#include <filesystem>
#include <string>

#include "lanes/core/EventProcessor.h"
#include "lanes/core/JobConfig.h"
#include "lanes/core/Source.h"

namespace lanes::rootio::test {

// A file of data/files, e.g. dataFile("uproot-HZZ-objects.root").
std::string dataFile(std::string const& name);

inline std::string const kNanoAod = "nanoAOD_2015_CMS_Open_Data_ttbar.root";
inline std::string const kHzz = "uproot-HZZ-objects.root";
inline std::string const kFullSplit = "uproot-small-evnt-tree-fullsplit.root";
inline std::string const kVectors = "nanoAOD_2015_ttbar_vector_branches.root";
inline std::string const kMuons = "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root";
inline std::string const kPhyslite = "rntuple/uproot-physlite-rntuple_v1-0-0-0.root";

// A fresh directory, removed with everything in it at the end of the test.
class ScratchDirectory {
 public:
  ScratchDirectory();
  ~ScratchDirectory();
  ScratchDirectory(ScratchDirectory const&) = delete;
  ScratchDirectory& operator=(ScratchDirectory const&) = delete;

  std::string path(std::string const& name) const { return (root_ / name).string(); }
  // The names of the files in it, sorted.
  std::vector<std::string> files() const;

 private:
  std::filesystem::path root_;
};

// The index of product `label` among `source`'s; throws std::runtime_error if none.
std::size_t indexOf(Source const& source, std::string const& label);

// A job of `source` and `outputs` (specs) on `threads` threads and `lanes` lanes.
JobConfig rootJob(std::string const& source, std::vector<std::string> const& outputs, unsigned threads = 2,
                  unsigned lanes = 0);

}  // namespace lanes::rootio::test
