#include "EmbeddedPython.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include <pybind11/embed.h>

#include "lanes/core/Exception.h"

namespace lanes::python {

namespace {

using Clock = std::chrono::steady_clock;

// lanes loads this library with RTLD_LOCAL, and libpython with it, so the
// symbols of libpython would stay invisible to the extension modules the
// interpreter loads (numpy's), which Debian's Python builds without a link
// to libpython: make them global.
void exportLibpython() {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&Py_InitializeFromConfig), &info) == 0 || !info.dli_fname) return;
  ::dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

// The interpreter of LANES_PYTHON's environment: as if that executable ran,
// so that site.py finds the environment (pyvenv.cfg) and its site-packages.
void initialize(std::string const& python) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // SIGINT and SIGTERM stop the job gracefully (cli/SignalStop.h)
  config.parse_argv = 0;
  auto const status = PyConfig_SetBytesString(&config, &config.executable, python.c_str());
  if (PyStatus_Exception(status)) {
    PyConfig_Clear(&config);
    throw Exception("cannot start Python (" + python + ")");
  }
  try {
    pybind11::initialize_interpreter(&config, 0, nullptr, false);
  } catch (std::exception const& error) {
    PyConfig_Clear(&config);
    throw Exception("cannot start Python (" + python + "): " + error.what());
  }
  PyConfig_Clear(&config);
}

}  // namespace

void start() {
  if (Py_IsInitialized()) return;
  char const* python = std::getenv("LANES_PYTHON");
  if (!python || !*python) {
    throw Exception("LANES_PYTHON is not set: it names the Python interpreter whose environment Python analyzers run "
                    "in (`lanes` sets it to its own)");
  }
  exportLibpython();
  // lanes owns the job's threads: numpy's OpenBLAS computes on the thread that calls it (a `one` module's
  // call) rather than start a pool of its own beside them (unless the user set its count).
  ::setenv("OPENBLAS_NUM_THREADS", "1", 0);
  initialize(python);
  PyEval_SaveThread();  // the job's threads take the lock in turn; this thread keeps no claim on it
}

namespace {

// The calling thread's state in the interpreter: the one Python knows for
// it (the thread that started the interpreter has one), else one made on
// its first call and kept, which Python then knows as the thread's too.
PyThreadState* threadState() {
  thread_local PyThreadState* state = nullptr;
  if (!state) state = PyGILState_GetThisThreadState();
  if (!state) state = PyThreadState_New(PyInterpreterState_Main());
  return state;
}

}  // namespace

Gil::Gil() {
  auto const begin = Clock::now();
  PyEval_RestoreThread(threadState());
  waited_ = Clock::now() - begin;
}

Gil::~Gil() { PyEval_SaveThread(); }

PythonObject::~PythonObject() {
  if (!object_) return;
  Gil gil;
  object_ = pybind11::object();
}

}  // namespace lanes::python
