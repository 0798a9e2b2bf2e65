#pragma once
// `lanes run --html FILE`: the HTML report of the job just run, written by
// lanes.tools.report from the job's report (and its trace, when there is one);
// `lanes model --html FILE`: a prediction's.

#include <nlohmann/json.hpp>

#include "RunCommand.h"

namespace lanes::cli {

// Writes `arguments.html` (nothing when it is empty) and returns the exit
// status `status` becomes: 1 if the page could not be written (said in one
// line), else `status`. The page is titled "lanes COMMAND: NAME".
int writeHtmlReport(RunArguments const& arguments, nlohmann::json const& report, int status,
                    std::string const& command = "run");

}  // namespace lanes::cli
