#include "exec/descriptors.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace orrery {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int descriptor_limit() {
  const long open_max = sysconf(_SC_OPEN_MAX);
  return open_max > 0 && open_max < (1 << 20) ? int(open_max) : 1 << 16;
}

void close_on_exec_from_3(int limit) {
  if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0) return;
  for (int fd = 3; fd < limit; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

void close_from(int first, int limit) {
  if (syscall(SYS_close_range, unsigned(first), ~0u, 0u) == 0) return;
  for (int fd = first; fd < limit; ++fd) ::close(fd);
}

}  // namespace orrery
