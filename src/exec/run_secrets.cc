#include "exec/run_secrets.h"

#include <utility>

#include "store/db_location.h"
#include "store/secrets.h"

namespace orrery {

std::vector<std::string> orrery_known_secrets(const std::vector<EnvVar>& environment) {
  std::vector<std::string> secrets;
  for (const auto& [name, value] : environment) {
    if (name == "ORRERY_DB") {
      for (std::string& password : db_url_passwords(value)) secrets.push_back(std::move(password));
    } else if (name == "PGPASSWORD" && !value.empty()) {
      secrets.push_back(value);
    }
  }
  return secrets;
}

Result<std::vector<EnvVar>> loop_secrets_of(const std::string& home, const WorkflowRun& run) {
  if (run.loop_id.empty()) return std::vector<EnvVar>{};
  return read_loop_secrets(home, run.loop_id);
}

Result<Scrubber> loop_scrubber(const std::string& home, const std::string& loop_id,
                               const std::vector<EnvVar>& environment) {
  std::vector<std::string> values = orrery_known_secrets(environment);
  if (!loop_id.empty()) {
    auto secrets = read_loop_secrets(home, loop_id);
    if (!secrets) return secrets.error();
    for (auto& pair : *secrets) values.push_back(std::move(pair.second));
  }
  return Scrubber(std::move(values));
}

Result<Scrubber> workflow_run_scrubber(const std::string& home, const WorkflowRun& run,
                                       const std::vector<EnvVar>& environment) {
  return loop_scrubber(home, run.loop_id, environment);
}

}  // namespace orrery
