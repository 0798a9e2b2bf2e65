// The `lanes` command.

#include <iostream>

#include <CLI/CLI.hpp>

#include "CleanCommand.h"
#include "InspectCommand.h"
#include "InstallLayout.h"
#include "JobProvenance.h"
#include "ModelCommand.h"
#include "PinCommand.h"
#include "PluginsCommand.h"
#include "ReportCommand.h"
#include "RunCommand.h"
#include "ScanCommand.h"
#include "StartupReport.h"
#include "StrayOutput.h"
#include "SuperviseCommand.h"
#include "TopologyCommand.h"
#include "WholeNumber.h"
#include "lanes/core/Exception.h"

int main(int argc, char** argv) {
  lanes::cli::beginStartup();  // the report's start-up phases are timed from here
  lanes::cli::exportPythonEnvironment();  // for the Python tools and analyzers; before any thread
  CLI::App app{"lanes: a HEP event-processing framework and throughput laboratory on oneTBB", "lanes"};
  app.require_subcommand(1);
  app.footer("The guide, a page per topic (running jobs, reports, several processes, MPI, scans, ...): docs/README.md\n"
             "in the lanes source tree. `lanes COMMAND --help` gives a command's options.");
  app.failure_message(lanes::cli::failureMessage);
  int exitCode = 0;
  lanes::cli::addRunCommand(app, exitCode);
  lanes::cli::addPluginsCommand(app);
  lanes::cli::addInspectCommand(app);
  lanes::cli::addTopologyCommand(app);
  lanes::cli::addPinCommand(app, exitCode);
  lanes::cli::addSuperviseCommand(app, exitCode);
  lanes::cli::addCleanCommand(app, exitCode);
  lanes::cli::addScanCommand(app, exitCode);
  lanes::cli::addReportCommands(app, exitCode);
  lanes::cli::addModelCommand(app, exitCode);
  lanes::cli::addProvenanceCommand(app);
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& error) {
    return app.exit(error) == 0 ? 0 : 2;
  } catch (std::exception const& error) {
    // What was written to stderr behind lanes' back as the job was built (ROOT opening a file) belongs to its error.
    auto const stray = lanes::cli::strayLines();
    std::cerr << "lanes: error: " << error.what() << (stray.count ? "; " + stray.describe() : "") << "\n";
    lanes::cli::drainStrayOutput();
    return 2;
  }
  lanes::cli::drainStrayOutput();  // lanes' own lines still on their way to the terminal
  return exitCode;
}
