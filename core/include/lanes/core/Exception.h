#pragma once
// The one exception type of lanes. It carries the original message and a
// stack of context frames (module label, transition, lane, event id, file)
// that grows as the error travels up through the scheduler.

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lanes/core/EventId.h"

namespace lanes {

// What the framework was doing when an error happened.
enum class Transition {
  Construction,
  BeginJob,
  SourceNext,
  SourceRead,
  Acquire,
  Event,
  ProductReady,
  EndJob,
  // Runs and lumis (Lumi.h): an error context's event is then EventId{run, lumi, 0}.
  BeginRun,
  BeginLumi,
  EndLumi,
  EndRun,
  WriteLumi,  // an output's writeLumi()
  WriteRun,   // an output's writeRun()
};

char const* toString(Transition t);

// One layer of context. Empty fields are simply not printed.
struct ErrorContext {
  std::string module;  // module label, or "source"
  std::optional<Transition> transition;
  std::optional<unsigned> lane;
  std::optional<EventId> event;
  std::string file;
};

// `text` as one printable line: line breaks and tabs (with the spaces around
// them) become one space, other control characters and bytes that are not
// UTF-8 are written \xNN. A message can quote a damaged file's bytes (a
// class or branch name, ROOT's own multi-line text); every error lanes
// prints and every report it writes stays one valid line.
std::string printableLine(std::string_view text);

// Its message and context are printableLine()s.
// Immutable after it is thrown; adding context happens before a rethrow, by the
// single thread that caught it.
class Exception : public std::runtime_error {
 public:
  explicit Exception(std::string const& message);

  Exception& addContext(ErrorContext context);
  std::vector<ErrorContext> const& context() const { return context_; }
  std::string const& message() const { return message_; }
  char const* what() const noexcept override { return what_.c_str(); }

  // One line: "module 'X' (event on lane 0, event 1:1:5): message".
  std::string oneLine() const;

 private:
  void refreshWhat();

  std::string message_;
  std::vector<ErrorContext> context_;
  std::string what_;
};

// Bad input that a module finds only when the job begins (beginJob): a
// setting that cannot take effect, a file that does not fit the job. The job
// ends before any event, as for every configuration error (lanes exits 2).
class ConfigurationError : public Exception {
 public:
  using Exception::Exception;
};

// Converts whatever `error` holds into a lanes::Exception carrying `context`.
std::exception_ptr withContext(std::exception_ptr error, ErrorContext context);

// The one-line summary of any exception_ptr (lanes::Exception or not).
std::string describe(std::exception_ptr const& error);

}  // namespace lanes
