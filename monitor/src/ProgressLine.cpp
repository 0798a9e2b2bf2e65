#include "lanes/monitor/ProgressLine.h"

#include <iomanip>
#include <sstream>

namespace lanes {

ProgressLine::ProgressLine(std::ostream& out, ProgressStyle style, std::chrono::milliseconds period, std::string part)
    : out_(out), style_(style), period_(period), part_(std::move(part)) {
  start(0);
}

void ProgressLine::start(std::uint64_t total) {
  total_ = total;
  start_ = Clock::now();
  next_ = start_ + period_;
}

void ProgressLine::drawIfDue(std::uint64_t events) {
  auto const now = Clock::now();
  if (now < next_) return;
  while (next_ <= now) next_ += period_;
  draw(events, false);
}

// Live: "\033[K" clears what a longer previous line left behind.
void ProgressLine::draw(std::uint64_t events, bool last) {
  if (style_ == ProgressStyle::Off) return;
  auto const elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  if (style_ == ProgressStyle::Json) {
    std::ostringstream line;
    line << "{\"events\": " << events << ", \"total\": " << (total_ ? std::to_string(total_) : "null")
         << ", \"elapsed_s\": " << std::fixed << std::setprecision(3) << elapsed
         << ", \"finished\": " << (last ? "true" : "false") << "}\n";
    out_ << line.str() << std::flush;
    return;
  }
  auto const rate = elapsed > 0 ? static_cast<double>(events) / elapsed : 0.0;
  bool const live = style_ == ProgressStyle::Live;
  char const* sep = live ? "  " : ", ";
  std::ostringstream line;
  line << std::fixed << std::setprecision(1);
  if (live) {
    line << "\r  ";
  } else {
    line << "lanes: progress" << (part_.empty() ? "" : " " + part_) << ": ";
  }
  line << events << " events" << sep << rate << " ev/s" << sep << elapsed << (live ? "s" : " s");
  if (total_ && events <= total_) {
    line << sep << 100.0 * static_cast<double>(events) / static_cast<double>(total_) << "%";
    if (!live) line << " of " << total_;
    if (!last && rate > 0) line << sep << "ETA " << static_cast<double>(total_ - events) / rate << (live ? "s" : " s");
  }
  if (live) line << "\033[K";
  if (last) line << (live ? "" : ", finished") << "\n";
  if (!live && !last) line << "\n";
  out_ << line.str() << std::flush;
}

}  // namespace lanes
