#pragma once
// The one Python interpreter of a lanes process, embedded for the Python
// analyzers (PythonAnalyzer.cpp). It starts once, on the first analyzer's
// construction (on the job's main thread, before any job thread), runs in
// the environment of the interpreter that LANES_PYTHON names (its
// site-packages: numpy, hist, the `lanes` package), leaves lanes' signal
// handlers alone, starts no threads of numpy's (OPENBLAS_NUM_THREADS=1 unless
// set: lanes owns the job's threads), and lives until the process exits: interpreters and the
// extension modules they load (numpy) do not survive being started twice.
//
// Thread-safe: start() is idempotent and called by one thread at start-up;
// a Gil may be taken by any thread, one at a time, as the interpreter's lock
// allows.

#include <chrono>

#include <pybind11/pybind11.h>

namespace lanes::python {

// Starts the interpreter if it is not running, then releases its lock for
// the job's threads. Throws lanes::Exception when LANES_PYTHON is unset or
// the interpreter cannot start.
void start();

// Holds the interpreter's lock (the GIL) for the calling thread while it
// lives, with a thread state of the thread's own kept for the life of the
// process (a job's threads call again and again). `waited()` is how long
// the constructor waited for the lock.
class Gil {
 public:
  Gil();
  ~Gil();
  Gil(Gil const&) = delete;
  Gil& operator=(Gil const&) = delete;

  std::chrono::nanoseconds waited() const { return waited_; }

 private:
  std::chrono::nanoseconds waited_;
};

// A Python object that C++ code owns: let go of with the interpreter's lock
// held, whoever destroys it (an owner being unwound by an exception too).
// Externally synchronised by its owner.
class PythonObject {
 public:
  PythonObject() = default;
  PythonObject(PythonObject const&) = delete;
  PythonObject& operator=(PythonObject const&) = delete;
  ~PythonObject();

  // Both with the lock held.
  void set(pybind11::object object) { object_ = std::move(object); }
  pybind11::object const& get() const { return object_; }

 private:
  pybind11::object object_;
};

}  // namespace lanes::python
