// GoalBook: the goals a store holds and their turns (docs/goals.md,
// docs/storage.md "Goals"). A turn itself is written by the claim ledger, in
// the finish of the work that was the turn (store/claim_ledger.h), so that a
// turn is counted once or not at all; this role creates, reads and changes
// goals.
//
// Invariants every backend keeps: at most one goal that is not final per
// target (a second is a conflict naming the first); every change is applied
// to the goal as read under its row lock and guarded by its version; a goal
// that stops its target (core/goal_edits.h stops_target) pauses the target's
// loop in the same transaction, and one that becomes active again resumes a
// loop it paused; bad input changes nothing.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/goal.h"
#include "core/goal_turn.h"
#include "core/result.h"
#include "store/claim_ledger.h"
#include "store/fence.h"

namespace orrery {

struct GoalFilter {
  std::optional<GoalStatus> status;
  std::string loop_id;  // only the goals of this loop (empty: every goal)
  int limit = 100;
  int offset = 0;
};

// A change to a goal, applied to it as read (core/goal_edits.h).
using GoalEdit = std::function<Result<Goal>(Goal)>;

class GoalBook {
 public:
  virtual ~GoalBook() = default;

  // Stores a new goal (its id, times and version are the store's), after
  // checking its target exists; returns it as stored.
  virtual Result<Goal> create_goal(const Goal& goal, TimeMs now) = 0;
  virtual Result<std::optional<Goal>> get_goal(const std::string& id) = 0;
  // An id or an id prefix of at least 6 characters (ambiguity: a conflict
  // listing the candidates).
  virtual Result<Goal> resolve_goal(const std::string& text) = 0;
  // Newest first.
  virtual Result<std::vector<Goal>> list_goals(const GoalFilter& filter) = 0;
  // The goal's last `limit` turns, oldest first.
  virtual Result<std::vector<GoalTurn>> list_turns(const std::string& goal_id, int limit) = 0;
  // The goals the filter selects (its limit and offset ignored).
  virtual Result<std::int64_t> count_goals(const GoalFilter& filter) = 0;
  // The goal's turns, all of them.
  virtual Result<std::int64_t> count_turns(const std::string& goal_id) = 0;
  // Applies `edit` to the goal as read, in one transaction with what its new
  // status does to its target's loop; returns the goal as stored.
  virtual Result<Goal> change_goal(const std::string& id, const GoalEdit& edit, TimeMs now) = 0;
  // The goal a piece of claimed work is given, when it is to be given one:
  // a loop's run or a step attempt, the target's open goal while it is
  // active (or usage_limited with its cooldown over at `now`); a step
  // without a goal of its own, the goal its workflow run was published
  // under, whatever that goal's status since (the run is its turn);
  // nothing otherwise.
  virtual Result<std::optional<Goal>> goal_of_work(const Claim& claim, TimeMs now) = 0;
  // usage_limited goals whose cooldown ended by `now` become active again;
  // returns how many.
  virtual Result<int> reopen_cooled_goals(TimeMs now, const Fence& fence) = 0;
  // What holds new runs of each workflow, by name, whose goal stops them
  // (core/goal_hold.h): the goal governing a target is its open goal, else
  // the one changed last. One query when no workflow goal is stopped.
  virtual Result<std::map<std::string, std::string>> workflow_goal_holds(TimeMs now) = 0;
};

}  // namespace orrery
