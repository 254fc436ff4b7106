// The fields of spec files (docs/workflows.md, "Spec files"): reading typed
// values out of a validated JSON tree (core/spec_tree.h) with errors that name
// the field, the offending value and what is accepted.
//
// Invariants: absent and null are "not given"; a key that is not accepted
// is refused, never ignored, with the closest accepted key when it is a
// likely typo; text is valid UTF-8 without NUL.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/user_path.h"

namespace orrery {

// What a value is, for "expected …, got …" messages.
std::string described(const nlohmann::json& value);
// "field: expected WHAT, got VALUE" (with a hint to quote a YAML number
// where text is expected).
Error wrong_type(const std::string& where, const std::string& expected,
                 const nlohmann::json& value);
// The value of `key`, or nullptr when absent or null.
const nlohmann::json* field(const nlohmann::json& object, const char* key);
// Every key of the object is one of `accepted`.
Status check_keys(const nlohmann::json& object, std::initializer_list<const char*> accepted,
                  const std::string& where);
// Text: valid UTF-8 without NUL.
Result<std::string> text_value(const nlohmann::json& value, const std::string& where);
// An optional text field: "" when absent or null.
Result<std::string> text_field(const nlohmann::json& object, const char* key,
                               const std::string& where);
// An optional list of text: empty when absent or null.
Result<std::vector<std::string>> text_list(const nlohmann::json& object, const char* key,
                                           const std::string& where);
// At most `maximum` code points.
Status check_length(const std::string& text, size_t maximum, const std::string& where);
// A path made absolute as core/user_path.h reads it ("" stays "").
Status absolutize(std::string& path, const PathBase& paths, const std::string& where);

}  // namespace orrery
