// The data directory ($ORRERY_HOME, default ${XDG_DATA_HOME:-~/.local/share}/orrery)
// and the private files in it.
//
// Invariants: the directory is 0700 and the database files 0600 after
// prepare; a directory that cannot be created or written is an error naming
// it, and nothing is created inside it.
#pragma once

#include <string>

#include "core/result.h"

namespace orrery {

// --home, else $ORRERY_HOME, else $XDG_DATA_HOME/orrery, else ~/.local/share/orrery.
std::string default_data_dir();
// Creates the directory (and parents) 0700, or tightens an existing one.
Status prepare_data_dir(const std::string& path);
// Creates the file 0600 when absent and tightens it and its -wal and -shm
// companions when present.
Status make_private_file(const std::string& path);

}  // namespace orrery
