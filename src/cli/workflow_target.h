// A loop's workflow target (docs/workflows.md, "Loops that run workflows"):
// `--workflow NAME_OR_ID[@VERSION]` resolved to the id of one stored
// version, and `--input` checked as a JSON object. A loop keeps that
// version until `orrery edit LOOP --workflow …` moves it.
#pragma once

#include "core/loop.h"
#include "core/result.h"
#include "store/store.h"

namespace orrery::cli {

// NAME_OR_ID[@VERSION] (the newest version without one) as the stored
// version it names; a bad version is an error naming `option`.
Result<Workflow> resolve_workflow_reference(WorkflowCatalog& store, const std::string& reference,
                                            std::string_view option);

// Replaces target.workflow_id (a reference) with the version's id and
// target.input_json with its checked form; other targets are left alone.
Status resolve_workflow_target(Store& store, Target& target);

}  // namespace orrery::cli
