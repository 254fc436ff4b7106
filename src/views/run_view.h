// The run document of docs/cli.md ("The run document") as stored: one
// source for `runs`, `run show`, `trigger --wait`, the HTTP API and MCP.
// Fields may be added, never renamed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/run.h"
#include "core/run_feed.h"

namespace orrery {

// The run's fields; with_output adds its stdout and stderr tails.
nlohmann::json run_json(const Run& run, bool with_output);

// What the run document of `runs`, `run show` and `trigger --wait` adds to
// the stored run: the workflow run it started and what it fed its route.
struct RunLinks {
  std::string workflow_run_id;  // empty: it started none
  std::optional<RunFeed> feed;  // none: it fed no route
};

// The run with its links: "workflow_run_id" and "feed" are null for none.
nlohmann::json run_document_json(const Run& run, const RunLinks& links, bool with_output);

// What a run fed its route (docs/admission.md, "Feeds").
nlohmann::json feed_json(const RunFeed& feed);

}  // namespace orrery
