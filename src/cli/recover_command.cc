#include "cli/recover_command.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/store_access.h"
#include "core/exact_json.h"
#include "core/exit_codes.h"
#include "exec/process_identity.h"
#include "exec/recovery.h"
#include "views/run_view.h"

namespace orrery::cli {
namespace {

nlohmann::json runs_json(const std::vector<Run>& runs) {
  nlohmann::json array = nlohmann::json::array();
  for (const Run& run : runs) array.push_back(run_json(run, false));
  return array;
}

nlohmann::json problems_json(const std::vector<RecoveryProblem>& problems) {
  nlohmann::json array = nlohmann::json::array();
  for (const RecoveryProblem& problem : problems) {
    array.push_back({{"run_id", problem.run_id}, {"error", problem.message}});
  }
  return array;
}

std::string outcome_of(const Run& run) {
  std::string text = run_status_name(run.status);
  if (!run.error.empty()) text += ": " + run.error;
  return text;
}

void print_report(std::ostream& out, const RecoveryReport& report) {
  for (const Run& run : report.recorded) {
    out << "recorded the kept outcome of run " << run.id << " (" << run.loop_name
        << "): " << outcome_of(run) << '\n';
  }
  for (const Run& run : report.abandoned) {
    out << "abandoned run " << run.id << " (" << run.loop_name << "): " << run.error << '\n';
  }
  for (const Run& run : report.deferred) {
    out << "left run " << run.id << " (" << run.loop_name
        << ") running: its supervisor is alive; its lease was extended\n";
  }
  for (int group : report.killed_groups) out << "killed process group " << group << '\n';
  for (const RecoveryProblem& problem : report.problems) {
    out << "could not recover run " << problem.run_id << ": " << problem.message << '\n';
  }
  if (report.recorded.empty() && report.abandoned.empty() && report.deferred.empty() &&
      report.killed_groups.empty() && report.problems.empty()) {
    out << "nothing to recover\n";
  }
}

}  // namespace

Result<int> recover_command(const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  const SystemProcessProbe probe;
  auto report =
      recover_runs(*opened->store, probe, opened->home, context.now, RecoveryOptions{}, {});
  if (!report) return report.error();
  if (context.globals.json) {
    *context.out << write_json(nlohmann::json{{"recorded", runs_json(report->recorded)},
                                              {"abandoned", runs_json(report->abandoned)},
                                              {"deferred", runs_json(report->deferred)},
                                              {"killed_process_groups", report->killed_groups},
                                              {"problems", problems_json(report->problems)}},
                               2)
                 << '\n';
  } else {
    print_report(*context.out, *report);
  }
  // The others were recovered; the ones left say so (docs/cli.md, "recover").
  return report->problems.empty() ? kExitOk : kExitWorkFailed;
}

}  // namespace orrery::cli
