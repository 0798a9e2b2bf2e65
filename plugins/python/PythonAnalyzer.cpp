// The `python` module: an analyzer written in Python (the `lanes` package's
// @lanes.analyzer), run inside the job by the embedded interpreter
// (EmbeddedPython.h) as a `one` module: the interpreter runs one call at a
// time, so a lane whose event waits for it waits for the module's queue, and
// the report shows that wait as the module's stall.
//
//   lane ─┐                                         ┌─> analyzer(event, results)   (Python: numpy views of
//   lane ─┼─> the module's queue (stall) ─> the GIL ┤      the consumed products, no copy)
//   lane ─┘                                         └─> results: pickled to results=PATH at the end of the job
//
// A Python exception fails the event as any module's error does, its
// traceback in the error's one line; the job's --on-error policy applies.

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include "EmbeddedPython.h"
#include "PythonEvent.h"
#include "lanes/core/Exception.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/TemporaryName.h"

namespace py = pybind11;

namespace lanes::python {

namespace {

// The `lanes` package's side of the embedding (python/lanes/_embedded.py).
py::module_ embedded() { return py::module_::import("lanes._embedded"); }

// The Python error being handled, as one line with its traceback.
std::string describe(py::error_already_set& error) {
  try {
    return embedded().attr("describe_error")(error.type(), error.value(), error.trace()).cast<std::string>();
  } catch (py::error_already_set const&) {
    return error.what();
  }
}

// Runs `work` with the interpreter's lock; a Python error (or a Python
// value of an unexpected type) comes out as a lanes::Exception of one line,
// `what` first.
template <typename Work>
auto withPython(std::string const& what, Work work) {
  Gil gil;
  try {
    return work();
  } catch (py::error_already_set& error) {
    throw Exception(what + ": " + describe(error));
  } catch (py::cast_error const& error) {
    throw Exception(what + ": " + error.what());
  }
}

class PythonAnalyzer : public one::Analyzer {
 public:
  PythonAnalyzer(std::string label, Options const& options)
      : PythonAnalyzer(std::move(label), options, PluginOptions(options, "python")) {}

  void beginJob(JobContext const& context) override {
    withPython("cannot bind the analyzer's products", [&] {
      std::vector<ConsumedProduct> products;
      for (std::size_t i = 0; i < consumes_.size(); ++i) {
        auto const& description = context.registry[tokens_[i].index()].description;
        products.push_back({consumes_[i], py::str(consumes_[i]), tokens_[i].index(), description.typeName,
                            converterFor(description.type)});
      }
      binding_.setProducts(std::move(products));
    });
  }

  void analyze(Event const& event) override {
    Gil gil;
    interpreterWait_ += gil.waited();
    py::object object;
    std::string error;
    try {
      object = binding_.bind(event);
      function_.get()(object, results_.get());
    } catch (py::error_already_set& raised) {
      error = describe(raised);  // and the traceback goes, with the references its frames held
    } catch (std::exception const& failure) {  // a product the event lacks
      error = failure.what();
    }
    auto const kept = binding_.release(object);
    object = py::object();
    if (!error.empty()) throw Exception(error);
    if (!kept.empty()) {
      throw Exception("the analyzer kept the array of '" + kept.front() + "' after its call; an array views the "
                      "event's memory only during the call: keep a copy (numpy.array(...)) instead");
    }
  }

  void endJob() override {
    if (resultsPath_.empty()) return;
    auto const temporary = partialPath(resultsPath_, ::getpid());
    withPython("cannot write the results to '" + resultsPath_ + "'",
               [&] { embedded().attr("save_results")(results_.get(), temporary); });
    std::error_code error;
    std::filesystem::rename(temporary, resultsPath_, error);
    if (error) {
      std::filesystem::remove(temporary, error);
      throw Exception("cannot write the results to '" + resultsPath_ + "': " + error.message());
    }
    written_ = true;
  }

  // {"function", "python", "interpreter_wait_s", "results"}: what ran, in which Python, how long the calls
  // waited for the interpreter's lock (held by another Python analyzer), where its results went.
  std::string details() const override {
    auto const quoted = [](std::string const& text) {
      std::string out = "\"";
      for (char c : printableLine(text)) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
      return out + "\"";
    };
    return "{\"function\": " + quoted(name_) + ", \"python\": " + quoted(version_) +
           ", \"interpreter_wait_s\": " + std::to_string(std::chrono::duration<double>(interpreterWait_).count()) +
           ", \"results\": " + (written_ ? quoted(resultsPath_) : std::string("null")) + "}";
  }

 private:
  PythonAnalyzer(std::string label, Options const& options, PluginOptions const& checked)
      : Analyzer(std::move(label)), resultsPath_(options.getString("results", "")) {
    auto const function = options.getString("function", "");
    auto const pickled = options.getString("pickled", "");
    if (function.empty() == pickled.empty()) {
      checked.fail(function.empty() ? "function" : "pickled",
                   "give the analyzer once: function=FILE.py:NAME or MODULE:NAME, or pickled=PATH");
    }
    options.requireAllUsed();  // a misspelt option is refused before Python starts
    start();
    withPython("cannot load the analyzer " + (function.empty() ? "pickled in '" + pickled + "'" : "'" + function + "'"),
               [&] {
                 auto const loaded = embedded().attr("load")(function, pickled);
                 function_.set(loaded.attr("function"));
                 results_.set(loaded.attr("results"));
                 name_ = loaded.attr("name").cast<std::string>();
                 consumes_ = loaded.attr("consumes").cast<std::vector<std::string>>();
                 version_ = py::module_::import("platform").attr("python_version")().cast<std::string>();
               });
    for (auto const& product : consumes_) tokens_.push_back(consumesAny(product));
  }

  std::string resultsPath_;
  std::string name_;
  std::string version_;
  std::vector<std::string> consumes_;
  std::vector<ProductToken<AnyProduct>> tokens_;
  PythonObject function_;
  PythonObject results_;
  EventBinding binding_;
  std::chrono::nanoseconds interpreterWait_{0};
  bool written_ = false;
};

RegisterModule<PythonAnalyzer> const registration(
    "python",
    "an analyzer written in Python (@lanes.analyzer of the `lanes` package: docs/python.md), run by the embedded "
    "interpreter as a one module: function=FILE.py:NAME or MODULE:NAME, or pickled=PATH (what the Python API "
    "writes), results=PATH (its results, pickled, at the end of the job)",
    PluginRole::Module, {{"results", FileAccess::Write}, {"pickled", FileAccess::Read}});

}  // namespace

}  // namespace lanes::python
