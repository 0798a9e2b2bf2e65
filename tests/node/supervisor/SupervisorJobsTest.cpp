// The supervisor's job file: what a line means, and line-numbered errors.

#include <gtest/gtest.h>

#include "lanes/core/Exception.h"
#include "lanes/node/SupervisorJobs.h"

namespace lanes::node::test {
namespace {

using Words = std::vector<std::string>;

TEST(JobFileTest, ParsesCoresNameAndCommandSkippingCommentsAndBlanks) {
  auto const jobs = parseJobs("# two jobs\n\ncores=2 name=reco lanes run -t 2\n  cores=1 sleep 1\n", "jobs.txt");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].line, 3u);
  EXPECT_EQ(jobs[0].name, "reco");
  EXPECT_EQ(jobs[0].cores, 2u);
  EXPECT_EQ(jobs[0].argv, (Words{"lanes", "run", "-t", "2"}));
  EXPECT_EQ(jobs[1].name, "line 4");
  EXPECT_EQ(jobs[1].argv, (Words{"sleep", "1"}));
}

TEST(JobFileTest, QuotesGroupWordsAndNothingElseIsInterpreted) {
  auto const jobs = parseJobs("cores=1 echo 'a b' \"c'd\" ; $(rm -rf x) `id` *\n", "jobs.txt");
  EXPECT_EQ(jobs[0].argv, (Words{"echo", "a b", "c'd", ";", "$(rm", "-rf", "x)", "`id`", "*"}));
}

TEST(JobFileTest, MalformedLinesAreErrorsNamingFileAndLine) {
  struct Case {
    char const* text;
    char const* message;
  };
  for (auto const& [text, message] : {Case{"cores=1 true\ncores=0 true\n", "jobs.txt:2: cores must be a positive integer"},
                                      Case{"cores=x true\n", "jobs.txt:1: cores must be a positive integer, not 'x'"},
                                      Case{"true\n", "jobs.txt:1: a job line starts with cores=N"},
                                      Case{"cores=2\n", "jobs.txt:1: no command after cores=2"},
                                      Case{"cores=1 echo 'open\n", "jobs.txt:1: unterminated ' quote"},
                                      Case{"# nothing\n", "jobs.txt: no jobs"}}) {
    try {
      parseJobs(text, "jobs.txt");
      ADD_FAILURE() << "accepted: " << text;
    } catch (Exception const& error) {
      EXPECT_NE(error.message().find(message), std::string::npos) << error.message();
    }
  }
  EXPECT_THROW(parseJobFile("/no/such/jobs.txt"), Exception);
}

}  // namespace
}  // namespace lanes::node::test
