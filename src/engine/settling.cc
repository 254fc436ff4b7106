#include "engine/settling.h"

#include <random>
#include <set>
#include <vector>

#include "core/duration.h"
#include "core/run_settlement.h"
#include "engine/daemon_lease.h"

namespace orrery {
namespace {

std::uint64_t next_random() {
  static std::mt19937_64 generator{std::random_device{}()};
  return generator();
}

// The loop's state after the run, or its state as it is when its schedule
// or the settlement cannot be computed (logged: the loop is left alone).
ScheduleState settled_state(const Loop& loop, const Run& run, const CooldownMap& cooldowns,
                            TimeMs now, const EventSink& log) {
  auto series = SlotSeries::compile(loop.schedule, loop.id);
  if (!series) {
    log("loop " + loop.name + ": its schedule cannot be read (" + series.error().message +
        "); run " + run.id + " settled without changing it");
    return schedule_state(loop);
  }
  SettleInput input;
  input.now = now;
  input.cooldown_until = cooldown_of(cooldowns, loop);
  input.random = next_random();
  auto state = settle_finished_run(loop, *series, run, input);
  if (!state) {
    log("loop " + loop.name + ": run " + run.id + " settled without changing it (" +
        state.error().message + ")");
    return schedule_state(loop);
  }
  return *state;
}

// What the settlement did to the loop, for the log.
std::string consequence(const Loop& loop, const Run& run, const ScheduleState& after) {
  if (after.retry_scheduled_for && *after.retry_scheduled_for == run.scheduled_for &&
      after.next_run_at && loop.retry_scheduled_for != after.retry_scheduled_for) {
    return "; retry at " + format_time(*after.next_run_at);
  }
  if (after.status == LoopStatus::kCompleted && loop.status != LoopStatus::kCompleted) {
    return "; loop completed";
  }
  if (!loop.next_run_at && after.next_run_at)
    return "; next slot " + format_time(*after.next_run_at);
  return "";
}

// Takes from `waiting` the first run of each loop, in order; the runs left
// are later runs of those loops.
std::vector<Run> next_batch(std::vector<Run>& waiting) {
  std::vector<Run> batch, later;
  std::set<std::string> loops;
  for (Run& run : waiting) {
    (loops.insert(run.loop_id).second ? batch : later).push_back(std::move(run));
  }
  waiting = std::move(later);
  return batch;
}

}  // namespace

std::string finished_line(const Run& run) {
  std::string line = "run " + run.id + " of loop " + run.loop_name + " " +
                     run_status_name(run.status) + " (slot " + format_time(run.scheduled_for) +
                     ", attempt " + std::to_string(run.attempt);
  if (run.duration_ms) line += ", " + format_duration(*run.duration_ms);
  if (run.exit_code && *run.exit_code != 0) line += ", exit " + std::to_string(*run.exit_code);
  line += ")";
  if (!run.error.empty() && run.error.rfind("exit status", 0) != 0) line += ": " + run.error;
  return line;
}

Result<SettleResult> settle_runs(Store& store, const CooldownMap& cooldowns, TimeMs now,
                                 const Fence& fence, const EventSink& log) {
  auto runs = store.unsettled_runs(kSettleBatch);
  if (!runs) return runs.error();
  SettleResult result;
  result.more = int(runs->size()) >= kSettleBatch;
  std::vector<Run> waiting = std::move(*runs);
  while (!waiting.empty()) {
    auto batch = next_batch(waiting);
    std::vector<Settlement> settlements;
    std::vector<std::string> effects;
    for (const Run& run : batch) {
      auto loop = store.get_loop(run.loop_id);
      if (!loop) return loop.error();
      Settlement settlement{run.id, 0, {}};
      std::string effect;
      if (loop->has_value()) {
        settlement.state_version = (*loop)->state_version;
        settlement.state = settled_state(**loop, run, cooldowns, now, log);
        effect = consequence(**loop, run, settlement.state);
      }
      settlements.push_back(std::move(settlement));
      effects.push_back(std::move(effect));
    }
    auto outcomes = store.settle_runs(settlements, now, fence);
    if (!outcomes) return outcomes.error();
    for (size_t i = 0; i < batch.size(); ++i) {
      const Status& settled = (*outcomes)[i];
      if (!settled) {
        if (settled.error().code == ErrorCode::kNotFound) continue;  // deleted meanwhile (rm)
        if (settled.error().code != ErrorCode::kConflict) return settled.error();
        result.retry_soon = true;  // the loop moved meanwhile: next tick
        continue;
      }
      log(finished_line(batch[i]) + effects[i]);
    }
  }
  return result;
}

}  // namespace orrery
