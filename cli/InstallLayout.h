#pragma once
// Where lanes finds its own files (the `lanes` Python package, the default
// job's product profile, its optional plugin libraries) and the Python that
// runs its tools. Three layouts:
//   - in its build tree (build/bin/lanes): its files in the source tree, the
//     Python of the project's venv;
//   - installed by `cmake --install build --prefix P` (P/bin/lanes): its files
//     in P/share/lanes, the Python of the build's venv;
//   - installed by `pip install .` into an environment (ENV/bin/lanes): its
//     files in ENV/share/lanes, the package in ENV's site-packages, and the
//     environment's own Python, ENV/bin/python.
// Optional plugin libraries (lanes' own, loaded only by the jobs that name
// one of their plugins) lie in lib/lanes/optional/ beside bin/ in every
// layout: apart from the plugin libraries a user installs into lib/lanes/
// (which LANES_PLUGIN_PATH may name), so that none loads them all.
// Thread-safe: each answer is found once.

#include <string>

namespace lanes::cli {

// The path of `relative` ("data/profiles/nanoaod.json") among lanes' files.
std::string lanesFile(std::string const& relative);

// The directory that holds the `lanes` Python package when it is not
// installed into the Python's environment (the source tree's python/, or
// P/share/lanes/python); empty where the environment has it (pip).
std::string pythonPackageRoot();

// The Python interpreter that runs lanes' tools and Python analyzers.
std::string pythonInterpreter();

// Where lanes' optional plugin libraries are (OptionalPlugins.h):
// lib/lanes/optional beside the executable's bin/; and the one lanes' own
// plugin NAME comes from, liblanes_NAME.so there (it may not exist).
std::string optionalPluginDirectory();
std::string optionalPluginLibrary(std::string const& name);

// Tells the Python processes lanes starts (its tools) and the interpreter it
// may embed (Python analyzers) where lanes' Python is: LANES_PYTHON, the
// interpreter whose environment Python analyzers run in (pythonInterpreter(),
// unless it is set: the Python API sets its own), and pythonPackageRoot()
// first on PYTHONPATH where there is one. Called once, as lanes starts,
// before any thread.
void exportPythonEnvironment();

}  // namespace lanes::cli
