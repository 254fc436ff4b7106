// The Store conformance suite, handles (store/id_handles.h, docs/cli.md
// "Ids"): the shortest prefix, at least 8 characters, that no other row of
// the table starts with — whichever rows a listing shows — so that every
// handle resolves back to its row. Every backend must pass it.
#include <random>
#include <set>

#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using IdHandlesStore = StoreConformance;

// A loop whose id is `id`.
Loop loop_with_id(Loop loop, const std::string& id) {
  loop.id = id;
  return loop;
}

bool ok(const Status& status) {
  EXPECT_TRUE(status.ok()) << (status ? "" : status.error().message);
  return status.ok();
}

TEST_P(IdHandlesStore, EveryTableAnswersAndAnIdAloneNeedsEightCharacters) {
  const std::string id = "0123456789abcdef0123456789abcdef";
  for (const IdTable table : kAllIdTables) {
    EXPECT_EQ(ok_value(store_->handle_length(table, {id})), kMinHandleLength)
        << static_cast<int>(table);
    EXPECT_EQ(ok_value(store_->handle_length(table, {})), kMinHandleLength);
  }
}

// A handle outgrows the prefix it shares with its neighbours on both sides,
// including rows the listing does not show, up to the whole id.
TEST_P(IdHandlesStore, AHandleOutgrowsThePrefixItSharesWithAnyOtherRow) {
  const std::string base = "0123456789abcdef0123456789abcdef";
  for (const size_t shared : {0u, 7u, 8u, 12u, 20u, 31u}) {
    SCOPED_TRACE(shared);
    std::string other = base;
    other[shared] = other[shared] == 'f' ? 'e' : char(other[shared] + 1);
    const std::string shown = base.substr(0, shared) + std::string(32 - shared, '0');
    const std::string neighbour = other.substr(0, shared + 1) + std::string(31 - shared, '0');
    ok(store_->create_loop(loop_with_id(make_loop("a" + std::to_string(shared)), shown)));
    ok(store_->create_loop(loop_with_id(make_loop("b" + std::to_string(shared)), neighbour)));
    // Only `shown` is listed; `neighbour` still counts.
    const size_t length = ok_value(store_->handle_length(IdTable::kLoops, {shown}));
    EXPECT_EQ(length, std::max(kMinHandleLength, shared + 1));
    EXPECT_EQ(ok_value(store_->resolve_loop(shown.substr(0, length))).id, shown);
    ok_value(store_->delete_loop(shown));
    ok_value(store_->delete_loop(neighbour));
  }
}

// Loops made in one millisecond share their first 12 characters: one length
// for all of them, the shortest at which every handle resolves back to its
// own loop.
TEST_P(IdHandlesStore, RowsMadeInOneMillisecondGetTheShortestHandlesThatResolveBack) {
  std::mt19937 random(11);
  std::vector<std::string> ids;
  for (int i = 0; i < 60; ++i) {
    std::array<std::uint8_t, 10> bytes{};
    for (auto& byte : bytes) byte = std::uint8_t(random() % 3);  // near neighbours
    Loop loop = make_loop("same-ms-" + std::to_string(i));
    loop.id = make_id(kNow, bytes);
    if (!ok(store_->create_loop(loop))) continue;
    ids.push_back(loop.id);
  }
  ASSERT_GE(ids.size(), 40u);
  const size_t length = ok_value(store_->handle_length(IdTable::kLoops, ids));
  ASSERT_GT(length, 12u);
  std::set<std::string> shorter;
  for (const std::string& id : ids) {
    EXPECT_EQ(ok_value(store_->resolve_loop(id.substr(0, length))).id, id);
    shorter.insert(id.substr(0, length - 1));
  }
  EXPECT_LT(shorter.size(), ids.size()) << "a shorter handle would have told them apart";
}

INSTANTIATE_TEST_SUITE_P(Backends, IdHandlesStore, backends(), backend_name);

}  // namespace
}  // namespace orrery
