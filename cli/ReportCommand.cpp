#include "ReportCommand.h"

#include "PythonTool.h"

namespace lanes::cli {

void addReportCommands(CLI::App& app, int& exitCode) {
  auto* report = addToolCommand(
      app, "report", "Write the HTML report of a run report or a scan directory: `lanes report --help`");
  report->callback([report, &exitCode] { exitCode = execPythonTool("report", report->remaining()); });
  auto* compare =
      addToolCommand(app, "compare", "Compare two run reports or two scan directories: `lanes compare --help`");
  compare->callback([compare, &exitCode] { exitCode = execPythonTool("compare", compare->remaining()); });
}

}  // namespace lanes::cli
