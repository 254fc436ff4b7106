// Black-box tests of handles (docs/cli.md, "Ids"): every human listing
// shows each id by its shortest unique prefix of at least 8 characters, one
// length a column, and every handle it shows is taken back by the command
// that shows that kind of row. Generated over the listings; the rows of
// each are made together (items of one enqueue share their millisecond).
// The merge queue's and workers' listings are checked in workers_test.cc.
#include <gtest/gtest.h>

#include "workflow_fixture.h"

namespace orrery {
namespace {

class Handles : public WorkflowFixture {
 protected:
  static std::vector<std::string> ids_of(const json& list) {
    std::vector<std::string> ids;
    for (const json& row : list) ids.push_back(row["id"].get<std::string>());
    return ids;
  }
};

using Args = std::vector<std::string>;

struct Listing {
  Args listing;       // the human listing
  Args json_listing;  // the same rows as JSON
  Args show;          // shows one row, given its handle last
};

TEST_F(Handles, EveryListingShowsHandlesThatItsShowCommandTakesBack) {
  std::vector<std::string> loops;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "loop" + std::to_string(i);
    add(name, {"--every", "1h", "--", "true"});
    json_of({"trigger", name, "--wait"});
    if (i < 3) json_of({"goal", "create", "--loop", name, "--objective", "goal " + name});
  }
  create("w", "name: w\nsteps:\n  - id: work\n    target: {type: command, command: 'true'}\n");
  for (int i = 0; i < 3; ++i) run_wait("w");
  create("w", "name: w\nsteps:\n  - id: work2\n    target: {type: command, command: 'true'}\n");
  json_of({"route", "add", "r", "--workflow", "w"});
  std::string batch;
  for (int i = 0; i < 6; ++i) {
    std::string key = "k";  // appended: GCC 12 -O3 -Wrestrict on "k" + a temporary
    key += std::to_string(i);
    batch += json{{"key", key}}.dump();
    batch += '\n';
  }
  json_of({"enqueue", "r", "--from-json", write_file("batch.jsonl", batch)});

  const std::vector<Listing> listings{
      {{"ls"}, {"ls"}, {"show"}},
      {{"runs"}, {"runs"}, {"run", "show"}},
      {{"items"}, {"items"}, {"item", "show"}},
      {{"goal", "ls"}, {"goal", "ls"}, {"goal", "show"}},
      {{"workflow", "ls", "--all"}, {"workflow", "ls", "--all"}, {"workflow", "show"}},
      {{"workflow", "runs"}, {"workflow", "runs"}, {"workflow", "show-run"}},
  };
  for (const Listing& each : listings) {
    SCOPED_TRACE(each.listing.front() + (each.listing.size() > 1 ? " " + each.listing[1] : ""));
    const std::vector<std::string> ids = ids_of(json_of(each.json_listing));
    ASSERT_GE(ids.size(), 2u);
    expect_handles(each.listing, ids, [&](const std::string& handle) {
      Args show = each.show;
      show.push_back(handle);
      return show;
    });
  }
}

// `logs` takes a run or a loop: a run's handle in `runs` never starts a
// loop's id, nor a loop's handle in `ls` a run's, however long the prefix
// they share (a loop row is copied under ids made to share it).
TEST_F(Handles, ARunsHandleAndALoopsHandleNeverNameEachOtherInLogs) {
  add("hello", {"--every", "1h", "--shell", "echo hello"});
  const std::string run_id = json_of({"trigger", "hello", "--wait"})["id"];
  for (const size_t shared : {8u, 12u, 20u, 31u}) {
    SCOPED_TRACE(shared);
    const char other = run_id[shared] == 'f' ? '0' : 'f';
    const std::string twin = run_id.substr(0, shared) + std::string(32 - shared, other);
    const std::string name = "twin" + std::to_string(shared);
    sql("CREATE TEMP TABLE copied AS SELECT * FROM loops WHERE name = 'hello';"
        "UPDATE copied SET id = '" +
        twin + "', name = '" + name +
        "';"
        "INSERT INTO loops SELECT * FROM copied; DROP TABLE copied;");
    std::string run_handle;
    for (const std::string& line : lines(run({"runs"}).out)) {
      const std::string first = line.substr(0, line.find(' '));
      if (first.size() >= 8 && run_id.rfind(first, 0) == 0) run_handle = first;
    }
    ASSERT_GT(run_handle.size(), shared) << run({"runs"}).out;
    const RunResult logs = run({"logs", run_handle});
    EXPECT_EQ(logs.exit_code, 0) << logs.err;
    EXPECT_EQ(logs.out, "hello\n");
    std::string loop_handle;
    for (const std::string& line : lines(run({"ls"}).out)) {
      if (line.find(name + " ") == std::string::npos) continue;
      for (size_t at = 0; at + 8 <= line.size(); ++at) {
        if (line.compare(at, 8, twin, 0, 8) != 0) continue;
        const size_t end = line.find(' ', at);
        loop_handle = line.substr(at, end == std::string::npos ? std::string::npos : end - at);
      }
    }
    ASSERT_GT(loop_handle.size(), shared) << run({"ls"}).out;
    EXPECT_EQ(twin.rfind(loop_handle, 0), 0u) << loop_handle;
    EXPECT_NE(run({"logs", loop_handle}).exit_code, 4) << run({"logs", loop_handle}).err;
  }
}

}  // namespace
}  // namespace orrery
