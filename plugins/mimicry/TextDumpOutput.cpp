#include "mimicry/TextDumpOutput.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/PathClaim.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/TemporaryName.h"

namespace lanes::mimicry {

TextDumpOutput::TextDumpOutput(std::string label, Options const& options)
    : TextDumpOutput(std::move(label), options, PluginOptions(options, "textdump")) {}

TextDumpOutput::TextDumpOutput(std::string label, Options const& options, PluginOptions const& checked)
    : Output(std::move(label)),
      perEvent_(options.getBool("per-event", true)),
      summary_(options.getBool("summary", true)),
      path_(options.getString("file", "")) {
  if (!perEvent_ && !summary_) checked.fail("summary", "per-event=false needs summary=true: nothing would be written");
  keep(options.getAll("keep"));
}

TextDumpOutput::~TextDumpOutput() { abandon(); }

void TextDumpOutput::beginJob(JobContext const& context) {
  products_.clear();
  for (auto const& consumed : consumed()) products_.emplace_back(consumed.label, consumed.index);
  totals_.assign(products_.size(), 0);
  events_ = 0;
  written_.clear();
  replaced_ = false;
  out_ = stdout;
  if (path_.empty()) return;
  part_ = partPath(path_, context.part);
  temporary_ = partialPath(part_, ::getpid());
  out_ = std::fopen(temporary_.c_str(), "w");
  if (!out_) throw Exception("cannot write '" + part_ + "': " + std::strerror(errno));
}

void TextDumpOutput::print(std::string const& text) {
  if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) fail();
}

void TextDumpOutput::fail() {
  auto const cause = std::string(std::strerror(errno));
  abandon();
  throw Exception("cannot write '" + (path_.empty() ? std::string("stdout") : part_) + "': " + cause);
}

void TextDumpOutput::write(Event const& event) {
  std::string line = perEvent_ ? "event " + event.id().str() + ":" : "";
  for (std::size_t i = 0; i < products_.size(); ++i) {
    auto const bytes = event.size(products_[i].second);
    totals_[i] += bytes;
    if (perEvent_) line += " " + products_[i].first + "=" + std::to_string(bytes);
  }
  ++events_;
  if (perEvent_) print(line + "\n");
}

void TextDumpOutput::endJob() {
  if (summary_) {
    std::string text = "average bytes per event over " + std::to_string(events_) + " events:\n";
    for (std::size_t i = 0; i < products_.size(); ++i) {
      auto const average = events_ ? static_cast<double>(totals_[i]) / static_cast<double>(events_) : 0.0;
      text += "  " + products_[i].first + " " + std::to_string(average) + "\n";
    }
    print(text);
  }
  if (std::fflush(out_) != 0) fail();
  if (path_.empty()) return;
  bool const closed = std::fclose(out_) == 0;
  out_ = nullptr;
  if (!closed) fail();
  try {
    replaced_ = commitFile(temporary_, part_);
  } catch (Exception const&) {
    abandon();
    throw;
  }
  temporary_.clear();
  written_ = part_;
}

void TextDumpOutput::abandon() {
  if (out_ && out_ != stdout) std::fclose(out_);
  out_ = nullptr;
  std::error_code ignored;
  if (!temporary_.empty()) std::filesystem::remove(temporary_, ignored);
  temporary_.clear();
}

void TextDumpOutput::mergeParts(std::vector<std::string> const& parts) {
  if (path_.empty()) return;  // the workers printed to stdout
  auto const temporary = partialPath(path_, ::getpid());
  std::FILE* merged = std::fopen(temporary.c_str(), "w");
  bool ok = merged != nullptr;
  for (auto const& part : parts) {
    std::FILE* in = ok ? std::fopen(partPath(path_, part).c_str(), "r") : nullptr;
    ok = in != nullptr;
    char buffer[65536];
    for (std::size_t n; ok && (n = std::fread(buffer, 1, sizeof buffer, in)) > 0;) ok = std::fwrite(buffer, 1, n, merged) == n;
    if (in) ok = !std::ferror(in) && std::fclose(in) == 0 && ok;
  }
  if (merged) ok = std::fclose(merged) == 0 && ok;
  auto const cause = ok ? std::string() : std::string(std::strerror(errno));
  discardParts(parts);
  std::error_code ignored;
  if (!cause.empty()) {
    std::filesystem::remove(temporary, ignored);
    throw Exception("cannot write '" + path_ + "': merging the workers' parts failed: " + cause);
  }
  try {
    replaced_ = commitFile(temporary, path_);
  } catch (Exception const&) {
    std::filesystem::remove(temporary, ignored);
    throw;
  }
  written_ = path_;
}

void TextDumpOutput::discardParts(std::vector<std::string> const& parts) {
  if (path_.empty()) return;
  std::error_code ignored;
  for (auto const& part : parts) {
    std::filesystem::remove(partPath(path_, part), ignored);
    for (auto const& partial : partialsOf(partPath(path_, part))) std::filesystem::remove(partial, ignored);
  }
}

std::string TextDumpOutput::details() const {
  if (path_.empty()) return nlohmann::json{{"events_written", events_}}.dump();  // stdout: no file to describe
  bool const committed = !written_.empty();
  std::error_code error;
  auto const bytes = committed ? std::filesystem::file_size(written_, error) : 0;
  nlohmann::json details{{"file", committed ? written_ : path_},
                         {"committed", committed},
                         {"events_written", committed ? events_ : 0},
                         {"bytes", error ? 0 : bytes}};
  if (replaced_) details["replaced"] = true;
  return details.dump();
}

namespace {
RegisterOutput<TextDumpOutput> const registration(
    "textdump",
    "names and sizes of every product: per-event=true|false (a line per event), summary=true|false (per-product "
    "averages at the end), file=PATH (default stdout), keep=GLOB");
}

}  // namespace lanes::mimicry
