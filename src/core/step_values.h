// Values that workflow steps pass forward (docs/workflows.md, "Passing
// values between steps"): the `key=value` lines a step writes to the file
// named by ORRERY_OUTPUT, and the JSON document named by ORRERY_STEPS that
// later steps read. Pure: the caller reads and writes the files.
//
// Output file rules:
// - lines end at \n; a trailing \r is stripped; the last line needs no \n;
// - blank lines (nothing but spaces and tabs) and lines whose first
//   character is '#' are ignored;
// - every other line is KEY=VALUE: KEY is everything before the first '=',
//   a letter or '_' then up to 127 letters, digits, '_', '.' or '-';
//   VALUE is the rest of the line as written (it may hold '=', spaces);
// - a later line with the same key replaces the earlier value (the key
//   keeps its first place);
// - bytes that are not valid UTF-8, and NUL, become U+FFFD;
// - at most kMaxStepOutputBytes bytes and kMaxStepOutputKeys keys.
// A line without '=', a bad key or a limit passed is an error naming the
// line (or the limit); nothing of the file is kept then.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/workflow.h"

namespace orrery {

inline constexpr std::size_t kMaxStepOutputBytes = 256 * 1024;
inline constexpr std::size_t kMaxStepOutputKeys = 1000;
inline constexpr std::size_t kMaxStepOutputKeyBytes = 128;

// The output file's values as a JSON object of strings (text), in the
// order their keys first appear; "{}" for an empty file.
Result<std::string> parse_step_outputs(std::string_view file_text);

// The ORRERY_STEPS document for a step about to start:
// {"<step id>": {"status": "...", "exit_code": N | null, "outputs": {...}}}
// with one member, in spec order, for every step of `steps` that is
// finished (succeeded, failed, timed_out, skipped or cancelled). A record's
// outputs that are not a JSON object count as {}.
std::string steps_document(const WorkflowSpec& spec, const std::vector<StepRun>& steps);

}  // namespace orrery
