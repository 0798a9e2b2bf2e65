#include "HtmlReport.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "PythonTool.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PathClaim.h"
#include "lanes/core/TemporaryName.h"
#include "lanes/monitor/AtomicFile.h"

namespace lanes::cli {

int writeHtmlReport(RunArguments const& arguments, nlohmann::json const& report, int status,
                    std::string const& command) {
  if (arguments.html.empty()) return status;
  // The tool reads the report as the job wrote it; this copy goes once the
  // page is written. The page is renamed into place here, where the job's
  // claim on it is checked.
  auto const page = partialPath(arguments.html, ::getpid());
  auto const json = page + ".json";
  try {
    writeAtomically(json, [&](std::ostream& out) {
      out << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    });
  } catch (Exception const& error) {
    std::cerr << "lanes: error: no HTML report: " << error.what() << "\n";
    return status ? status : 1;
  }
  auto const name = std::filesystem::path(arguments.report.empty() ? arguments.html : arguments.report).filename();
  std::vector<std::string> words{json, "-o", page, "--title", "lanes " + command + ": " + name.string()};
  if (!arguments.trace.empty() && std::filesystem::is_regular_file(arguments.trace)) {
    words.insert(words.end(), {"--trace", arguments.trace});
  }
  auto written = runPythonTool("report", words);
  std::error_code ignored;  // a copy left behind is harmless; the page's fate is what counts
  std::filesystem::remove(json, ignored);
  if (written == 0) {
    try {
      commitFile(page, arguments.html);
    } catch (Exception const& error) {
      std::filesystem::remove(page, ignored);
      std::cerr << "lanes: error: no HTML report: " << error.what() << "\n";
      written = 1;
    }
  }
  return written == 0 || status ? status : 1;
}

}  // namespace lanes::cli
