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
    case Transition::BeginRun: return "beginRun";
    case Transition::BeginLumi: return "beginLumi";
    case Transition::EndLumi: return "endLumi";
    case Transition::EndRun: return "endRun";
    case Transition::WriteLumi: return "writeLumi";
    case Transition::WriteRun: return "writeRun";
  }
  return "?";
}

namespace {

// The length of the UTF-8 sequence that starts `text` (2 to 4 bytes), or 0
// if it does not start with one (overlong forms and surrogates included).
std::size_t utf8Sequence(std::string_view text) {
  auto const byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  auto const lead = byte(0);
  std::size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0;
  if (lead >= 0xf5 || length == 0 || text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
  }
  auto const second = byte(1);
  if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second >= 0xa0) || (lead == 0xf0 && second < 0x90) ||
      (lead == 0xf4 && second >= 0x90)) {
    return 0;
  }
  return length;
}

}  // namespace

std::string printableLine(std::string_view text) {
  static char const hex[] = "0123456789abcdef";
  std::string line;
  line.reserve(text.size());
  bool pendingSpace = false;  // a line break or tab, written as one space before what follows it
  for (std::size_t i = 0; i < text.size();) {
    auto const c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f') {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      pendingSpace = !line.empty();
      ++i;
      continue;
    }
    if (pendingSpace) {
      if (c == ' ') {
        ++i;
        continue;
      }
      line += ' ';
      pendingSpace = false;
    }
    std::size_t const sequence = c >= 0x80 ? utf8Sequence(text.substr(i)) : 0;
    if (sequence) {
      line.append(text.substr(i, sequence));
      i += sequence;
    } else if (c < 0x20 || c >= 0x7f) {
      line += "\\x";
      line += hex[c >> 4];
      line += hex[c & 0xf];
      ++i;
    } else {
      line += static_cast<char>(c);
      ++i;
    }
  }
  return line;
}

Exception::Exception(std::string const& message) : std::runtime_error(message), message_(printableLine(message)) {
  refreshWhat();
}

Exception& Exception::addContext(ErrorContext context) {
  context_.push_back(std::move(context));
  refreshWhat();
  return *this;
}

namespace {
// A run or lumi transition names its block ("lumi 1:3", "run 1"), any other its event.
std::string blockOrEvent(std::optional<Transition> transition, EventId const& id) {
  if (transition) {
    switch (*transition) {
      case Transition::BeginRun:
      case Transition::EndRun:
      case Transition::WriteRun: return "run " + std::to_string(id.run);
      case Transition::BeginLumi:
      case Transition::EndLumi:
      case Transition::WriteLumi: return "lumi " + std::to_string(id.run) + ":" + std::to_string(id.luminosityBlock);
      default: break;
    }
  }
  return "event " + id.str();
}

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
    details << dsep << blockOrEvent(frame.transition, *frame.event);
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
  auto where = printableLine(describeFrame(merged));  // a file name can hold any byte
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
