// The caller's paths (docs/paths.md): what a path the user typed is read
// against — the working directory `orrery` was started in, the home
// directory `~` names ($HOME, else the password database's entry) and the
// home directories `~user` names (the password database).
//
// Invariants: every path argument of every command is resolved with these
// before the command does anything else (cli/app.cc, path options), so no
// command sees a relative path or a leading `~`.
#pragma once

#include <string>

#include "core/result.h"
#include "core/user_path.h"

namespace orrery::cli {

// The working directory is empty when it cannot be read (it was removed).
PathBase caller_paths();

// `given` resolved against the caller's paths; the error names `option`.
Result<std::string> caller_path(const std::string& option, const std::string& given);

}  // namespace orrery::cli
