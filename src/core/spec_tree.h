// Spec text as a JSON tree (docs/workflows.md, "Spec files"): the one shape
// that JSON and YAML spec files are both validated from.
//
// Invariants: nesting deeper than kMaxSpecNesting is refused while parsing,
// before it can exhaust the stack; a key given twice in one object is
// refused; a YAML document becomes the tree of the JSON document that reads
// the same under the YAML 1.2 core schema (plain true/false, null and
// numbers are typed, everything else is text), and aliases, tags other
// than the defaults, and several documents are refused. Syntax errors give
// a 1-based line and column.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/result.h"

namespace orrery {

inline constexpr int kMaxSpecNesting = 64;  // arrays and objects inside each other

Result<nlohmann::json> json_spec_tree(std::string_view text);
Result<nlohmann::json> yaml_spec_tree(std::string_view text);

// The 1-based line and column of the byte at `offset` (0-based) of text.
std::string line_and_column(std::string_view text, size_t offset);

}  // namespace orrery
