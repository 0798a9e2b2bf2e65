#pragma once
// The files a job reads and writes, as its plugins' file options
// (PluginInfo::files) and the command line name them, and the check that
// nothing the job writes is a file it also reads or writes elsewhere: an
// output over its input, two outputs into one file, a report over a trace.

#include <string>
#include <vector>

#include "lanes/core/JobConfig.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes {

struct JobFile {
  std::string path;
  bool written = false;
  std::string use;  // for messages: "output 'copy' (file=out.root)", "the report"
};

// Throws lanes::Exception naming `use` if `path` is a FIFO, a socket or a
// device: reading one would wait for a writer, or never end. A regular
// file, a directory or a missing path is left to whoever reads it to judge.
void requireRegularInput(std::string const& path, std::string const& use);

// The paths a `files=LIST` text file names: one per line; blank lines and
// lines starting with '#' are skipped; relative paths are relative to the
// list's directory. Throws lanes::Exception if the list cannot be read.
std::vector<std::string> readFileList(std::string const& list);

// Every file the plugins of `config` name in their file options. Unknown
// plugins, and lists that cannot be read, are left to the plugins to report;
// an input that is not a regular file is refused (requireRegularInput()).
std::vector<JobFile> jobFiles(JobConfig const& config, PluginRegistry const& registry = PluginRegistry::instance());

// Throws lanes::Exception naming both uses if a written file is also another
// entry of `files`: the same path, the same file through a symlink or a hard
// link (device and inode), or, for a file that does not exist yet, the same
// name in the same directory once symlinks are resolved.
void requireDistinctFiles(std::vector<JobFile> const& files);

}  // namespace lanes
