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
  for (int i = 0; i < 6; ++i) batch += json{{"key", "k" + std::to_string(i)}}.dump() + "\n";
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

}  // namespace
}  // namespace orrery
