#pragma once
// The supervisor's job file: one job per line,
//
//   cores=N [name=LABEL] COMMAND ARG...
//
// Blank lines and lines starting with # are ignored. The command is split at
// white space; '...' or "..." keep spaces inside one argument. Nothing else
// is interpreted ($, ;, |, backslashes, globs are passed as they are): jobs
// run without a shell.

#include <string>
#include <vector>

namespace lanes::node {

// Immutable value type.
struct JobSpec {
  unsigned line = 0;  // in the job file, from 1
  std::string name;   // name=LABEL, or "line N"
  unsigned cores = 0;
  std::vector<std::string> argv;
};

// Throws lanes::Exception "FILE:LINE: what is wrong" for a malformed line.
std::vector<JobSpec> parseJobFile(std::string const& path);
std::vector<JobSpec> parseJobs(std::string const& text, std::string const& fileName);

}  // namespace lanes::node
