#pragma once
// The `textdump` output: the label and size in bytes of every kept product,
// per event (per-event=true) and/or as a per-product average at the end
// (summary=true), written to a file or to stdout.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

// A `one` module: the framework serialises write(); the job transitions run
// alone on the job's thread.
class TextDumpOutput : public one::Output {
 public:
  // Options: per-event=true|false (true), summary=true|false (true; one of
  // the two must be true), file=PATH (default: stdout; written under a
  // temporary name and renamed when the job succeeds), keep=GLOB.
  TextDumpOutput(std::string label, Options const& options);
  ~TextDumpOutput() override;

  void beginJob(JobContext const& context) override;
  void write(Event const& event) override;
  void endJob() override;
  void abandon() override;
  void mergeParts(std::vector<std::string> const& parts) override;
  void discardParts(std::vector<std::string> const& parts) override;
  std::string details() const override;

 private:
  TextDumpOutput(std::string label, Options const& options, PluginOptions const& checked);
  void print(std::string const& text);
  // Removes the file and throws, naming it and errno's cause.
  [[noreturn]] void fail();

  bool perEvent_;
  bool summary_;
  std::string path_;  // "" for stdout
  std::string part_, temporary_;
  std::string written_;  // the file committed: the part's, or the merged one
  bool replaced_ = false;
  std::FILE* out_ = nullptr;
  std::vector<std::pair<std::string, ProductIndex>> products_;
  std::vector<std::uint64_t> totals_;
  std::uint64_t events_ = 0;
};

}  // namespace lanes::mimicry
