// The data directory ($ORRERY_HOME, default ${XDG_DATA_HOME:-~/.local/share}/orrery)
// and the private files in it.
//
// Invariants: orrery changes the mode only of the directories it creates
// (0700, whatever the umask) and of its own files (0600); an existing
// directory — the home, the directory of a --db file, the current
// directory — keeps its mode, since it is the user's (docs/storage.md). A
// directory that cannot be created or written is an error naming it, and
// nothing is created inside it.
#pragma once

#include <string>

#include "core/result.h"

namespace orrery {

// --home, else $ORRERY_HOME, else $XDG_DATA_HOME/orrery, else ~/.local/share/orrery.
std::string default_data_dir();
// Creates the directory and its missing parents, each 0700; an existing one
// is left as it is and must be writable by its owner (a read-only directory
// is refused). Used for the home, the directory of a --db file, and run and
// secret directories.
Status prepare_data_dir(const std::string& path);

// Whether `path` (a file or directory) exists and cannot be written by this
// process, its owner's write permission counted too (so a directory made
// read-only is read-only to root as well); as prepare_data_dir judges it.
bool exists_read_only(const std::string& path);

// The directory holding `path` ("." for a bare name, "/" for a file in /).
std::string directory_of(const std::string& path);
// Creates the file 0600 when absent; an existing file is left as it is, and
// anything but a regular file (a device, a FIFO) is refused. An existing file
// is looked at, never opened: closing a descriptor of a file drops every
// POSIX lock this process holds on it, so opening the database a second time
// would strip a connection already open of its SQLite locks, and another
// process could then delete the write-ahead log under it (docs/storage.md,
// "One file, several connections").
Status create_private_file(const std::string& path);
// Makes the file and its -wal and -shm companions 0600.
Status make_files_private(const std::string& path);

}  // namespace orrery
