#include "core/step_worktree_spec.h"

#include "core/git_names.h"
#include "core/path_glob.h"
#include "core/spec_fields.h"
#include "core/text.h"

namespace orrery {
namespace {

using nlohmann::json;

constexpr const char* kDependentKeys[] = {"repo",  "base",   "commit",        "allowed_files",
                                          "merge", "verify", "target_branch", "merge_strategy"};

// A word field ("auto", "queue", …) as text: "" when absent.
Result<std::string> word_field(const json& step, const char* key, const std::string& where) {
  const json* value = field(step, key);
  if (!value) return std::string();
  if (!value->is_string()) return wrong_type(where + key, "a word", *value);
  return value->get<std::string>();
}

// A parser's error with the step's place in front.
Error placed(const std::string& where, const Error& error) {
  return usage_error(where + error.message);
}

Status worktree_mode(const json& step, const std::string& where, StepWorktree& settings) {
  const json* value = field(step, "worktree");
  if (!value) return Ok{};
  if (value->is_boolean()) {  // worktree: true reads as required
    settings.mode = value->get<bool>() ? WorktreeMode::kRequired : WorktreeMode::kOff;
    return Ok{};
  }
  auto word = word_field(step, "worktree", where);
  if (!word) return word.error();
  auto mode = parse_worktree_mode(*word);
  if (!mode) return placed(where, mode.error());
  settings.mode = *mode;
  return Ok{};
}

Status git_fields(const json& step, const PathBase& paths, const std::string& where,
                  StepWorktree& settings) {
  auto repo = text_field(step, "repo", where);
  if (!repo) return repo.error();
  settings.repo = std::move(*repo);
  if (auto absolute = absolutize(settings.repo, paths, where + "repo"); !absolute) return absolute;
  auto base = text_field(step, "base", where);
  if (!base) return base.error();
  if (!base->empty()) {
    if (auto valid = check_revision(*base, where + "base"); !valid) return valid;
  }
  settings.base = std::move(*base);
  auto target = text_field(step, "target_branch", where);
  if (!target) return target.error();
  if (!target->empty()) {
    if (auto valid = check_branch_name(*target, where + "target_branch"); !valid) return valid;
  }
  settings.target_branch = std::move(*target);
  return Ok{};
}

Status allowed_files(const json& step, const std::string& where, StepWorktree& settings) {
  auto globs = text_list(step, "allowed_files", where);
  if (!globs) return globs.error();
  if (globs->size() > kMaxAllowedGlobs) {
    return usage_error(where + "allowed_files lists " + std::to_string(globs->size()) +
                       " globs; at most " + std::to_string(kMaxAllowedGlobs) + " are allowed");
  }
  for (size_t i = 0; i < globs->size(); ++i) {
    std::string at(where);
    at += "allowed_files[";
    at += std::to_string(i);
    at += ']';
    if (auto valid = check_glob((*globs)[i], at); !valid) return valid;
  }
  settings.allowed_files = std::move(*globs);
  return Ok{};
}

Status merge_fields(const json& step, const std::string& where, StepWorktree& settings) {
  auto commit = word_field(step, "commit", where);
  if (!commit) return commit.error();
  if (field(step, "commit")) {
    auto mode = parse_commit_mode(*commit);
    if (!mode) return placed(where, mode.error());
    settings.commit = *mode;
  }
  auto merge = word_field(step, "merge", where);
  if (!merge) return merge.error();
  if (field(step, "merge")) {
    auto mode = parse_merge_mode(*merge);
    if (!mode) return placed(where, mode.error());
    settings.merge = *mode;
  }
  auto strategy = word_field(step, "merge_strategy", where);
  if (!strategy) return strategy.error();
  if (field(step, "merge_strategy")) {
    auto parsed = parse_merge_strategy(*strategy);
    if (!parsed) return placed(where, parsed.error());
    settings.strategy = *parsed;
  }
  auto verify = text_field(step, "verify", where);
  if (!verify) return verify.error();
  if (field(step, "verify")) {
    if (auto valid = check_verify_command(*verify, where + "verify"); !valid) return valid;
  }
  settings.verify = std::move(*verify);
  return Ok{};
}

}  // namespace

Result<StepWorktree> parse_step_worktree(const json& step, const std::string& step_id,
                                         const PathBase& paths, const std::string& where) {
  StepWorktree settings;
  if (auto mode = worktree_mode(step, where, settings); !mode) return mode.error();
  if (settings.mode == WorktreeMode::kOff) {
    for (const char* key : kDependentKeys) {
      if (field(step, key)) {
        return usage_error(where + key +
                           " is a worktree setting; it needs worktree: auto or required");
      }
    }
    return settings;
  }
  if (auto valid = check_branch_component(step_id, where + "id"); !valid) {
    return usage_error(valid.error().message +
                       "; a step with a worktree gives its id to its branch (orrery/RUN/" +
                       visible(step_id) + ")");
  }
  if (auto s = git_fields(step, paths, where, settings); !s) return s.error();
  if (auto s = allowed_files(step, where, settings); !s) return s.error();
  if (auto s = merge_fields(step, where, settings); !s) return s.error();
  return settings;
}

void put_step_worktree(json& step, const StepWorktree& settings) {
  if (settings.mode == WorktreeMode::kOff) return;
  step["worktree"] = worktree_mode_name(settings.mode);
  if (!settings.repo.empty()) step["repo"] = settings.repo;
  if (!settings.base.empty()) step["base"] = settings.base;
  step["commit"] = commit_mode_name(settings.commit);
  if (!settings.allowed_files.empty()) step["allowed_files"] = settings.allowed_files;
  step["merge"] = merge_mode_name(settings.merge);
  if (!settings.verify.empty()) step["verify"] = settings.verify;
  if (!settings.target_branch.empty()) step["target_branch"] = settings.target_branch;
  if (settings.strategy) step["merge_strategy"] = merge_strategy_name(*settings.strategy);
}

}  // namespace orrery
