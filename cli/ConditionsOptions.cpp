#include "ConditionsOptions.h"

#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "WholeNumber.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::cli {

namespace {

// "RUN:LUMI", each a whole number from 1.
LumiNumber lumiNumber(std::string const& text, std::string const& where) {
  auto const colon = text.find(':');
  auto const number = [&](std::string const& part) -> std::uint32_t {
    bool const digits = !part.empty() && part.size() <= 10 &&
                        part.find_first_not_of("0123456789") == std::string::npos;
    auto const value = digits ? std::stoull(part) : 0;
    if (value == 0 || value > std::numeric_limits<std::uint32_t>::max()) {
      throw Exception(where + ": first is '" + shortened(text) +
                      "', not RUN:LUMI (whole numbers from 1: runs and lumis count from 1)");
    }
    return static_cast<std::uint32_t>(value);
  };
  if (colon == std::string::npos) number("");
  return {number(text.substr(0, colon)), number(text.substr(colon + 1))};
}

// One interval of a table: {record, first, bytes}, from TOML or JSON alike.
struct Row {
  std::string record;
  std::string first;
  std::int64_t bytes = 0;
};

std::vector<Row> tomlRows(std::filesystem::path const& path) {
  toml::table table;
  try {
    table = toml::parse_file(path.string());
  } catch (toml::parse_error const& error) {
    throw Exception("line " + std::to_string(error.source().begin.line) + ": " + std::string(error.description()));
  }
  std::vector<Row> rows;
  auto const* intervals = table["interval"].as_array();
  if (!intervals) throw Exception("no [[interval]] tables");
  for (auto const& node : *intervals) {
    auto const* interval = node.as_table();
    if (!interval) throw Exception("'interval' must be an array of tables: write [[interval]]");
    for (auto const& [key, value] : *interval) {
      if (key != "record" && key != "first" && key != "bytes") {
        throw Exception("unknown key '" + std::string(key.str()) + "' (known: record, first, bytes)");
      }
    }
    rows.push_back({interval->get_as<std::string>("record") ? **interval->get_as<std::string>("record") : "",
                    interval->get_as<std::string>("first") ? **interval->get_as<std::string>("first") : "",
                    interval->get_as<std::int64_t>("bytes") ? **interval->get_as<std::int64_t>("bytes") : 0});
  }
  return rows;
}

std::vector<Row> jsonRows(std::filesystem::path const& path) {
  std::ifstream in(path);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (nlohmann::json::parse_error const& error) {
    throw Exception(std::string("not JSON: ") + error.what());
  }
  if (!json.is_array()) throw Exception("a JSON table is an array of intervals: [{\"record\": ..., \"first\": \"RUN:LUMI\"}]");
  std::vector<Row> rows;
  for (auto const& interval : json) {
    if (!interval.is_object()) throw Exception("an interval must be an object");
    for (auto const& [key, value] : interval.items()) {
      if (key != "record" && key != "first" && key != "bytes") {
        throw Exception("unknown key '" + key + "' (known: record, first, bytes)");
      }
    }
    auto const string = [&](char const* key) { return interval.contains(key) && interval[key].is_string() ? interval[key].get<std::string>() : ""; };
    auto const bytes = interval.contains("bytes") && interval["bytes"].is_number_integer() ? interval["bytes"].get<std::int64_t>() : 0;
    rows.push_back({string("record"), string("first"), bytes});
  }
  return rows;
}

// The intervals of `record` in the table at `path`.
std::vector<ConditionsInterval> table(std::filesystem::path const& path, std::string const& record) {
  auto const where = "conditions table '" + path.string() + "'";
  if (!std::filesystem::is_regular_file(path)) throw Exception(where + ": no such file");
  std::vector<Row> rows;
  try {
    rows = path.extension() == ".json" ? jsonRows(path) : tomlRows(path);
  } catch (Exception const& error) {
    throw Exception(where + ": " + error.message());
  }
  std::vector<ConditionsInterval> intervals;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto const& row = rows[i];
    auto const at = where + ", interval " + std::to_string(i + 1);
    if (row.record.empty()) throw Exception(at + ": no record");
    if (row.record != record) continue;
    if (row.bytes < 0) throw Exception(at + ": bytes must not be negative");
    intervals.push_back({lumiNumber(row.first, at), static_cast<std::uint64_t>(row.bytes)});
  }
  if (intervals.empty()) throw Exception(where + " has no interval of record '" + record + "'");
  return intervals;
}

}  // namespace

ConditionsRecordSpec conditionsRecord(PluginSpec const& spec, std::filesystem::path const& directory) {
  if (spec.name.empty()) throw Exception("--conditions: give the record's name: NAME:every=N or NAME:table=FILE");
  auto const where = "conditions record '" + spec.name + "'";
  Options const& raw = spec.options;
  PluginOptions const options(raw, spec.name, "conditions record");
  ConditionsRecordSpec record;
  record.name = spec.name;
  bool const every = raw.has("every");
  auto const file = raw.getString("table");
  if (every == file.has_value()) {
    throw Exception(where + ": give its intervals with every=N (lumis) or table=FILE, one of the two");
  }
  if (every) record.everyLumis = options.positive("every", 1, std::numeric_limits<std::uint32_t>::max());
  if (file) {
    std::filesystem::path const path(*file);
    record.table = table(path.is_absolute() ? path : directory / path, record.name);
  }
  record.bytes = options.count("bytes", record.bytes, PluginOptions::kMaxProductBytes);
  record.loadSeconds = options.nonNegative("load", 0);
  record.busy = options.choice("work", "sleep", {"sleep", "busy"}) == "busy";
  record.concurrentIovs = static_cast<unsigned>(options.positive("concurrent-iovs", 1, PluginOptions::kMaxConcurrency));
  try {
    raw.requireAllUsed();
  } catch (Exception const& error) {
    throw Exception(where + ": " + error.message());
  }
  return record;
}

}  // namespace lanes::cli
