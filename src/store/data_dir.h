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
// Creates the directory (and parents) 0700, or tightens an existing one
// (never loosens it: a read-only directory stays read-only and is refused).
Status prepare_data_dir(const std::string& path);
// Creates the file 0600 when absent; an existing file is left as it is.
Status create_private_file(const std::string& path);
// Makes the file and its -wal and -shm companions 0600.
Status make_files_private(const std::string& path);

}  // namespace orrery
