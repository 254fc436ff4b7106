// Editing a loop (`orrery edit`, docs/cli.md): the loop is written back as
// the LoopSpec `add` would take, the options given to `edit` are laid over
// it, and the result is built by build_loop, so an edit is validated exactly
// like `add`, with the same messages.
//
// Rules of the overlay (an empty option is "not given"; `edit` refuses
// empty values before it gets here):
// - only the given options change; the name is not an option (`rename`);
// - a schedule (--cron, --every, --at, --dynamic) replaces the schedule
//   whole (--fixed-delay, --min and --max with it); --tz and --jitter stay
//   unless given; a lone --fixed-delay, --min, --max, --tz or --jitter
//   changes just that part;
// - a target (-- COMMAND, --shell, --agent, --workflow) replaces the target
//   whole, agent options included; --cwd, --env and --secret-env stay unless
//   given; a lone agent option (--model ...) changes just that option;
// - a repeatable option (--env, --secret-env, --machine, --add-dir,
//   --agent-arg) given replaces the whole list;
// - a value that cannot take effect after the edit returns to its default
//   rather than being refused: jitter when the schedule becomes --dynamic,
//   the catch-up limit when it becomes --at or --dynamic, the retry delay and
//   backoff when --max-attempts becomes 1.
//
// Invariants of the result: the loop keeps its id, name, creation time and
// schedule state, except that a new schedule replans the next slot as a new
// loop would (and drops a pending retry) unless the loop is completed or
// expired; a schedule or expiry time that lies in the past and is not given
// is kept as it is, not refused.
#pragma once

#include <vector>

#include "core/loop.h"
#include "core/loop_spec.h"
#include "core/result.h"
#include "core/timezone.h"

namespace orrery {

struct EditedLoop {
  Loop loop;
  bool schedule_changed = false;      // the schedule state must be written too
  bool secrets_changed = false;       // the secrets file must be rewritten
  std::vector<EnvVar> secret_values;  // the loop's secrets after the edit
};

// Whether `given` sets any option at all.
bool edits_anything(const LoopSpec& given);

// The spec that `add` would take to build `loop` (with its secret values):
// non-default values only, durations and times in text that parses back to
// the same values.
LoopSpec spec_of_loop(const Loop& loop, const std::vector<EnvVar>& secrets);

// `base` with the options set in `given` laid over it (rules above).
LoopSpec overlay_spec(LoopSpec base, const LoopSpec& given);

// The loop as `edit` stores it, updated_at = now. `secrets` are the loop's
// current secret values; `local` is the zone for times without a designator.
Result<EditedLoop> edit_loop(const Loop& loop, const std::vector<EnvVar>& secrets,
                             const LoopSpec& given, TimeMs now, const TimeZone& local);

}  // namespace orrery
