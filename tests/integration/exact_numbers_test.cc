// Black-box tests that numbers are kept exactly (docs/architecture.md,
// "Numbers are kept exactly"): an item's input and scope, a workflow run's
// --input and a loop's --input keep every number as it was given — in what
// is stored, in every listing and view, --json or not, and in the files the
// run's steps read — and a number too large where a whole number is expected
// is out of range, named as given.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workflow_fixture.h"

namespace orrery {
namespace {

// Numbers a double would round, overflow or reformat.
const std::vector<std::string> kNumbers = {
    "123456789012345678901234",
    "18446744073709551616",
    "-9223372036854775809",
    "2.50",
    "1.10",
    "1E5",
    "-1.5e-7",
};

// A JSON object {"n0": NUMBER0, "n1": NUMBER1, …} of every number.
std::string numbers_object() {
  std::string text = "{";
  for (std::size_t i = 0; i < kNumbers.size(); ++i) {
    if (i > 0) text += ",";
    text += "\"n" + std::to_string(i) + "\":" + kNumbers[i];
  }
  return text + "}";
}

class ExactNumbers : public WorkflowFixture {
 protected:
  std::string out_of(const Args& args) const {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    return result.out;
  }

  // Every number appears in `text` as the value of its key ("n0": …), in
  // the compact or the pretty layout, `times` times at least.
  static void expect_every_number(const std::string& text, const std::string& where,
                                  int times = 1) {
    for (std::size_t i = 0; i < kNumbers.size(); ++i) {
      const std::string key = "\"n" + std::to_string(i) + "\":";
      int found = 0;
      for (const std::string spacing : {"", " "}) {
        const std::string pair = key + spacing + kNumbers[i];
        for (std::size_t at = text.find(pair); at != std::string::npos;
             at = text.find(pair, at + 1)) {
          const char after = at + pair.size() < text.size() ? text[at + pair.size()] : '\n';
          if (after == ',' || after == '}' || after == '\n') ++found;
        }
      }
      EXPECT_GE(found, times) << where << ": " << kNumbers[i] << " not kept in\n" << text;
    }
  }
};

TEST_F(ExactNumbers, AnItemsInputAndScopeKeepEveryNumberInViewsAndInTheFilesItsRunReads) {
  create("w",
         "name: w\nsteps:\n  - id: work\n    target: {type: command, shell: true, "
         "command: 'printf %s \"$ORRERY_INPUT\" > " +
             tmp_ + "/input.json; cat \"$ORRERY_ITEM\" > " + tmp_ + "/item.json'}\n");
  json_of({"route", "add", "r", "--workflow", "w"});
  const std::string numbers = numbers_object();
  out_of({"enqueue", "r", "--key", "k", "--input", numbers, "--scope", numbers});
  // Listed and shown, as JSON (the input and the scope) and for people.
  expect_every_number(out_of({"--json", "items"}), "items --json", 2);
  expect_every_number(out_of({"--json", "item", "show", "r/k"}), "item show --json", 2);
  expect_every_number(out_of({"item", "show", "r/k"}), "item show");
  // A second enqueue of the queued key refreshes it: the numbers stay as given.
  const std::string again =
      out_of({"--json", "enqueue", "r", "--key", "k", "--input", numbers, "--scope", numbers});
  EXPECT_NE(again.find("\"refreshed\""), std::string::npos) << again;
  expect_every_number(again, "enqueue --json", 2);

  start_daemon();
  ASSERT_TRUE(eventually(
      [&] {
        return json_of({"item", "show", "r/k"})["status"] == "succeeded";
      },
      std::chrono::seconds(30)))
      << out_of({"item", "show", "r/k"});
  expect_every_number(read_file(tmp_ + "/input.json"), "ORRERY_INPUT");
  expect_every_number(read_file(tmp_ + "/item.json"), "ORRERY_ITEM", 2);
  const std::string run_id = json_of({"item", "show", "r/k"})["workflow_run_id"];
  expect_every_number(out_of({"--json", "workflow", "show-run", run_id}), "show-run --json");
}

TEST_F(ExactNumbers, AWorkflowRunsInputAndALoopsInputKeepEveryNumber) {
  create("w",
         "name: w\nsteps:\n  - id: work\n    target: {type: command, shell: true, "
         "command: 'printf %s \"$ORRERY_INPUT\" > " +
             tmp_ + "/input.json'}\n");
  const std::string numbers = numbers_object();
  const std::string finished =
      out_of({"--json", "workflow", "run", "w", "--wait", "--input", numbers});
  expect_every_number(finished, "workflow run --json");
  expect_every_number(read_file(tmp_ + "/input.json"), "ORRERY_INPUT");
  expect_every_number(out_of({"--json", "workflow", "runs"}), "workflow runs --json");

  out_of({"add", "l", "--every", "1h", "--workflow", "w", "--input", numbers});
  expect_every_number(out_of({"--json", "show", "l"}), "show --json");
  expect_every_number(out_of({"show", "l"}), "show");
}

TEST_F(ExactNumbers, ABatchLineWithANumberBeyondAWholeFieldIsRefusedNamingTheNumber) {
  create("w", "name: w\nsteps:\n  - id: work\n    target: {type: command, command: \"true\"}\n");
  json_of({"route", "add", "r", "--workflow", "w"});
  const std::string batch =
      "{\"key\": 123456789012345678901234, \"input\": {\"id\": 123456789012345678901234}}\n"
      "{\"key\": \"p\", \"priority\": 99999999999999999999999}\n"
      "{\"key\": \"q\", \"priority\": 2.50}\n";
  const RunResult result = run({"enqueue", "r", "--from-json", write_file("batch.jsonl", batch)});
  const std::string said = result.out + result.err;
  EXPECT_NE(said.find("99999999999999999999999 is out of range"), std::string::npos) << said;
  EXPECT_NE(said.find("must be a whole number, not 2.50"), std::string::npos) << said;
  // The valid line made one item, its key the number's digits and its input exact.
  const std::string shown = out_of({"--json", "item", "show", "r/123456789012345678901234"});
  EXPECT_TRUE(shown.find("\"id\": 123456789012345678901234") != std::string::npos ||
              shown.find("\"id\":123456789012345678901234") != std::string::npos)
      << shown;
  EXPECT_EQ(json_of({"items"}).size(), 1u);
}

}  // namespace
}  // namespace orrery
