// StoreNotices: notices of other processes' writes (docs/daemon.md,
// "Runners"). On a database server, a descriptor that becomes readable
// when a run is left pending, a cancel is requested or a loop is changed,
// and the call that reads those notices (true: some came). A backend
// without notices (a SQLite file: its daemon is woken through its data
// directory) gives -1.
#pragma once

#include "core/result.h"

namespace orrery {

class StoreNotices {
 public:
  virtual ~StoreNotices() = default;

  virtual Result<int> listen_for_notices() { return -1; }
  virtual Result<bool> take_notices() { return false; }
};

}  // namespace orrery
