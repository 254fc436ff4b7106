// Item lines: a text of one JSON enqueue object per line — `enqueue
// --from-json`, or what a feed's run printed (docs/admission.md) — read into
// the items of its valid lines and the number and reason of each invalid one.
//
// Invariants: lines are numbered from 1 as a text editor numbers them; a
// blank line (spaces, tabs, a carriage return) is no item and no error; a bad
// line never stops the lines after it; at most kMaxItemLines items are read
// and every line after them is invalid, with the reason.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/work_item.h"

namespace orrery {

inline constexpr int kMaxItemLines = 10'000;

struct ItemLine {
  int line = 0;
  WorkItem item;  // route unset: the caller's to give
};

struct InvalidLine {
  int line = 0;
  std::string error;
  friend bool operator==(const InvalidLine&, const InvalidLine&) = default;
};

struct ItemLines {
  std::vector<ItemLine> items;
  std::vector<InvalidLine> invalid;
};

ItemLines parse_item_lines(std::string_view text);

}  // namespace orrery
