// One live writer per path: claims taken, refused, inherited by nobody, lost with a killed process, checked
// again at the rename, and the leftovers they prove. Other processes are forked children (a claim is a process's).

#include "lanes/core/PathClaim.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <gtest/gtest.h>

#include "lanes/core/Exception.h"
#include "lanes/core/Module.h"
#include "lanes/core/TemporaryName.h"

namespace lanes {
namespace {

namespace fs = std::filesystem;

std::string contentOf(std::string const& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A forked child that runs `body`, which says lines back to the parent (a lanes::Exception it throws is said as
// "error: MESSAGE"); killed, if still running, when the Child goes.
class Child {
 public:
  explicit Child(std::function<void(Child const&)> const& body) {
    int ends[2];
    if (::pipe(ends) != 0) throw std::runtime_error("pipe");
    write_ = ends[1];
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ends[0]);
      try {
        body(*this);
      } catch (Exception const& error) {
        say(std::string("error: ") + error.what());
      }
      ::_exit(0);
    }
    ::close(ends[1]);
    read_ = ends[0];
  }
  ~Child() {
    ::close(read_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  void say(std::string const& line) const {
    auto const text = line + "\n";
    [[maybe_unused]] auto n = ::write(write_, text.data(), text.size());
  }
  // The child's next line ("" once it ended without one).
  std::string line() const {
    std::string text;
    char c;
    while (::read(read_, &c, 1) == 1 && c != '\n') text += c;
    return text;
  }
  pid_t pid() const { return pid_; }
  void wait() {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int read_ = -1;
  int write_ = -1;
};

// Blocks until the parent closes its end: keeps a child (and its claims) alive as long as the parent wants.
struct Gate {
  int ends[2];
  Gate() {
    if (::pipe(ends) != 0) throw std::runtime_error("pipe");
  }
  ~Gate() { open(); }
  void waitInChild() const {
    ::close(ends[1]);
    char c;
    while (::read(ends[0], &c, 1) > 0) {
    }
  }
  void open() {
    if (ends[1] >= 0) ::close(ends[1]);
    ends[1] = -1;
  }
};

class PathClaimTest : public testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("lanes-claims-" + std::to_string(::getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override {
    releaseClaims();
    fs::remove_all(directory_);
  }
  std::string path(std::string const& name) const { return (directory_ / name).string(); }
  static void write(std::string const& file) { std::ofstream(file) << "x"; }

  // A job that claims `out`, writes the files `written(its pid)` names, and is killed; returns its pid.
  static pid_t killedWriter(std::string const& out, std::function<std::vector<std::string>(long)> const& written) {
    Gate hold;
    Child writer([&](Child const& self) {
      claim(out, "output");
      for (auto const& file : written(::getpid())) write(file);
      self.say("written");
      hold.waitInChild();
    });
    EXPECT_EQ(writer.line(), "written");
    auto const pid = writer.pid();
    ::kill(pid, SIGKILL);
    writer.wait();
    return pid;
  }

  fs::path directory_;
};

TEST_F(PathClaimTest, AClaimIsAFileThatNamesItsWriterUntilReleased) {
  auto const out = path("out.root");
  EXPECT_TRUE(claim(out, "output 'out'").empty());
  auto const text = contentOf(claimFileOf(out));
  EXPECT_EQ(text.rfind("lanes-claim 1\nwriting " + std::to_string(::getpid()) + " ", 0), 0u) << text;
  releaseClaims();
  EXPECT_FALSE(fs::exists(claimFileOf(out)));
}

TEST_F(PathClaimTest, ASecondWriterIsRefusedNamingTheFirst) {
  auto const out = path("out.root");
  claim(out, "output 'out'");
  Child other([&](Child const&) { claim(out, "output 'copy' (file=out.root)"); });
  auto const line = other.line();
  EXPECT_EQ(line.rfind("error: output 'copy' (file=out.root) is being written by another lanes job (pid " +
                           std::to_string(::getpid()) + " on host ",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("wait for it to end, or give another path"), std::string::npos) << line;
}

TEST_F(PathClaimTest, OfManyJobsClaimingAtOnceOneWins) {
  auto const out = path("out.root");
  Gate start, hold;
  std::vector<std::unique_ptr<Child>> children;
  for (int k = 0; k < 8; ++k) {
    children.push_back(std::make_unique<Child>([&](Child const& self) {
      start.waitInChild();
      claim(out, "output");
      self.say("claimed");
      hold.waitInChild();  // the winner holds its claim until every child has said how it did
    }));
  }
  start.open();
  int claimed = 0, refused = 0;
  for (auto& child : children) {
    auto const line = child->line();
    claimed += line == "claimed";
    refused += line.rfind("error: output is being written by another lanes job", 0) == 0;
  }
  EXPECT_EQ(claimed, 1);
  EXPECT_EQ(refused, 7);
}

TEST_F(PathClaimTest, AKilledWritersClaimBlocksNobodyAndItsLeftoversAreNamed) {
  auto const out = path("out.root");
  auto const pid = killedWriter(out, [&](long self) { return std::vector<std::string>{partialPath(out, self)}; });
  auto const leftovers = claim(out, "output");
  ASSERT_EQ(leftovers.size(), 1u);
  EXPECT_EQ(leftovers[0].path, partialPath(out, pid));
  EXPECT_EQ(leftovers[0].writer.pid, pid);
  releaseClaims();
  // Its line stays with its file: the proof that `lanes clean` removes it.
  EXPECT_NE(contentOf(claimFileOf(out)).find("left " + std::to_string(pid) + " "), std::string::npos);
  fs::remove(partialPath(out, pid));
  claim(out, "output");
  releaseClaims();
  EXPECT_FALSE(fs::exists(claimFileOf(out))) << "nothing left: nobody to name";
}

TEST_F(PathClaimTest, AForkedChildHoldsNoneOfItsParentsClaims) {
  auto const out = path("out.root");
  claim(out, "output");
  Gate hold;
  Child child([&](Child const& self) {
    self.say("forked");
    hold.waitInChild();
  });
  ASSERT_EQ(child.line(), "forked");
  releaseClaims();  // the child, still alive, must not keep the lock
  EXPECT_TRUE(claim(out, "output").empty());
}

TEST_F(PathClaimTest, TheRenameChecksTheClaimAgain) {
  auto const out = path("out.root");
  claim(out, "output");
  auto const temporary = partialPath(out, ::getpid());
  write(temporary);
  fs::remove(claimFileOf(out));  // by hand, while the job runs: another job can claim the path now
  Gate hold;
  Child other([&](Child const& self) {
    claim(out, "output");
    self.say("claimed");
    hold.waitInChild();
  });
  ASSERT_EQ(other.line(), "claimed");
  try {
    commitFile(temporary, out);
    FAIL() << "renamed while another job holds the claim";
  } catch (Exception const& error) {
    EXPECT_NE(std::string(error.what()).find("another lanes job (pid " + std::to_string(other.pid())), std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(fs::exists(temporary));
  EXPECT_FALSE(fs::exists(out));
  hold.open();
  other.wait();
  EXPECT_FALSE(commitFile(temporary, out)) << "claimed again, nothing replaced";
  EXPECT_TRUE(fs::exists(out));
  write(temporary);
  EXPECT_TRUE(commitFile(temporary, out)) << "an earlier file replaced";
}

TEST_F(PathClaimTest, CleanRemovesOnlyWhatAClaimProves) {
  auto const out = path("out.root");
  auto const pid = killedWriter(out, [&](long self) {
    return std::vector<std::string>{partialPath(out, self), partPath(out, jobPartName("worker-0", self)),
                                    partialPath(partPath(out, jobPartName("worker-1", self)), 4242)};
  });
  std::vector<std::string> expected{partialPath(out, pid), partPath(out, jobPartName("worker-0", pid)),
                                    partialPath(partPath(out, jobPartName("worker-1", pid)), 4242)};
  std::sort(expected.begin(), expected.end());
  expected.push_back(claimFileOf(out));
  // A user's files of the same look, a live job's, and a symlink under a name the claim proves.
  std::vector<std::string> const kept{path("x.partial-99999"), partialPath(out, 99999), out, path("live.root"),
                                      partialPath(path("live.root"), ::getpid())};
  for (auto const& file : kept) write(file);
  claim(path("live.root"), "output");
  auto const link = partialPath(out, pid) + ".link";
  fs::create_symlink(path("x.partial-99999"), link);

  std::vector<std::pair<std::string, std::uintmax_t>> listed;
  cleanDirectory(directory_.string(), false, [&](std::string const& file, std::uintmax_t bytes) {
    listed.emplace_back(file, bytes);
  });
  ASSERT_EQ(listed.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(listed[k].first, expected[k]);
  EXPECT_EQ(listed[0].second, 1u);
  for (auto const& file : expected) EXPECT_TRUE(fs::exists(file)) << "a dry run removes nothing";

  cleanDirectory(directory_.string(), true, [](std::string const&, std::uintmax_t) {});
  for (auto const& file : expected) EXPECT_FALSE(fs::exists(file)) << file;
  for (auto const& file : kept) EXPECT_TRUE(fs::exists(file)) << file;
  EXPECT_TRUE(fs::exists(claimFileOf(path("live.root")))) << "a live job's claim stays";
  EXPECT_TRUE(fs::is_symlink(link));
}

}  // namespace
}  // namespace lanes
