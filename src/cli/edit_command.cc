#include "cli/edit_command.h"

#include "cli/caller_paths.h"
#include "cli/feed_route.h"
#include "cli/loop_commands.h"
#include "cli/store_access.h"
#include "cli/workflow_target.h"
#include "core/loop_edit.h"
#include "exec/wake.h"
#include "store/secrets.h"

namespace orrery::cli {
namespace {

// How often an edit is applied again when the loop changed under it.
constexpr int kEditTries = 3;

// Writes the loop's new secrets, then the loop; when the loop cannot be
// written, the old secrets are put back, so a refused edit changes nothing.
Status store_edit(OpenedStore& opened, const Loop& before, const EditedLoop& edited,
                  const std::vector<EnvVar>& old_secrets, TimeMs now) {
  const std::string& id = edited.loop.id;
  if (edited.secrets_changed) {
    if (auto written = write_loop_secrets(opened.home, id, edited.secret_values); !written) {
      return written;
    }
  }
  const LoopParts parts{true, edited.schedule_changed};
  auto stored = opened.store->update_loop_parts(edited.loop, parts, {}, now);
  if (!stored && edited.secrets_changed) {
    if (before.target.secret_env.empty() && old_secrets.empty()) {
      (void)remove_loop_secrets(opened.home, id);
    } else {
      (void)write_loop_secrets(opened.home, id, old_secrets);
    }
  }
  return stored;
}

// A loop's workflow version moves only while none of its runs is running
// (docs/workflows.md, "Loops that run workflows").
Status check_workflow_move(Store& store, const Loop& before, const Loop& after) {
  if (after.target.type != TargetType::kWorkflow) return Ok{};
  if (before.target.type == TargetType::kWorkflow &&
      before.target.workflow_id == after.target.workflow_id)
    return Ok{};
  RunFilter running;
  running.loop_id = before.id;
  running.status = RunStatus::kRunning;
  running.limit = 1;
  auto runs = store.list_runs(running);
  if (!runs) return runs.error();
  if (runs->empty()) return Ok{};
  return conflict_error("loop " + before.name + " has a running run (" + runs->front().id +
                        "); its workflow can change once the run has finished");
}

// Validates the edit of `loop` as read and stores it; a conflict when the
// loop changed since it was read.
Status apply_edit(OpenedStore& opened, const Loop& loop, const LoopSpec& given, TimeMs now) {
  std::vector<EnvVar> secrets;
  if (!loop.target.secret_env.empty()) {
    auto read = read_loop_secrets(opened.home, loop.id);
    if (!read) return read.error();
    secrets = std::move(*read);
  }
  auto edited = edit_loop(loop, secrets, given, now, TimeZone::local());
  if (!edited) return edited.error();
  if (auto files = check_target_files(edited->loop.target, given.paths); !files) return files;
  if (auto resolved = resolve_workflow_target(*opened.store, edited->loop.target); !resolved)
    return resolved;
  if (auto moved = check_workflow_move(*opened.store, loop, edited->loop); !moved) return moved;
  if (auto feed = resolve_feed_route(*opened.store, edited->loop); !feed) return feed;
  return store_edit(opened, loop, *edited, secrets, now);
}

}  // namespace

Result<int> edit_loop_command(const EditArgs& args, const Context& context) {
  LoopSpec given = args.spec;
  given.paths = caller_paths();
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto loop = opened->store->resolve_loop(args.loop);
  if (!loop) return loop.error();
  // A loop changed meanwhile (a daemon tick, another command) is read again
  // and the edit applied to it again.
  for (int tries = 1;; ++tries) {
    auto stored = apply_edit(*opened, *loop, given, context.now);
    if (stored) break;
    if (stored.error().code != ErrorCode::kConflict || tries == kEditTries) return stored.error();
    auto reread = opened->store->get_loop(loop->id);
    if (!reread) return reread.error();
    if (!reread->has_value()) return not_found_error("no loop has the id '" + loop->id + "'");
    loop = **reread;
  }
  notify_daemon(opened->home);
  auto shown = opened->store->get_loop(loop->id);
  if (!shown) return shown.error();
  if (!shown->has_value()) return not_found_error("no loop has the id '" + loop->id + "'");
  print_loop_document(context, **shown, *opened->store);
  return 0;
}

}  // namespace orrery::cli
