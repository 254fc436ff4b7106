// Reading a small file orrery depends on at run time (an agent's prompt file,
// a loop's secrets file) safely: opened without blocking, so a FIFO or a
// device cannot hang the reader; only a regular file is read; at most a given
// number of bytes, so /dev/zero behind a symlink or a huge file cannot exhaust
// memory.
//
// Invariant: an error names the path and says why in the system's words
// ("No such file or directory", "Permission denied") or orrery's ("is a
// directory", "is not a regular file", "is larger than 1MiB").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"

namespace orrery {

// The file's bytes; nothing when the file does not exist (the caller decides
// whether that is an error).
Result<std::optional<std::string>> read_regular_file(const std::string& path,
                                                     std::int64_t max_bytes);

}  // namespace orrery
