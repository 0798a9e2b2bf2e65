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

constexpr char const* kPython = LANES_SOURCE_DIR "/.venv/bin/python";

bool havePython(std::string const& tool) {
  if (::access(kPython, X_OK) == 0) return true;
  std::cerr << "lanes: error: " << tool << " needs the project's Python environment (" << kPython
            << " is missing): run scripts/setup\n";
  return false;
}

// argv for execv: python, the tool, its arguments; pointing into `words`.
std::vector<char*> argvOf(std::vector<std::string>& words) {
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  return argv;
}

}  // namespace

std::string toolPath(char const* name) { return lanesFile(std::string("tools/") + name + ".py"); }

CLI::App* addToolCommand(CLI::App& app, char const* name, char const* description) {
  auto* command = app.add_subcommand(name, description);
  command->set_help_flag();
  command->allow_extras();
  command->prefix_command();
  return command;
}

int execPythonTool(std::string const& tool, std::vector<std::string> const& arguments) {
  if (!havePython(tool)) return 2;
  std::vector<std::string> words{kPython, tool};
  words.insert(words.end(), arguments.begin(), arguments.end());
  ::execv(kPython, argvOf(words).data());
  std::cerr << "lanes: error: cannot start " << kPython << ": " << std::strerror(errno) << "\n";
  return 2;
}

int runPythonTool(std::string const& tool, std::vector<std::string> const& arguments) {
  if (!havePython(tool)) return 1;
  std::vector<std::string> words{kPython, tool};
  words.insert(words.end(), arguments.begin(), arguments.end());
  auto argv = argvOf(words);
  auto const child = ::fork();
  if (child < 0) {
    std::cerr << "lanes: error: cannot start " << tool << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  if (child == 0) {
    restoreTerminalInChild();  // the tool's stderr is its own, not lanes' to keep
    ::execv(kPython, argv.data());
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
