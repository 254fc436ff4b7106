#include "core/run_environment.h"

#include <algorithm>

namespace orrery {
namespace {

void set(std::vector<EnvVar>& env, const std::string& key, const std::string& value) {
  auto found =
      std::find_if(env.begin(), env.end(), [&](const EnvVar& e) { return e.first == key; });
  if (found != env.end()) {
    found->second = value;
  } else {
    env.emplace_back(key, value);
  }
}

}  // namespace

std::vector<EnvVar> run_environment(const std::vector<EnvVar>& inherited, const Loop& loop,
                                    const Run& run, const std::string& home,
                                    const std::vector<EnvVar>& secrets) {
  std::vector<EnvVar> env = inherited;
  set(env, "ORRERY_RUN_ID", run.id);
  set(env, "ORRERY_LOOP_ID", loop.id);
  set(env, "ORRERY_LOOP_NAME", loop.name);
  set(env, "ORRERY_SCHEDULED_FOR", format_time(run.scheduled_for));
  set(env, "ORRERY_ATTEMPT", std::to_string(run.attempt));
  set(env, "ORRERY_HOME", home);
  for (const auto& [key, value] : loop.target.env) set(env, key, value);
  for (const auto& [key, value] : secrets) set(env, key, value);
  return env;
}

}  // namespace orrery
