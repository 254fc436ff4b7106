// Secret environment values (--secret-env) live outside the database: one
// file per loop, $ORRERY_HOME/secrets/<loop-id>.env (HomeLayout::loop_secrets), mode 0600 in a 0700
// directory, one KEY=VALUE per line. The database keeps only the names.
#pragma once

#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

Status write_loop_secrets(const std::string& home, const std::string& loop_id,
                          const std::vector<EnvVar>& secrets);
// The loop's secret values; none when it has no secrets file. A file that is
// not a regular file, larger than 1 MiB or not KEY=VALUE lines is an error.
Result<std::vector<EnvVar>> read_loop_secrets(const std::string& home, const std::string& loop_id);
Status remove_loop_secrets(const std::string& home, const std::string& loop_id);

}  // namespace orrery
