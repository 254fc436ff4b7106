// Every path argument means what the user typed, where they typed it
// (docs/paths.md): for each command that takes a path, every form of the
// same path — relative, ./relative, ~/…, ~/…/.., absolute with a `.` step —
// given from a subdirectory reaches the same absolute path, and a path that
// cannot be read (an unknown user's ~) is refused naming it, with nothing
// stored.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "home_fixture.h"

namespace orrery {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// "p7": a name made of a prefix and a number (appended: GCC 12 at -O3 warns
// of a literal added to a temporary).
std::string named(const char* prefix, int n) {
  std::string name(prefix);
  name += std::to_string(n);
  return name;
}

// One command that takes a path: it runs with `given` (the n-th form tried)
// and says where what it did can be seen.
struct PathCase {
  std::string name;
  std::string target;  // the absolute path every form names
  // Runs the command; its result must be success.
  std::function<RunResult(const std::string& given, int n)> apply;
  // Text in which the target must appear, quoted as JSON (empty: the
  // target must exist afterwards instead).
  std::function<std::string(int n)> read_back;
  // apply() changes something itself before the command with the path (a
  // loop for a goal, the loop's cwd reset).
  bool prepares = false;
};

class PathsCli : public HomeFixture {
 protected:
  void SetUp() override {
    HomeFixture::SetUp();
    user_ = tmp_ + "/user";
    proj_ = user_ + "/proj";
    cwd_ = proj_ + "/sub";
    fs::create_directories(cwd_);
    sh("git init -q -b main " + proj_ + " && git -C " + proj_ +
       " -c user.name=t -c user.email=t@t commit -q --allow-empty -m first");
    write(proj_ + "/prompt.md", "Fix it\n");
    write(proj_ + "/tool.sh", "#!/bin/sh\ntrue\n");
    ::chmod((proj_ + "/tool.sh").c_str(), 0755);
    write(proj_ + "/objective.txt", "make the tests pass\n");
    write(proj_ + "/plan.yaml", "- {key: a, objective: first}\n");
    write(proj_ + "/items.jsonl", "{\"key\": \"one\"}\n");
    write(proj_ + "/spec.yaml",
          "name: paths\nsteps:\n  - id: s\n    target: {type: command, command: \"true\", "
          "cwd: sub}\n    worktree: required\n    repo: ~/proj\n");
    ASSERT_EQ(in_cwd({"workflow", "create", proj_ + "/spec.yaml"}).exit_code, 0)
        << in_cwd({"workflow", "create", proj_ + "/spec.yaml"}).err;
    ASSERT_EQ(in_cwd({"route", "add", "r0", "--workflow", "paths"}).exit_code, 0)
        << in_cwd({"route", "add", "r0", "--workflow", "paths"}).err;
    ASSERT_EQ(in_cwd({"add", "p0", "--every", "1h", "--", "true"}).exit_code, 0)
        << in_cwd({"add", "p0", "--every", "1h", "--", "true"}).err;
  }

  static void sh(const std::string& line) { ASSERT_EQ(std::system(line.c_str()), 0) << line; }
  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }

  // orrery with --home, started in the subdirectory, $HOME the test's user.
  RunResult in_cwd(const Args& args) const {
    return run_orrery_in(cwd_, with_home(args), {{"HOME", user_}});
  }
  RunResult bare_in_cwd(const Args& args) const {
    return run_orrery_in(cwd_, args, {{"HOME", user_}});
  }

  // Every form of `target` (absolute, under the user's home) as typed in cwd_.
  std::vector<std::string> forms_of(const std::string& target) const {
    const std::string relative = fs::path(target).lexically_relative(cwd_).string();
    const std::string from_home = fs::path(target).lexically_relative(user_).string();
    return {relative, "./" + relative, "~/" + from_home,
            std::string("~/proj/sub/../").append(fs::path(target).lexically_relative(proj_)),
            user_ + "/./" + from_home};
  }

  std::string shown(const Args& args) const { return in_cwd(args).out; }

  // Every row of every table of the database, as text: what "nothing was
  // stored" is checked against.
  std::string stored_rows() const {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2((home_ + "/orrery.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
              SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    std::string rows;
    const auto each_row = [](void* out, int columns, char** values, char**) {
      auto& text = *static_cast<std::string*>(out);
      for (int i = 0; i < columns; ++i) (text += values[i] ? values[i] : "NULL") += '|';
      text += '\n';
      return 0;
    };
    std::string tables;
    sqlite3_exec(db, "SELECT group_concat(name, ' ') FROM sqlite_master WHERE type = 'table'",
                 each_row, &tables, nullptr);
    std::istringstream names(tables.substr(0, tables.find('|')));
    for (std::string table; names >> table;) {
      rows += table + ":\n";
      sqlite3_exec(db, ("SELECT * FROM \"" + table + "\"").c_str(), each_row, &rows, nullptr);
    }
    sqlite3_close(db);
    return rows;
  }

  std::vector<PathCase> cases() {
    std::vector<PathCase> all;
    const auto loop = [](int n) { return named("p", n + 1); };
    all.push_back({"add --cwd", proj_,
                   [=, this](const std::string& given, int n) {
                     return in_cwd({"add", loop(n), "--every", "1h", "--cwd", given, "--", "true"});
                   },
                   [=, this](int n) {
                     return shown({"--json", "show", loop(n)});
                   }});
    all.push_back({"add --prompt-file", proj_ + "/prompt.md",
                   [=, this](const std::string& given, int n) {
                     return in_cwd({"add", loop(n), "--every", "1h", "--agent", "claude",
                                    "--prompt-file", given});
                   },
                   [=, this](int n) {
                     return shown({"--json", "show", loop(n)});
                   }});
    all.push_back({"add --add-dir", proj_,
                   [=, this](const std::string& given, int n) {
                     return in_cwd({"add", loop(n), "--every", "1h", "--agent", "codex", "--prompt",
                                    "x", "--add-dir", given});
                   },
                   [=, this](int n) {
                     return shown({"--json", "show", loop(n)});
                   }});
    all.push_back({"add -- EXECUTABLE", proj_ + "/tool.sh",
                   [=, this](const std::string& given, int n) {
                     return in_cwd({"add", loop(n), "--every", "1h", "--", given});
                   },
                   [=, this](int n) {
                     return shown({"--json", "show", loop(n)});
                   }});
    all.push_back({"edit --cwd", proj_,
                   [=, this](const std::string& given, int) {
                     EXPECT_EQ(in_cwd({"edit", "p0", "--cwd", "/"}).exit_code, 0);
                     return in_cwd({"edit", "p0", "--cwd", given});
                   },
                   [=, this](int) {
                     return shown({"--json", "show", "p0"});
                   },
                   true});
    all.push_back({"route add --cwd", proj_,
                   [=, this](const std::string& given, int n) {
                     return in_cwd({"route", "add", named("r", n + 1), "--workflow", "paths",
                                    "--cwd", given});
                   },
                   [=, this](int n) {
                     return shown({"--json", "route", "show", named("r", n + 1)});
                   }});
    // The spec's relative cwd is read against the spec's directory, its
    // repo's ~ against $HOME.
    all.push_back({"workflow create FILE", proj_ + "/spec.yaml",
                   [=, this](const std::string& given, int) {
                     return in_cwd({"workflow", "create", given});
                   },
                   [=, this](int) {
                     const std::string spec = shown({"--json", "workflow", "show", "paths"});
                     return spec.find("\"" + proj_ + "/sub\"") != std::string::npos &&
                                    spec.find("\"" + proj_ + "\"") != std::string::npos
                                ? "\"" + proj_ + "/spec.yaml\""
                                : spec;
                   }});
    all.push_back({"queue config REPO", proj_,
                   [=, this](const std::string& given, int) {
                     return in_cwd({"queue", "config", given, "--verify", "true"});
                   },
                   [=, this](int) {
                     return shown({"--json", "queue", "config", proj_});
                   }});
    all.push_back({"queue ls REPO", proj_,
                   [=, this](const std::string& given, int) {
                     return in_cwd({"queue", "ls", given});
                   },
                   nullptr});
    all.push_back({"worker ls --repo", proj_,
                   [=, this](const std::string& given, int) {
                     return in_cwd({"worker", "ls", "--repo", given});
                   },
                   nullptr});
    all.push_back(
        {"goal create --objective-file and --plan", proj_ + "/objective.txt",
         [=, this](const std::string& given, int n) {
           EXPECT_EQ(in_cwd({"add", named("g", n), "--every", "1h", "--", "true"}).exit_code, 0);
           const std::string plan =
               given.substr(0, given.size() - std::string("objective.txt").size()) + "plan.yaml";
           return in_cwd({"goal", "create", "--loop", named("g", n), "--objective-file", given,
                          "--plan", plan});
         },
         nullptr, true});
    all.push_back(
        {"goal plan --set", proj_ + "/plan.yaml",
         [=, this](const std::string& given, int n) {
           EXPECT_EQ(in_cwd({"add", named("h", n), "--every", "1h", "--", "true"}).exit_code, 0);
           const RunResult created =
               in_cwd({"--json", "goal", "create", "--loop", named("h", n), "--objective", "x"});
           EXPECT_EQ(created.exit_code, 0) << created.err;
           const std::string id = json::parse(created.out)["id"];
           return in_cwd({"goal", "plan", id, "--set", given});
         },
         nullptr, true});
    all.push_back({"enqueue --from-json", proj_ + "/items.jsonl",
                   [=, this](const std::string& given, int) {
                     return in_cwd({"enqueue", "r0", "--from-json", given});
                   },
                   nullptr});
    all.push_back({"--home", user_ + "/data",
                   [=, this](const std::string& given, int) {
                     fs::remove_all(user_ + "/data");
                     return bare_in_cwd({"--home", given, "ls"});
                   },
                   nullptr});
    all.push_back({"--db", user_ + "/db/x.db",
                   [=, this](const std::string& given, int) {
                     fs::remove_all(user_ + "/db");
                     fs::create_directories(user_ + "/db");
                     return in_cwd({"--db", given, "ls"});
                   },
                   nullptr});
    all.push_back({"daemon --log", user_ + "/d.log",
                   [=, this](const std::string& given, int) {
                     fs::remove(user_ + "/d.log");
                     // A home of its own: the route's items are not the daemon's to run.
                     return bare_in_cwd(
                         {"--home", user_ + "/daemon-home", "daemon", "--once", "--log", given});
                   },
                   nullptr});
    return all;
  }

  std::string user_, proj_, cwd_;
};

TEST_F(PathsCli, EveryFormOfAPathArgumentNamesTheSameAbsolutePath) {
  int n = 0;
  for (PathCase& path_case : cases()) {
    for (const std::string& given : forms_of(path_case.target)) {
      SCOPED_TRACE(path_case.name + " given '" + given + "'");
      const RunResult result = path_case.apply(given, n);
      ASSERT_EQ(result.exit_code, 0) << result.err;
      if (path_case.read_back) {
        const std::string seen = path_case.read_back(n);
        EXPECT_NE(seen.find("\"" + path_case.target + "\""), std::string::npos) << seen;
      } else {
        EXPECT_TRUE(fs::exists(path_case.target));
      }
      ++n;
    }
  }
  EXPECT_GE(n, 16 * 5);
}

// A path naming an unknown user's home is refused (exit 2) naming the path,
// whatever the command, and stores nothing.
TEST_F(PathsCli, AnUnknownUsersHomeIsRefusedNamingThePathAndNothingIsStored) {
  const std::string given = "~no-such-user-orrery/x";
  int n = 100;
  for (PathCase& path_case : cases()) {
    SCOPED_TRACE(path_case.name);
    const std::string before = stored_rows();
    const RunResult result = path_case.apply(given, n);
    EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
    EXPECT_NE(result.err.find("'" + given + "'"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("no such user"), std::string::npos) << result.err;
    if (!path_case.prepares) {
      EXPECT_EQ(stored_rows(), before);
    }
    ++n;
  }
}

// Typed in a directory whose name is not UTF-8, `./x` reads as a path orrery
// cannot keep as text: every command refuses it (exit 2) saying so, and
// stores nothing.
TEST_F(PathsCli, ARelativePathReadInADirectoryThatIsNotTextIsRefused) {
  cwd_ = user_ + "/not-text-\xff";
  fs::create_directories(cwd_);
  int n = 200;
  for (PathCase& path_case : cases()) {
    SCOPED_TRACE(path_case.name);
    const std::string before = stored_rows();
    const RunResult result = path_case.apply("./x", n++);
    EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
    EXPECT_NE(result.err.find("not valid UTF-8"), std::string::npos) << result.err;
    if (!path_case.prepares) {
      EXPECT_EQ(stored_rows(), before);
    }
  }
}

}  // namespace
}  // namespace orrery
