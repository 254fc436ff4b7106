#include "core/feedback_prompt.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/exact_json.h"

namespace orrery {
namespace {

using Json = nlohmann::json;

std::string text_at(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

// The member `key` of `object`; null when either is missing.
const Json& member(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto found = object.find(key);
  return found != object.end() ? *found : kNull;
}

std::string joined(const Json& list) {
  std::string text;
  if (!list.is_array()) return text;
  for (const Json& item : list) {
    if (!item.is_string()) continue;
    if (!text.empty()) text += ", ";
    text += item.get<std::string>();
  }
  return text;
}

// A fence longer than any run of backticks in `text`.
std::string fence_for(std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string last_bytes(const std::string& text) {
  if (text.size() <= kMaxPromptOutputBytes) return text;
  std::size_t start = text.size() - kMaxPromptOutputBytes;
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  return "…" + text.substr(start);
}

std::string merge_lines(const std::string& step, const Json& merge) {
  const std::string state = text_at(merge, "state");
  const std::string target = text_at(merge, "target");
  std::string lines;
  if (state == "conflict") {
    lines += "- Step `" + step + "`: its change conflicted with `" + target +
             "` in: " + joined(member(merge, "conflict_files")) +
             ". This attempt starts from the current `" + target +
             "`, which already holds the other change: make your change on top of it.\n";
  }
  const Json& verify = member(merge, "verify");
  if (state == "rejected" && verify.is_object()) {
    const Json& code = member(verify, "exit_code");
    lines +=
        "- Step `" + step + "`: the verification `" + text_at(verify, "command") + "` failed" +
        (code.is_number_integer() ? " with exit status " + std::to_string(code.get<long long>())
                                  : std::string(" (killed or timed out)")) +
        ".";
    const std::string output = last_bytes(text_at(verify, "output_tail"));
    if (!output.empty()) {
      const std::string fence = fence_for(output);
      lines += " The end of its output:\n" + fence + "\n" + output +
               (output.back() == '\n' ? "" : "\n") + fence;
    }
    lines += "\n";
  } else if (state == "rejected") {
    lines += "- Step `" + step +
             "`: the merge queue rejected its change: " + text_at(merge, "reason") + "\n";
  }
  return lines;
}

std::string change_lines(const Json& change) {
  const std::string step = text_at(change, "step");
  std::string lines;
  if (member(change, "merge").is_object()) lines += merge_lines(step, member(change, "merge"));
  const std::string outside = joined(member(change, "files_outside_allowed"));
  if (!outside.empty()) {
    lines += "- Step `" + step + "`: files changed outside the allowed ones: " + outside +
             ". Change only the files the step allows.\n";
  }
  const std::string hold = text_at(change, "hold_reason");
  if (lines.empty() && !hold.empty()) lines += "- Step `" + step + "`: " + hold + "\n";
  return lines;
}

}  // namespace

std::string feedback_prompt_section(std::string_view feedback_json) {
  const Json record = read_json(feedback_json);
  if (!member(record, "attempt").is_number_integer()) return "";
  std::string section = "\n\n## The previous attempt\n\nAttempt " +
                        std::to_string(record["attempt"].get<long long>()) +
                        " of this work did not succeed: " + text_at(record, "reason") + "\n";
  std::string details;
  const Json& changes = member(record, "changes");
  if (changes.is_array()) {
    for (const Json& change : changes) details += change_lines(change);
  }
  if (!details.empty()) section += "\n" + details;
  section +=
      "\nThe whole record is the JSON file named by $ORRERY_FEEDBACK. This attempt is a new "
      "change; fix what went wrong above.\n";
  return section;
}

std::string feedback_summary(std::string_view feedback_json) {
  const Json record = read_json(feedback_json);
  if (!member(record, "attempt").is_number_integer()) return "";
  return "attempt " + std::to_string(record["attempt"].get<long long>()) + " " +
         text_at(record, "outcome") +
         " (the next attempt is told why: its prompt and $ORRERY_FEEDBACK; --json has the "
         "record)";
}

}  // namespace orrery
