#include "lanes/node/SupervisorJobs.h"

#include <fstream>
#include <sstream>

#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

// White-space separated words; quotes group, and are removed.
std::vector<std::string> splitWords(std::string const& line, std::string const& where) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      if (inWord) words.push_back(std::move(word));
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw Exception(where + ": unterminated " + std::string(1, quote) + " quote");
  if (inWord) words.push_back(std::move(word));
  return words;
}

unsigned parseCores(std::string const& value, std::string const& where) {
  bool const digits = !value.empty() && value.size() < 6 && value.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(value) == 0) {
    throw Exception(where + ": cores must be a positive integer, not '" + value + "'");
  }
  return static_cast<unsigned>(std::stoul(value));
}

JobSpec parseJob(std::string const& line, unsigned number, std::string const& where) {
  auto words = splitWords(line, where);
  JobSpec job{number, "line " + std::to_string(number), 0, {}};
  std::size_t first = 0;
  for (; first < words.size() && first < 2; ++first) {
    auto const& word = words[first];
    if (word.rfind("cores=", 0) == 0) {
      job.cores = parseCores(word.substr(6), where);
    } else if (word.rfind("name=", 0) == 0 && word.size() > 5) {
      job.name = word.substr(5);
    } else {
      break;
    }
  }
  if (job.cores == 0) throw Exception(where + ": a job line starts with cores=N (then the command)");
  if (first == words.size()) throw Exception(where + ": no command after cores=" + std::to_string(job.cores));
  job.argv.assign(words.begin() + static_cast<std::ptrdiff_t>(first), words.end());
  return job;
}

bool isBlankOrComment(std::string const& line) {
  auto const start = line.find_first_not_of(" \t\r");
  return start == std::string::npos || line[start] == '#';
}

}  // namespace

std::vector<JobSpec> parseJobs(std::string const& text, std::string const& fileName) {
  std::vector<JobSpec> jobs;
  std::istringstream lines(text);
  std::string line;
  for (unsigned number = 1; std::getline(lines, line); ++number) {
    if (!isBlankOrComment(line)) jobs.push_back(parseJob(line, number, fileName + ":" + std::to_string(number)));
  }
  if (jobs.empty()) throw Exception(fileName + ": no jobs (one per line: cores=N COMMAND ARG...)");
  return jobs;
}

std::vector<JobSpec> parseJobFile(std::string const& path) {
  std::ifstream in(path);
  if (!in) throw Exception("cannot read the job file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return parseJobs(text.str(), path);
}

}  // namespace lanes::node
