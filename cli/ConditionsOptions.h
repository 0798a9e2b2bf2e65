#pragma once
// The job's conditions records (lanes/core/Conditions.h), as `lanes run
// --conditions SPEC` and a menu's [[conditions]] tables give them:
//   NAME:every=N        a new interval every N lumis of a run (and at each run)
//   NAME:table=FILE     the intervals of record NAME in FILE (TOML or JSON, below)
// and for either bytes=B (each payload's size, default 1 MiB), load=SECONDS
// (what loading one costs, default 0), work=sleep|busy (how: sleep, as a
// database read waits; busy burns CPU), concurrent-iovs=K (intervals in
// flight at once, default 1).
//
// A table file lists intervals, each from its first run:lumi to the next one
// of its record: TOML `[[interval]]` tables, or a JSON array of objects, with
// keys record, first ("RUN:LUMI") and bytes (optional: the record's).

#include <filesystem>
#include <string>

#include "lanes/core/Conditions.h"
#include "lanes/core/Options.h"

namespace lanes::cli {

// Throws lanes::Exception naming the record and the option (or the table's
// file and interval) for bad input; a relative table path is taken from `directory`.
ConditionsRecordSpec conditionsRecord(PluginSpec const& spec, std::filesystem::path const& directory = {});

}  // namespace lanes::cli
