// Placeholders for the daemon's store methods until they are implemented.
#include "store/sqlite/sqlite_store.h"

namespace orrery {

Status SqliteStore::update_loop_parts(const Loop&, LoopParts, const Fence&, TimeMs) {
  return internal_error("update_loop_parts is not implemented yet");
}
Result<std::vector<LoopPlanResult>> SqliteStore::commit_plans(const std::vector<LoopPlanCommit>&,
                                                              const std::string&, TimeMs,
                                                              const Fence&) {
  return internal_error("commit_plans is not implemented yet");
}
Result<std::vector<Run>> SqliteStore::unsettled_runs(int) {
  return internal_error("unsettled_runs is not implemented yet");
}
Status SqliteStore::settle_run(const std::string&, std::int64_t, const ScheduleState&, TimeMs,
                               const Fence&) {
  return internal_error("settle_run is not implemented yet");
}
Result<std::vector<Run>> SqliteStore::active_runs(int) {
  return internal_error("active_runs is not implemented yet");
}
Status SqliteStore::set_run_next_in(const std::string&, DurationMs, TimeMs) {
  return internal_error("set_run_next_in is not implemented yet");
}
Result<WakeTimes> SqliteStore::wake_times(TimeMs) {
  return internal_error("wake_times is not implemented yet");
}

}  // namespace orrery
