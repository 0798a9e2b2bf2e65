#include "PythonTool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "InstallLayout.h"
#include "StrayOutput.h"

namespace lanes::cli {

namespace {

bool havePython(std::string const& tool) {
  if (::access(pythonInterpreter().c_str(), X_OK) == 0) return true;
  std::cerr << "lanes: error: " << tool << " needs lanes' Python environment (" << pythonInterpreter()
            << " is missing): run scripts/setup\n";
  return false;
}

// `python -m lanes.tools.TOOL ARGS...`
std::vector<std::string> commandOf(std::string const& tool, std::vector<std::string> const& arguments) {
  std::vector<std::string> words{pythonInterpreter(), "-m", "lanes.tools." + tool};
  words.insert(words.end(), arguments.begin(), arguments.end());
  return words;
}

// A null-terminated array for exec, pointing into `words`.
std::vector<char*> pointersTo(std::vector<std::string>& words) {
  std::vector<char*> pointers;
  for (auto& word : words) pointers.push_back(word.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

CLI::App* addToolCommand(CLI::App& app, char const* name, char const* description) {
  auto* command = app.add_subcommand(name, description);
  command->set_help_flag();
  command->allow_extras();
  command->prefix_command();
  return command;
}

int execPythonTool(std::string const& tool, std::vector<std::string> const& arguments) {
  if (!havePython(tool)) return 2;
  auto words = commandOf(tool, arguments);
  ::execv(words.front().c_str(), pointersTo(words).data());
  std::cerr << "lanes: error: cannot start " << words.front() << ": " << std::strerror(errno) << "\n";
  return 2;
}

int runPythonTool(std::string const& tool, std::vector<std::string> const& arguments) {
  if (!havePython(tool)) return 1;
  auto words = commandOf(tool, arguments);
  auto argv = pointersTo(words);  // made before the fork: the child only calls exec
  auto const child = ::fork();
  if (child < 0) {
    std::cerr << "lanes: error: cannot start " << tool << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  if (child == 0) {
    restoreTerminalInChild();  // the tool's stderr is its own, not lanes' to keep
    ::execv(argv.front(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::cerr << "lanes: error: lost " << tool << ": " << std::strerror(errno) << "\n";
      return 1;
    }
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 127) return WEXITSTATUS(status);
  std::cerr << "lanes: error: " << tool << (WIFSIGNALED(status) ? " was killed by a signal" : " could not start")
            << "\n";
  return 1;
}

}  // namespace lanes::cli
