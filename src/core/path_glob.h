// Path globs for a step's allowed_files (docs/workers.md, "Allowed files"):
// whether a path a step changed, relative to the repository's top, is one
// the step may change.
//
// The rules: paths and globs use '/'; `*` matches any characters but '/',
// `?` one character but '/', a `**` that is a whole part matches any number
// of parts (none included); a glob ending in '/' matches everything under
// that directory; every other character matches itself. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace orrery {

inline constexpr std::size_t kMaxGlobBytes = 1024;
inline constexpr std::size_t kMaxAllowedGlobs = 256;

bool path_matches_glob(std::string_view glob, std::string_view path);
// The files of `changed` that no glob of `allowed` matches, in order.
std::vector<std::string> files_outside(const std::vector<std::string>& allowed,
                                       const std::vector<std::string>& changed);
// A glob as given: relative (no leading '/'), no ".." part, valid UTF-8
// without control characters, 1 to kMaxGlobBytes bytes.
Status check_glob(std::string_view glob, const std::string& where);

}  // namespace orrery
