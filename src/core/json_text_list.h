// A list of texts as a JSON array of strings: how stored lists of file names
// and globs are kept (docs/storage.md). Reading is strict: anything but an
// array of strings is an error, never a partial list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace orrery {

std::string text_list_json(const std::vector<std::string>& texts);
Result<std::vector<std::string>> text_list_from_json(std::string_view text);

}  // namespace orrery
