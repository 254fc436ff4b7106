// The feedback section of a retried attempt's agent prompt (docs/fleet.md,
// "Outcomes and feedback"): the previous attempt's record
// (core/attempt_feedback.h) said in words — why it failed, the files that
// conflicted and with what, the verification and the end of its output,
// the files changed outside the allowed ones.
//
// Invariants: the section is "" for an empty or unreadable record (the
// prompt is then the step's own); text from the record is quoted, never
// read as instructions of the section's own (a fenced block is fenced by
// more backticks than it holds); the quoted output is at most
// kMaxPromptOutputBytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace orrery {

inline constexpr std::size_t kMaxPromptOutputBytes = 4 * 1024;

std::string feedback_prompt_section(std::string_view feedback_json);

// One line for `item show`: "attempt 1 rejected (…)"; "" for an empty or
// unreadable record.
std::string feedback_summary(std::string_view feedback_json);

}  // namespace orrery
