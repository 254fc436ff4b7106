#include "core/path_glob.h"

#include "core/text.h"

namespace orrery {
namespace {

std::vector<std::string_view> parts_of(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

// One part against one glob part: `*` any run of characters, `?` any one.
// Two pointers that go back to the last `*`: linear in practice, at worst
// the product of the lengths.
bool part_matches(std::string_view glob, std::string_view part) {
  size_t g = 0, p = 0;
  size_t star = std::string_view::npos, resume = 0;
  while (p < part.size()) {
    if (g < glob.size() && (glob[g] == '?' || glob[g] == part[p])) {
      ++g;
      ++p;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      resume = p;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      p = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

// The same walk one level up: `**` matches any run of parts.
bool parts_match(const std::vector<std::string_view>& glob,
                 const std::vector<std::string_view>& path) {
  size_t g = 0, p = 0;
  size_t star = std::string_view::npos, resume = 0;
  while (p < path.size()) {
    if (g < glob.size() && glob[g] != "**" && part_matches(glob[g], path[p])) {
      ++g;
      ++p;
    } else if (g < glob.size() && glob[g] == "**") {
      star = g++;
      resume = p;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      p = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == "**") ++g;
  return g == glob.size();
}

}  // namespace

bool path_matches_glob(std::string_view glob, std::string_view path) {
  if (glob.empty() || path.empty()) return false;
  std::vector<std::string_view> glob_parts = parts_of(glob);
  if (glob.back() == '/') glob_parts.back() = "**";
  return parts_match(glob_parts, parts_of(path));
}

std::vector<std::string> files_outside(const std::vector<std::string>& allowed,
                                       const std::vector<std::string>& changed) {
  std::vector<std::string> outside;
  for (const std::string& file : changed) {
    bool matched = false;
    for (const std::string& glob : allowed) {
      if (path_matches_glob(glob, file)) {
        matched = true;
        break;
      }
    }
    if (!matched) outside.push_back(file);
  }
  return outside;
}

Status check_glob(std::string_view glob, const std::string& where) {
  if (glob.empty()) return usage_error(where + ": a glob is empty");
  if (glob.size() > kMaxGlobBytes) {
    return usage_error(where + ": " + std::to_string(glob.size()) + " bytes; at most " +
                       std::to_string(kMaxGlobBytes) + " are allowed");
  }
  if (auto valid = check_utf8(glob, where); !valid) return valid;
  for (unsigned char c : glob) {
    if (c < 0x20 || c == 0x7f)
      return usage_error(where + " '" + visible(glob) + "' contains a control character");
  }
  if (glob.front() == '/') {
    return usage_error(where + " '" + visible(glob) +
                       "' starts with '/'; globs are relative to the repository's top (src/**)");
  }
  for (std::string_view part : parts_of(glob)) {
    if (part == "..") {
      return usage_error(where + " '" + visible(glob) +
                         "' has a '..' part; globs match paths inside the repository");
    }
  }
  return Ok{};
}

}  // namespace orrery
