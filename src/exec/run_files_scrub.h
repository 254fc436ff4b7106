// Scrubbing what a run leaves under the home (docs/scrubbing.md, "Files
// under the home"). Its logs are scrubbed as they are written; every other
// file of its directory — the update it wrote to ORRERY_GOAL_UPDATE, its
// ORRERY_OUTPUT, the files it was handed and may have written over,
// anything it dropped there — is scrubbed in place once the attempt has
// ended and orrery has read it, and a workflow run's directory (its shared
// goal update, item and feedback files, its steps' directories) once the
// run has finished.
//
// Invariants: a file the scrubber leaves as it is is not rewritten; a file
// that cannot be scrubbed (larger than kMaxScrubbedFileBytes, unreadable,
// or its rewrite failed, say on a full disk) is removed instead; only
// regular files are read, none is followed through a link; an error names
// the file and why, and is returned only when the file could be neither
// scrubbed nor removed.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"
#include "core/scrubber.h"
#include "exec/env.h"
#include "store/home_layout.h"

namespace orrery {

inline constexpr std::int64_t kMaxScrubbedFileBytes = 16LL << 20;  // 16 MiB

// One file: scrubbed in place, or removed when it cannot be. A file that
// is not there is nothing to do.
Status scrub_file_in_place(Env& env, const std::string& path, const Scrubber& scrubber);

// Every regular file directly in `dir` but its logs (RunDirectory::is_log).
Status scrub_run_files(Env& env, const std::string& dir, const Scrubber& scrubber);

// A finished workflow run's directory and each of its steps' directories.
Status scrub_workflow_run_files(Env& env, const HomeLayout& layout, const std::string& run_id,
                                const Scrubber& scrubber);

}  // namespace orrery
