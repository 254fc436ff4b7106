// Workflow spec files (docs/workflows.md, "Spec files"): JSON or YAML text
// validated into a WorkflowSpec (core/workflow.h), and the canonical JSON a
// spec is stored as.
//
// Invariants: YAML is first turned into the same JSON tree as a JSON file,
// so both go through one validation; a spec that parses satisfies every
// invariant of WorkflowSpec (unique step ids of the step-id alphabet, known
// dependencies without duplicates, no self-dependency, no cycle, valid
// command or agent targets, absolute paths); every error names where it is
// (the line and column of a syntax error, the step and field of a
// validation error); nesting deeper than kMaxSpecNesting (core/spec_tree.h)
// is refused before it can exhaust the stack. encode → decode gives back an
// equal spec. Pure: no file or process I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/user_path.h"
#include "core/workflow.h"

namespace orrery {

inline constexpr std::size_t kMaxGoalCharacters = 4000;
inline constexpr std::size_t kMaxDescriptionCharacters = 4000;

enum class SpecFormat { kJson, kYaml };

// By the file name's extension (.json; .yaml or .yml), else JSON when the
// first non-space byte is '{', else YAML.
SpecFormat spec_format_of(std::string_view path, std::string_view text);

// Parses and validates a spec file's text. Paths (cwd, prompt_file,
// add_dirs, a worktree's repo) are resolved against `paths` (the spec's
// directory and the home directories `~` names, core/user_path.h). Errors
// are usage errors.
Result<WorkflowSpec> parse_workflow_spec(std::string_view text, SpecFormat format,
                                         const PathBase& paths);

// The canonical JSON a spec is stored as, and back. A stored document this
// version cannot read (another format number, an unknown key or value) is an
// internal error, never guessed.
std::string encode_workflow_spec(const WorkflowSpec& spec);
Result<WorkflowSpec> decode_workflow_spec(std::string_view json);

// The steps as shown by `workflow show --json`: [{id, target, depends_on,
// continue_on_failure, timeout_ms, retries, account}], a target in the shape
// of a loop's target (docs/cli.md).
std::string workflow_steps_json(const WorkflowSpec& spec);

}  // namespace orrery
