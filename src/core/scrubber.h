// Scrubber: removes secrets from text before anything is stored (docs/scrubbing.md).
//
// What goes: provider tokens (sk-ant-, sk-proj-, sk-, AKIA, gh[pousr]_,
// github_pat_, glpat-, xox?-, hf_, npm_, AIza, Stripe sk_/rk_ live and test
// keys, whsec_), JWTs, the credential of an Authorization: Bearer|Basic
// header, PEM private keys (to their END line, or to the end of the text when
// unterminated), the password of a URL, and key/token/secret/password/
// passphrase/credential assignments whose value looks random (Shannon entropy
// >= 3.2 bits, at least 12 characters, not a path; idempotency_key,
// dedupe_key and route_key are benign), and given literal values (secret
// environment values, 4+ characters) verbatim. Each becomes "[SCRUBBED]".
//
// Invariants: every pattern is linear-time (RE2); scrubbing scrubbed text
// changes nothing more.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orrery {

inline constexpr std::string_view kScrubbed = "[SCRUBBED]";

class Scrubber {
 public:
  explicit Scrubber(std::vector<std::string> literal_secrets = {});

  std::string scrub(std::string_view text) const;

  // Where in `text` something scrub() would replace begins and ends: the
  // places a stream must not be cut.
  std::vector<std::pair<size_t, size_t>> secret_spans(std::string_view text) const;

 private:
  std::vector<std::string> literals_;
};

// Shannon entropy of the bytes of `value`, in bits per byte.
double shannon_entropy(std::string_view value);

}  // namespace orrery
