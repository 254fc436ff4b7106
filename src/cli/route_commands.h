// Route commands (docs/admission.md, docs/cli.md): `orrery route add | ls |
// show | edit | pause | resume | rm`. A route names the workflow version its
// items run (`--workflow W[@N]`, kept until an edit moves it) and the
// limits and retry policy admission keeps.
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"

namespace orrery::cli {

struct RouteArgs {
  std::string route;  // NAME for add; a route for the others
  std::string workflow;
  std::optional<int> max_running;
  std::optional<int> max_per_project;
  std::optional<int> max_per_group;
  std::optional<int> max_attempts;
  std::optional<std::string> retry_delay;
  std::optional<std::string> retry_backoff;
  std::optional<std::string> priority_aging;
  std::optional<std::string> description;
  std::optional<std::string> cwd;                 // add: the current directory unless given
  std::optional<std::string> webhook_secret_env;  // 'none' for none
  bool force = false;                             // rm
};

Result<int> add_route_command(const RouteArgs& args, const Context& context);
Result<int> list_routes_command(const RouteArgs& args, const Context& context);
Result<int> show_route_command(const RouteArgs& args, const Context& context);
Result<int> edit_route_command(const RouteArgs& args, const Context& context);
Result<int> pause_route_command(const RouteArgs& args, const Context& context);
Result<int> resume_route_command(const RouteArgs& args, const Context& context);
Result<int> remove_route_command(const RouteArgs& args, const Context& context);

}  // namespace orrery::cli
