#include "store/db_location.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text.h"
#include "store/postgres/libpq_library.h"

namespace orrery {
namespace {

constexpr const char* kAccepted =
    "give a file path (a name with a colon as ./NAME), sqlite://PATH, or a "
    "postgresql:// URL";
constexpr const char* kCredentialsHint =
    "libpq cannot read its user name or password; write special characters in them "
    "percent-encoded (%40 for '@', %2F for '/', %26 for '&', %25 for '%'; %00 is not "
    "allowed)";
// Messages show at most this many bytes of a value.
constexpr size_t kShownBytes = 300;
// Longer than any percent-encoded libpq keyword ("password" is 24 bytes encoded).
constexpr size_t kMaxKeywordBytes = 96;
constexpr const char* kMask = "****";

using Ranges = std::vector<std::pair<size_t, size_t>>;  // [begin, end) byte ranges

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "name:" at the start, as a URI scheme begins (RFC 3986: a letter, then
// letters, digits, '+', '-', '.').
std::string scheme_of(const std::string& text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return "";
  for (size_t i = 1; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ':') return text.substr(0, i);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
  }
  return "";
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded as libpq decodes URI parts; anything else kept.
std::string percent_decoded(std::string_view text) {
  std::string decoded;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      decoded += char(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      decoded += text[i];
    }
  }
  return decoded;
}

// Every connection keyword libpq knows (sslmode, password, ...).
// Without the library none: a password is then hidden to the URL's end.
const std::set<std::string>& libpq_keywords() {
  static const std::set<std::string> keywords = [] {
    std::set<std::string> names;
    if (!postgres::libpq_available()) return names;
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse("", &error);
    for (PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
      names.insert(o->keyword);
    }
    PQconninfoFree(options);
    PQfreemem(error);
    return names;
  }();
  return keywords;
}

// The decoded key of the query parameter that begins at `pos`, and the
// offset of its value; none when no '=' follows within a keyword's length.
std::optional<std::pair<std::string, size_t>> parameter_at(const std::string& url, size_t pos) {
  const size_t limit = std::min(url.size(), pos + kMaxKeywordBytes);
  for (size_t i = pos; i < limit; ++i) {
    if (url[i] == '&' || url[i] == '?') return std::nullopt;
    if (url[i] == '=') {
      return std::pair{percent_decoded(std::string_view(url).substr(pos, i - pos)), i + 1};
    }
  }
  return std::nullopt;
}

// Where the password value that begins at `value` ends: at the next '&' that
// begins a parameter libpq knows, else at the end. A password with an
// unencoded '&' is thus hidden whole.
size_t password_end(const std::string& url, size_t value) {
  for (size_t amp = url.find('&', value); amp != std::string::npos; amp = url.find('&', amp + 1)) {
    const auto next = parameter_at(url, amp + 1);
    if (next && libpq_keywords().count(next->first) != 0) return amp;
  }
  return url.size();
}

// The password of `user:password@`: between the first ':' from `start` and the
// last '@' (a password with an unencoded '@' is hidden whole).
void add_userinfo_password(const std::string& url, size_t start, Ranges& ranges) {
  const size_t at = url.rfind('@');
  if (at == std::string::npos || at < start) return;
  const size_t colon = url.find(':', start);
  if (colon < at) ranges.emplace_back(colon + 1, at);
}

// The value of every `password=` parameter (key percent-encoded or not, in
// any case) after a '?' or '&' from `start`.
void add_query_passwords(const std::string& url, size_t start, Ranges& ranges) {
  size_t pos = url.find_first_of("?&", start);
  while (pos != std::string::npos) {
    const auto parameter = parameter_at(url, pos + 1);
    if (parameter && lower(parameter->first) == "password") {
      const size_t end = password_end(url, parameter->second);
      ranges.emplace_back(parameter->second, end);
      pos = url.find_first_of("?&", end);
    } else {
      pos = url.find_first_of("?&", pos + 1);
    }
  }
}

std::string masked(const std::string& url, Ranges ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::string out;
  size_t pos = 0;
  for (const auto& [begin, end] : ranges) {
    if (begin >= pos) {
      out.append(url, pos, begin - pos);
      out += kMask;
    }
    pos = std::max(pos, end);
  }
  out.append(url, pos);
  return out;
}

// Safe for a message: escaped for a terminal, cut at kShownBytes.
std::string cut_for_message(const std::string& text) {
  std::string escaped = terminal_text(text);
  if (escaped.size() <= kShownBytes) return escaped;
  size_t cut = kShownBytes;
  while (cut > 0 && (static_cast<unsigned char>(escaped[cut]) & 0xC0) == 0x80) --cut;
  return escaped.substr(0, cut) + "...";
}

// The value as every message names it.
std::string shown(const std::string& text) {
  return "--db '" + cut_for_message(redacted_db_url(text)) + "'";
}

Result<DbLocation> sqlite_location(const std::string& given, const std::string& path) {
  const std::string what = shown(given);
  if (path.empty()) return usage_error(what + " names no file; " + kAccepted);
  if (path.front() == ':') {
    return usage_error(what + ": special SQLite names such as :memory: are not " +
                       "accepted (the data would be lost at exit); " + kAccepted);
  }
  if (const std::string scheme = scheme_of(path); !scheme.empty()) {
    return usage_error(what + ": " + scheme + ": is not a database orrery can use; " + kAccepted);
  }
  if (path.back() == '/' || path == "." || path == ".." ||
      (path.size() >= 2 && path.compare(path.size() - 2, 2, "/.") == 0) ||
      (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0)) {
    return usage_error(what + " names a directory, not a database file; " + kAccepted);
  }
  DbLocation location;
  location.sqlite_path = path;
  return location;
}

// An '@' other than the one after the password, or a '/' before that one,
// would make libpq read the URL otherwise than it reads (a password cut at
// the '/' becomes a host and a port).
bool ambiguous_at_sign(const std::string& url, size_t authority) {
  const size_t at = url.find('@');
  if (at == std::string::npos) return false;
  return url.find('@', at + 1) != std::string::npos || url.find('/', authority) < at;
}

// libpq's reason for refusing the URL, from the redacted URL so that it
// cannot quote the password; when only the password part is wrong, a hint.
std::string libpq_reason(const std::string& url) {
  const std::string redacted = redacted_db_url(url);
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(redacted.c_str(), &error);
  std::string reason = options == nullptr && error != nullptr ? error : "";
  PQconninfoFree(options);
  PQfreemem(error);
  while (!reason.empty() && (reason.back() == '\n' || reason.back() == '\r')) reason.pop_back();
  return reason.empty() ? kCredentialsHint : cut_for_message(reason);
}

Result<DbLocation> postgres_location(const std::string& url) {
  const std::string what = shown(url);
  if (url.find('\0') != std::string::npos) return usage_error(what + " contains a NUL byte");
  if (ambiguous_at_sign(url, url.find("://") + 3)) {
    return usage_error(what +
                       ": '@' may appear only once, after the user name and password, which "
                       "cannot contain '/'; write '@' as %40 and '/' as %2F inside them, and '@' "
                       "as %40 in the database name and parameters");
  }
  if (Status loaded = postgres::load_libpq(); !loaded) {
    return internal_error("cannot use the PostgreSQL database " + what + ": " +
                          loaded.error().message);
  }
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  const bool accepted = options != nullptr;
  PQconninfoFree(options);
  PQfreemem(error);
  if (!accepted) {
    return usage_error(what + " is not a PostgreSQL URL libpq accepts: " + libpq_reason(url));
  }
  DbLocation location;
  location.kind = DbLocation::Kind::kPostgres;
  location.postgres_url = url;
  return location;
}

}  // namespace

Result<DbLocation> db_location_of(const std::string& text) {
  // libpq reads exactly these two prefixes, in lower case.
  if (starts_with(text, "postgresql://") || starts_with(text, "postgres://")) {
    return postgres_location(text);
  }
  if (const std::string scheme = lower(scheme_of(text));
      scheme == "postgres" || scheme == "postgresql") {
    return usage_error(shown(text) +
                       ": a PostgreSQL URL begins postgresql:// or postgres://, in lower "
                       "case (as libpq reads it)");
  }
  if (starts_with(text, "sqlite://")) return sqlite_location(text, text.substr(9));
  return sqlite_location(text, text);
}

namespace {

// Where the passwords of a URL are (none when it has no scheme).
Ranges password_ranges(const std::string& url) {
  const std::string scheme = scheme_of(url);
  if (scheme.empty()) return {};
  const size_t after_scheme = scheme.size() + 1;
  const bool has_authority = url.compare(after_scheme, 2, "//") == 0;
  Ranges ranges;
  // Without "//" the text is no URL libpq reads: hide after any first ':'.
  add_userinfo_password(url, has_authority ? after_scheme + 2 : 0, ranges);
  add_query_passwords(url, after_scheme, ranges);
  return ranges;
}

}  // namespace

std::string redacted_db_url(const std::string& url) { return masked(url, password_ranges(url)); }

std::vector<std::string> db_url_passwords(const std::string& url) {
  std::vector<std::string> passwords;
  for (const auto& [begin, end] : password_ranges(url)) {
    if (end <= begin) continue;
    const std::string raw = url.substr(begin, end - begin);
    passwords.push_back(raw);
    if (const std::string decoded = percent_decoded(raw); decoded != raw)
      passwords.push_back(decoded);
  }
  return passwords;
}

}  // namespace orrery
