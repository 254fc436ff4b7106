// A loop's run as `run show`, `runs` and `trigger --wait` print it
// (docs/cli.md, "The run document"): its JSON document, with the link to the
// workflow run it started, and its human view.
//
// Invariants: the document and the view show the same run; a run that
// started no workflow run has "workflow_run_id": null and no such row; the
// output tails are printed as lines with every other control escaped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "core/run.h"
#include "store/store.h"

namespace orrery::cli {

// "succeeded in 1.2s, exit 0", for the human views.
std::string outcome_text(const Run& run);

// The run's JSON document (with its output tails when `with_output`).
nlohmann::json run_document(Store& store, const Run& run, bool with_output);

// The run's human view: its fields, then its output tails.
void print_run(const Context& context, Store& store, const Run& run);

// The run as `run show` prints it (its JSON document, with output, with --json).
void print_run_document(const Context& context, Store& store, const Run& run);

}  // namespace orrery::cli
