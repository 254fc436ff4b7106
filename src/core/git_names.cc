#include "core/git_names.h"

#include "core/text.h"

namespace orrery {
namespace {

bool forbidden_in_ref(unsigned char c) {
  return c < 0x20 || c == 0x7f || c == ' ' || c == '~' || c == '^' || c == ':' || c == '?' ||
         c == '*' || c == '[' || c == '\\';
}

Status refused(std::string_view name, const std::string& where, const std::string& why) {
  return usage_error(where + " '" + visible(name) + "' is not a valid branch name: " + why);
}

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

}  // namespace

Status check_branch_component(std::string_view component, const std::string& where) {
  if (component.empty()) return refused(component, where, "a part between '/' is empty");
  if (component.front() == '.') return refused(component, where, "a part starts with '.'");
  if (ends_with(component, ".lock")) return refused(component, where, "a part ends with '.lock'");
  if (component.back() == '.') return refused(component, where, "a part ends with '.'");
  if (component.find("..") != std::string_view::npos)
    return refused(component, where, "it contains '..'");
  return Ok{};
}

Status check_branch_name(std::string_view name, const std::string& where) {
  if (name.empty()) return usage_error(where + ": a branch name is required");
  if (name.size() > kMaxBranchBytes) {
    return usage_error(where + ": " + std::to_string(name.size()) + " bytes; at most " +
                       std::to_string(kMaxBranchBytes) + " are allowed");
  }
  if (auto valid = check_utf8(name, where); !valid) return valid;
  if (name == "@" || name == "HEAD") return refused(name, where, "it is reserved by git");
  if (name.front() == '-') return refused(name, where, "it starts with '-'");
  if (name.find("@{") != std::string_view::npos) return refused(name, where, "it contains '@{'");
  for (unsigned char c : name) {
    if (forbidden_in_ref(c)) {
      return refused(name, where,
                     "it contains a space, a control character or one of ~ ^ : ? * [ \\");
    }
  }
  size_t start = 0;
  while (true) {
    const size_t slash = name.find('/', start);
    const std::string_view part = name.substr(start, slash - start);
    if (auto valid = check_branch_component(part, where); !valid) {
      return refused(name, where,
                     valid.error().message.substr(valid.error().message.rfind(": ") + 2));
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Ok{};
}

Status check_revision(std::string_view revision, const std::string& where) {
  if (revision.empty()) return usage_error(where + ": a revision is required");
  if (revision.size() > kMaxBranchBytes) {
    return usage_error(where + ": " + std::to_string(revision.size()) + " bytes; at most " +
                       std::to_string(kMaxBranchBytes) + " are allowed");
  }
  if (auto valid = check_utf8(revision, where); !valid) return valid;
  if (revision.front() == '-') {
    return usage_error(where + " '" + visible(revision) +
                       "' starts with '-'; a revision is a branch, a tag or a commit id");
  }
  for (unsigned char c : revision) {
    if (c < 0x20 || c == 0x7f || c == ' ') {
      return usage_error(where + " '" + visible(revision) +
                         "' contains a space or a control character; a revision is a branch, a "
                         "tag or a commit id");
    }
  }
  return Ok{};
}

std::string worker_branch(const std::string& run_id, const std::string& step_id) {
  std::string branch("orrery/");
  branch += run_id;
  branch += '/';
  branch += step_id;
  return branch;
}

}  // namespace orrery
