// The text of a document as orrery prints it: indented by two, numbers
// kept exactly (core/exact_json.h). A stored string that is not valid UTF-8
// has each bad byte replaced by U+FFFD, so one bad row never makes a whole
// listing fail.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace orrery {

std::string json_text(const nlohmann::json& document);

}  // namespace orrery
