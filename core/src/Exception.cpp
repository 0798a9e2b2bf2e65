#include "lanes/core/Exception.h"

#include <sstream>

namespace lanes {

char const* toString(Transition t) {
  switch (t) {
    case Transition::Construction: return "construction";
    case Transition::BeginJob: return "beginJob";
    case Transition::SourceNext: return "source next";
    case Transition::SourceRead: return "source read";
    case Transition::Acquire: return "acquire";
    case Transition::Event: return "event";
    case Transition::ProductReady: return "productReady";
    case Transition::EndJob: return "endJob";
  }
  return "?";
}

Exception::Exception(std::string const& message) : std::runtime_error(message), message_(message) {
  refreshWhat();
}

Exception& Exception::addContext(ErrorContext context) {
  context_.push_back(std::move(context));
  refreshWhat();
  return *this;
}

namespace {
std::string describeFrame(ErrorContext const& frame) {
  std::ostringstream os;
  char const* sep = "";
  if (frame.module == "source") {
    os << "source";
    sep = " ";
  } else if (!frame.module.empty()) {
    os << "module '" << frame.module << "'";
    sep = " ";
  }
  std::ostringstream details;
  char const* dsep = "";
  if (frame.transition) {
    details << toString(*frame.transition);
    dsep = ", ";
  }
  if (frame.lane) {
    details << dsep << "lane " << *frame.lane;
    dsep = ", ";
  }
  if (frame.event) {
    details << dsep << "event " << frame.event->str();
    dsep = ", ";
  }
  if (!frame.file.empty()) details << dsep << "file '" << frame.file << "'";
  if (!details.str().empty()) os << sep << "(" << details.str() << ")";
  return os.str();
}
}  // namespace

std::string Exception::oneLine() const {
  // Merge the frames: the innermost value of each field wins.
  ErrorContext merged;
  for (auto it = context_.rbegin(); it != context_.rend(); ++it) {
    if (!it->module.empty()) merged.module = it->module;
    if (it->transition) merged.transition = it->transition;
    if (it->lane) merged.lane = it->lane;
    if (it->event) merged.event = it->event;
    if (!it->file.empty()) merged.file = it->file;
  }
  auto where = describeFrame(merged);
  return where.empty() ? message_ : where + ": " + message_;
}

void Exception::refreshWhat() { what_ = oneLine(); }

std::exception_ptr withContext(std::exception_ptr error, ErrorContext context) {
  try {
    std::rethrow_exception(error);
  } catch (Exception& e) {
    e.addContext(std::move(context));
    return std::current_exception();
  } catch (std::exception const& e) {
    Exception wrapped(e.what());
    wrapped.addContext(std::move(context));
    return std::make_exception_ptr(wrapped);
  } catch (...) {
    Exception wrapped("unknown exception");
    wrapped.addContext(std::move(context));
    return std::make_exception_ptr(wrapped);
  }
}

std::string describe(std::exception_ptr const& error) {
  try {
    std::rethrow_exception(error);
  } catch (Exception const& e) {
    return e.oneLine();
  } catch (std::exception const& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace lanes
