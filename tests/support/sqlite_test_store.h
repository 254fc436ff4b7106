// A real SQLite store in a temporary directory of its own, for tests of
// what runs over a store (engine, ops) without the binary: opened at `now`
// with a FakeProbe the test may start and stop processes on; removed with
// its directory when the test ends.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery::testing {

class SqliteTestStore {
 public:
  explicit SqliteTestStore(TimeMs now) : probe_(std::make_shared<FakeProbe>()) {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, now});
    if (!opened) ADD_FAILURE() << "opening the test store: " << opened.error().message;
    if (opened) store_ = std::move(*opened);
  }

  SqliteStore& operator*() { return *store_; }
  SqliteStore* operator->() { return store_.get(); }
  FakeProbe& probe() { return *probe_; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::shared_ptr<FakeProbe> probe_;
  std::unique_ptr<SqliteStore> store_;
};

}  // namespace orrery::testing
