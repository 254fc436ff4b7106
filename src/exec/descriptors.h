// Descriptor helpers shared by the code that forks (spawn, supervisor
// start). The two functions meant for a forked child are async-signal-safe
// and allocate nothing.
#pragma once

namespace orrery {

// Closes fd when it is open and marks it closed (-1).
void close_fd(int& fd);

// The highest descriptor number to walk when close_range is missing; read
// before fork.
int descriptor_limit();

// In a forked child: every descriptor from 3 up is closed at exec
// (close_range, or fcntl on each up to `limit` when the kernel lacks it).
void close_on_exec_from_3(int limit);

// In a forked child that does not exec: closes every descriptor from
// `first` up (close_range, or close on each up to `limit`).
void close_from(int first, int limit);

}  // namespace orrery
