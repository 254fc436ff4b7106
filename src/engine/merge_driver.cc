#include "engine/merge_driver.h"

#include <filesystem>

#include "core/json_text_list.h"
#include "core/scrubber.h"
#include "core/text.h"
#include "exec/git.h"
#include "exec/run_secrets.h"
#include "exec/worker_actions.h"
#include "store/data_dir.h"
#include "store/home_layout.h"

namespace orrery {
namespace {

std::string short_commit(const std::string& commit) { return commit.substr(0, 12); }

std::string listed(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size() && i < 20; ++i) text += (i ? ", " : "") + items[i];
  if (items.size() > 20) text += " and " + std::to_string(items.size() - 20) + " more";
  return text;
}

class QueueDriver {
 public:
  QueueDriver(Store& store, const QueueKey& queue, const MergeDriverOptions& options)
      : store_(store),
        queue_(queue),
        options_(options),
        commands_(options.commands != nullptr ? *options.commands : system_commands()),
        clock_(options.clock != nullptr ? *options.clock : real_clock()),
        git_(commands_, options.env) {}

  Result<int> drive() {
    int ended = 0;
    while (true) {
      auto held = store_.lease_queue(queue_, holder(), lease_ms(), now());
      if (!held) return held.error();
      if (!*held) return ended;  // another driver has it
      auto next = next_entry();
      if (!next) return next.error();
      if (!next->has_value()) break;
      if (auto done = process(**next); !done) return done.error();
      ++ended;
    }
    (void)store_.lease_queue(queue_, holder(), 0, now());
    return ended;
  }

 private:
  TimeMs now() const { return clock_.wall_now(); }
  DurationMs lease_ms() const { return kQueueLeaseMs; }
  QueueHolder holder() const { return {options_.driver, options_.process}; }

  // The queue's lease and the worker's, renewed while an entry is worked on
  // (every lease/3 during its verification). A renewal that fails is
  // noticed by the guarded writes that follow.
  void renew(const Worker& worker) {
    (void)store_.lease_queue(queue_, holder(), lease_ms(), now());
    (void)store_.heartbeat_worker(worker.id, options_.driver, lease_ms(), now());
  }

  // The queue's head: waiting entries in order; a ready one left by a driver
  // that stopped is recovered first.
  Result<std::optional<MergeEntry>> next_entry() {
    // Read by state: merged and dropped entries pile up, and must never
    // push a waiting one past what a read returns.
    MergeFilter filter;
    filter.repo = queue_.repo;
    filter.state = MergeState::kReady;
    filter.limit = 10000;
    auto entries = store_.list_merge_entries(filter);
    if (!entries) return entries.error();
    for (const MergeEntry& entry : *entries) {
      if (entry.target != queue_.target || entry.state != MergeState::kReady) continue;
      if (auto recovered = recover(entry); !recovered) return recovered.error();
    }
    filter.state = MergeState::kWaiting;
    entries = store_.list_merge_entries(filter);
    if (!entries) return entries.error();
    for (const MergeEntry& entry : *entries) {
      if (entry.target == queue_.target && entry.state == MergeState::kWaiting)
        return std::optional<MergeEntry>(entry);
    }
    return std::optional<MergeEntry>();
  }

  // A ready entry whose driver stopped: merged when the target already
  // holds the commit it recorded before moving the target (it moved, the
  // record of it did not follow); otherwise back to waiting, verified again
  // from scratch. Its scratch worktree goes either way (apply).
  Status recover(const MergeEntry& entry) {
    if (!target_holds(entry.merge_commit)) return give_back(entry);
    auto worker = store_.get_worker(entry.worker_id);
    if (!worker) return worker.error();
    const std::string note = " (recorded after its driver " + entry.driver + " stopped)";
    if (worker->has_value() && (*worker)->state == WorkerState::kMergeReady) {
      return record_merged(entry, **worker, entry.parent_revision, entry.merge_commit, entry.verify,
                           note);
    }
    // Its worker was changed by other means: the entry's record only.
    MergeChange change =
        ending(entry, MergeState::kMerged,
               "merged onto " + queue_.target + " at " + short_commit(entry.merge_commit) + note);
    change.driver.clear();
    return apply(change);
  }

  // Whether the target branch holds `commit` (false for none, or one git
  // cannot find or read).
  bool target_holds(const std::string& commit) {
    if (commit.empty()) return false;
    auto tip = git_.commit_of(queue_.repo, "refs/heads/" + queue_.target);
    if (!tip) return false;
    auto held = git_.is_ancestor(queue_.repo, commit, *tip);
    return held && *held;
  }

  Status give_back(const MergeEntry& entry) {
    MergeChange change;
    change.entry_id = entry.id;
    change.from = MergeState::kReady;
    change.to = MergeState::kWaiting;
    change.reason = "its driver " + entry.driver + " stopped; it is verified again";
    auto worker = store_.get_worker(entry.worker_id);
    if (!worker) return worker.error();
    if (worker->has_value() && ((*worker)->state == WorkerState::kVerifying ||
                                (*worker)->state == WorkerState::kMergeReady)) {
      change.worker = worker_change(**worker, WorkerState::kReported, change.reason);
    }
    auto changed = store_.change_merge_entry(change, now());
    if (!changed) return changed.error();
    return Ok{};
  }

  WorkerChange worker_change(const Worker& worker, WorkerState to, const std::string& reason) {
    WorkerChange change;
    change.worker_id = worker.id;
    change.from = worker.state;
    change.to = to;
    change.lease_owner = options_.driver;
    change.lease_ms = lease_ms();
    change.reason = reason;
    return change;
  }

  Status process(const MergeEntry& waiting) {
    auto worker = store_.get_worker(waiting.worker_id);
    if (!worker) return worker.error();
    if (!worker->has_value() || (*worker)->state != WorkerState::kReported) {
      const std::string state = worker->has_value() ? worker_state_name((*worker)->state) : "gone";
      return end(waiting, MergeState::kWaiting, MergeState::kRejected,
                 "its worker is " + state + ", not reported", std::nullopt);
    }
    Worker current = **worker;
    auto config = store_.queue_config(queue_.repo);
    if (!config) return config.error();
    std::string verify = waiting.verify.command;
    if (verify.empty() && config->has_value()) verify = (*config)->verify;
    if (verify.empty()) {
      return end(waiting, MergeState::kWaiting, MergeState::kRejected,
                 "no verification command: a merge is never unverified by default; set verify: on "
                 "the step or orrery queue config " +
                     queue_.repo + " --verify CMD (--verify none to merge unverified)",
                 worker_change(current, WorkerState::kHold, ""));
    }
    const MergeStrategy strategy = waiting.strategy.value_or(
        config->has_value() ? (*config)->strategy : MergeStrategy::kRebase);
    MergeChange take;
    take.entry_id = waiting.id;
    take.from = MergeState::kWaiting;
    take.to = MergeState::kReady;
    take.driver = options_.driver;
    take.worker = worker_change(current, WorkerState::kVerifying, "verifying on " + queue_.target);
    auto taken = store_.change_merge_entry(take, now());
    if (!taken) return taken.error();
    current.state = WorkerState::kVerifying;
    current.lease_owner = options_.driver;
    return verify_and_merge(*taken, current, verify, strategy);
  }

  Status verify_and_merge(const MergeEntry& entry, Worker worker, const std::string& verify,
                          MergeStrategy strategy) {
    const std::string scratch = HomeLayout(options_.home).queue_scratch(entry.id);
    for (int round = 0; round < kMaxTipMoves; ++round) {
      renew(worker);
      auto tip = git_.commit_of(queue_.repo, "refs/heads/" + queue_.target);
      if (!tip) {
        return end(entry, MergeState::kReady, MergeState::kRejected,
                   "the target branch " + queue_.target + " cannot be read: " + tip.error().message,
                   worker_change(worker, WorkerState::kHold, ""));
      }
      auto combined = combine_in_scratch(entry, scratch, *tip, strategy);
      if (!combined) {
        return end(entry, MergeState::kReady, MergeState::kRejected, combined.error().message,
                   worker_change(worker, WorkerState::kHold, ""));
      }
      if (combined->conflict) {
        MergeChange change =
            refusal(entry, MergeState::kConflict, worker, *tip,
                    "conflict with " + queue_.target + " at " + short_commit(*tip) + " in " +
                        listed(combined->conflict_files) + "; branch " + worker.branch +
                        " is kept: fix it there, then orrery " + "queue retry " + entry.id);
        change.conflict_files_json = text_list_json(combined->conflict_files);
        return apply(change);
      }
      VerifyRecord record =
          run_verification(verify, scratch, entry, worker, combined->commit, combined->tree);
      renew(worker);
      if (record.exit_code != 0) {
        MergeChange change =
            refusal(entry, MergeState::kRejected, worker, *tip,
                    "verification failed (" +
                        (record.exit_code ? "exit status " + std::to_string(*record.exit_code)
                                          : std::string("killed or timed out")) +
                        "): " + verify + "; " + queue_.target + " is untouched, branch " +
                        worker.branch + " is kept");
        change.verify = record;
        return apply(change);
      }
      auto ready = record_intent(entry, worker, *tip, combined->commit, record);
      if (!ready) return ready.error();
      worker = *ready;
      auto moved = move_target(entry, *tip, combined->commit);
      if (!moved) {
        return after_git_failure(entry, worker, *tip, combined->commit, record,
                                 moved.error().message);
      }
      if (moved->moved) return record_merged(entry, worker, *tip, combined->commit, record, "");
      if (!moved->refusal.empty()) {
        MergeChange change = refusal(entry, MergeState::kRejected, worker, *tip, moved->refusal);
        change.verify = record;
        return apply(change);
      }
      // The target moved while it was verified: verify again on the new tip.
      remove_scratch(scratch);
      MergeChange again = ending(entry, MergeState::kReady,
                                 queue_.target + " moved from " + short_commit(*tip) +
                                     " during verification; verified again on the new tip");
      again.merge_commit = "";
      again.worker = worker_change(worker, WorkerState::kVerifying, again.reason);
      if (auto applied = apply(again); !applied) return applied.error();
      worker.state = WorkerState::kVerifying;
    }
    return end(entry, MergeState::kReady, MergeState::kRejected,
               queue_.target + " moved " + std::to_string(kMaxTipMoves) +
                   " times during verification; orrery queue retry " + entry.id + " tries again",
               worker_change(worker, WorkerState::kHold, ""));
  }

  // Before the target moves: the entry records the commit it will become
  // (and what was verified), and the worker is merge_ready, in one write.
  Result<Worker> record_intent(const MergeEntry& entry, const Worker& worker,
                               const std::string& tip, const std::string& commit,
                               const VerifyRecord& record) {
    std::string verified = "verified on ";
    verified += short_commit(tip);
    MergeChange intent = ending(entry, MergeState::kReady, verified);
    intent.parent_revision = tip;
    intent.merge_commit = commit;
    intent.verify = record;
    intent.worker = worker_change(worker, WorkerState::kMergeReady, intent.reason);
    if (auto applied = apply(intent); !applied) return applied.error();
    Worker ready = worker;
    ready.state = WorkerState::kMergeReady;
    return ready;
  }

  Result<Combined> combine_in_scratch(const MergeEntry& entry, const std::string& scratch,
                                      const std::string& tip, MergeStrategy strategy) {
    remove_scratch(scratch);
    if (auto made = prepare_data_dir(HomeLayout(options_.home).worktrees() + "/queue"); !made)
      return made.error();
    if (auto added = git_.add_detached_worktree(queue_.repo, scratch, tip); !added)
      return added.error();
    // From where the candidate and the tip part: its base, or later when the
    // branch was brought up to date by hand.
    auto base = git_.merge_base(queue_.repo, tip, entry.candidate_revision);
    if (!base) return base.error();
    return git_.combine(scratch, tip, *base, entry.candidate_revision, strategy,
                        "orrery: merge queue entry " + entry.id + " onto " + queue_.target);
  }

  // What a verification's output is scrubbed of (docs/scrubbing.md): what
  // orrery knows in its environment and the secrets of the loop whose
  // workflow run made the worker's change, which its files may hold.
  Result<Scrubber> verification_scrubber(const Worker& worker,
                                         const std::vector<EnvVar>& environment) {
    auto run = store_.get_workflow_run(worker.workflow_run_id);
    if (!run) return run.error();
    if (!run->has_value()) return Scrubber(orrery_known_secrets(environment));
    return workflow_run_scrubber(options_.home, **run, environment);
  }

  VerifyRecord run_verification(const std::string& verify, const std::string& scratch,
                                const MergeEntry& entry, const Worker& worker,
                                const std::string& commit, const std::string& tree) {
    VerifyRecord record;
    record.command = verify;
    record.tree = tree;
    if (verify == kVerifyNone) {
      record.exit_code = 0;
      record.duration_ms = 0;
      return record;
    }
    CommandRequest request;
    request.argv = {"/bin/sh", "-c", verify};
    request.env = git_environment(options_.env);
    request.env.push_back({"ORRERY_QUEUE_ENTRY", entry.id});
    request.env.push_back({"ORRERY_QUEUE_REPO", queue_.repo});
    request.env.push_back({"ORRERY_QUEUE_TARGET", queue_.target});
    request.env.push_back({"ORRERY_CANDIDATE", commit});
    request.cwd = scratch;
    request.timeout_ms = options_.verify_timeout_ms;
    request.max_stdout = 0;
    request.on_tick = [&] { renew(worker); };
    request.tick_ms = lease_ms() / 3;
    auto result = commands_.run(request);
    auto scrubber = verification_scrubber(worker, request.env);
    if (!scrubber) {
      record.output_tail = "(the output is not kept: " + scrubber.error().message + ")";
      scrubber = Scrubber(orrery_known_secrets(request.env));
    }
    if (!result) {
      record.output_tail = scrubber->scrub(result.error().message);
      return record;
    }
    if (!result->timed_out && result->signal == 0) record.exit_code = result->exit_code;
    record.duration_ms = result->duration_ms;
    if (record.output_tail.empty())
      record.output_tail = scrubber->scrub(storable_text(result->tail));
    if (result->timed_out) record.output_tail += "\n(orrery: the verification timed out)";
    return record;
  }

  // How moving the target went, when git did not fail: moved; or refused
  // for a reason that ends the entry (the checkout's state); or neither,
  // the target having moved meanwhile.
  struct Move {
    bool moved = false;
    std::string refusal;
  };

  // Moves the target from `tip` to `commit` (git only; nothing recorded).
  Result<Move> move_target(const MergeEntry& entry, const std::string& tip,
                           const std::string& commit) {
    auto checkout = git_.checkout_of(queue_.repo, queue_.target);
    if (!checkout) return checkout.error();
    if (!checkout->has_value()) {
      auto swapped = git_.swap_branch(queue_.repo, queue_.target, commit, tip);
      if (!swapped) return swapped.error();
      return Move{*swapped, ""};
    }
    const std::string& path = **checkout;
    const std::string retry = "then orrery queue retry " + entry.id;
    if (!std::filesystem::is_directory(path)) {
      return Move{false, queue_.target + " is checked out at " + path + ", which is gone; git -C " +
                             queue_.repo + " worktree prune forgets it, " + retry};
    }
    auto dirty = git_.dirty(path);
    if (!dirty) return dirty.error();
    if (*dirty) {
      return Move{false, "the checkout " + path + " has uncommitted changes on " + queue_.target +
                             "; orrery never overwrites them: commit or stash them, " + retry};
    }
    auto head = git_.commit_of(path, "HEAD");
    if (!head) return head.error();
    if (*head != tip) return Move{};
    auto refused = git_.fast_forward_checkout(path, commit);
    if (!refused) return refused.error();
    if (refused->empty()) return Move{true, ""};
    auto after = git_.commit_of(path, "HEAD");
    if (!after) return after.error();
    if (*after != tip) return Move{};  // a new commit came first
    return Move{false, "the checkout " + path + " refused the fast-forward (" + visible(*refused) +
                           "); orrery never overwrites files there: move them, " + retry};
  }

  // Git failed while the target was being moved: it may have moved all the
  // same (the failure came after), so git is asked; merged if it holds the
  // commit, else rejected with git's reason.
  Status after_git_failure(const MergeEntry& entry, const Worker& worker, const std::string& tip,
                           const std::string& commit, const VerifyRecord& record,
                           const std::string& message) {
    if (target_holds(commit)) {
      return record_merged(entry, worker, tip, commit, record,
                           " (git reported a failure after it moved: " + message + ")");
    }
    MergeChange change =
        refusal(entry, MergeState::kRejected, worker, tip,
                "git failed while moving " + queue_.target + ": " + message + "; " + queue_.target +
                    " is untouched, branch " + worker.branch + " is kept; orrery queue retry " +
                    entry.id + " tries again");
    change.verify = record;
    return apply(change);
  }

  // The entry merged (the target is at or past `commit`): the worker's
  // worktree and branch go, the work being on the target now.
  Status record_merged(const MergeEntry& entry, const Worker& worker, const std::string& tip,
                       const std::string& commit, const VerifyRecord& record,
                       const std::string& note) {
    MergeChange change =
        ending(entry, MergeState::kMerged,
               "merged onto " + queue_.target + " at " + short_commit(commit) + note);
    change.from = MergeState::kReady;
    change.parent_revision = tip;
    change.merge_commit = commit;
    change.verify = record;
    change.worker = worker_change(worker, WorkerState::kMerged, change.reason);
    if (!entry.driver.empty() && entry.driver != options_.driver) change.driver.clear();
    // Before the record, so that a driver that dies between the two leaves
    // the entry ready and the next one finishes it.
    auto removed = remove_finished_worktree(git_, worker);
    if (removed && removed->starts_with("kept: ")) {
      // Its branch stays with it (a worktree on a deleted branch is broken).
      change.reason += "; its worktree " + worker.worktree_path + " is " + *removed;
    } else {
      (void)git_.delete_branch_at(queue_.repo, worker.branch, recorded_tip(worker));
    }
    return apply(change);
  }

  // An entry that ends without a merge (conflict, rejected) after it was
  // put on `tip`: its worker goes on hold with the same reason.
  MergeChange refusal(const MergeEntry& entry, MergeState to, const Worker& worker,
                      const std::string& tip, const std::string& reason) {
    MergeChange change = ending(entry, to, reason);
    change.parent_revision = tip;
    change.worker = worker_change(worker, WorkerState::kHold, reason);
    return change;
  }

  MergeChange ending(const MergeEntry& entry, MergeState to, const std::string& reason) {
    MergeChange change;
    change.entry_id = entry.id;
    change.from = entry.state;
    change.to = to;
    change.driver = options_.driver;
    change.reason = reason;
    return change;
  }

  Status end(const MergeEntry& entry, MergeState from, MergeState to, const std::string& reason,
             std::optional<WorkerChange> worker) {
    MergeChange change = ending(entry, to, reason);
    change.from = from;
    if (worker) {
      worker->reason = reason;
      change.worker = *worker;
    }
    return apply(change);
  }

  // Writes the change; an entry that ends (or goes back to waiting) has its
  // scratch worktree removed first, so that no path leaves one behind.
  Status apply(const MergeChange& change) {
    if (change.to != MergeState::kReady)
      remove_scratch(HomeLayout(options_.home).queue_scratch(change.entry_id));
    auto applied = store_.change_merge_entry(change, now());
    if (!applied) return applied.error();
    return Ok{};
  }

  void remove_scratch(const std::string& scratch) {
    if (!std::filesystem::exists(scratch)) return;
    (void)git_.remove_worktree(queue_.repo, scratch);
    std::error_code ignored;
    std::filesystem::remove_all(scratch, ignored);
  }

  Store& store_;
  QueueKey queue_;
  const MergeDriverOptions& options_;
  CommandRunner& commands_;
  Clock& clock_;
  Git git_;
};

}  // namespace

Result<int> drive_merge_queue(Store& store, const QueueKey& queue,
                              const MergeDriverOptions& options) {
  QueueDriver driver(store, queue, options);
  return driver.drive();
}

}  // namespace orrery
