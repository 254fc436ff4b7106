#include "core/scrubber.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>

namespace orrery {
namespace {

// Tokens scrubbed whole.
const RE2& token_pattern() {
  static const RE2 pattern(
      R"re(\bsk-ant-[A-Za-z0-9_-]{8,})re"
      R"re(|\bsk-proj-[A-Za-z0-9_-]{8,})re"
      R"re(|\bsk-[A-Za-z0-9_-]{20,})re"
      R"re(|\bAKIA[0-9A-Z]{16}\b)re"
      R"re(|\bgh[pousr]_[A-Za-z0-9]{16,})re"
      R"re(|\bgithub_pat_[A-Za-z0-9_]{16,})re"
      R"re(|\bglpat-[A-Za-z0-9_-]{16,})re"
      R"re(|\bxox[abposr]-[A-Za-z0-9-]{8,})re"
      R"re(|\bhf_[A-Za-z0-9]{16,})re"
      R"re(|\bnpm_[A-Za-z0-9]{20,})re"
      R"re(|\bAIza[0-9A-Za-z_-]{30,})re"
      R"re(|\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,})re"
      R"re(|\bwhsec_[A-Za-z0-9]{16,})re"
      R"re(|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{10,})re");
  return pattern;
}

// Group 1 is kept: the header name and scheme.
const RE2& authorization_pattern() {
  static const RE2 pattern(
      R"re((?i)(authorization(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,})re");
  return pattern;
}

const RE2& pem_pattern() {
  static const RE2 pattern(
      R"re(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z))re");
  return pattern;
}

// Groups 1 and 2 are kept: scheme://user: and @.
const RE2& url_password_pattern() {
  static const RE2 pattern(R"re(([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+(@))re");
  return pattern;
}

// 1: the key and separator; 2-5: the value, escaped-quoted, double-quoted,
// single-quoted or bare.
const RE2& assignment_pattern() {
  static const RE2 pattern(
      R"re((?i)([A-Za-z0-9_.-]{0,64}(?:key|token|secret|passwd|password|passphrase|credentials?)(?:\\?["'])?[ \t]*[:=][ \t]*))re"
      R"re((?:\\"([^"\\\r\n]{12,})\\"|"((?:[^"\\\r\n]|\\[^\r\n]){12,})"|'([^'\\\r\n]{12,})'|([A-Za-z0-9+/_.=-]{12,})))re");
  return pattern;
}

const RE2& benign_key_pattern() {
  static const RE2 pattern(R"re((?i)(?:^|[._-])(?:idempotency|dedupe|route)[_-]?key$)re");
  return pattern;
}

bool mentions_assignment(std::string_view text) {
  static constexpr std::array<std::string_view, 5> kHints = {"key", "token", "secret", "pass",
                                                             "credential"};
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return std::any_of(kHints.begin(), kHints.end(), [&](std::string_view hint) {
    return lowered.find(hint) != std::string::npos;
  });
}

bool looks_like_secret(std::string_view value) {
  if (value.size() < 12) return false;
  if (value.find(kScrubbed) != std::string_view::npos) return false;
  if (value.front() == '/' || value.front() == '~' || value.substr(0, 2) == "./") return false;
  return shannon_entropy(value) >= 3.2;
}

// The key name at the start of an assignment's prefix.
std::string_view key_name(std::string_view prefix) {
  size_t end = 0;
  while (end < prefix.size() && (std::isalnum(static_cast<unsigned char>(prefix[end])) ||
                                 prefix[end] == '_' || prefix[end] == '.' || prefix[end] == '-')) {
    ++end;
  }
  return prefix.substr(0, end);
}

void replace_literal(std::string& text, std::string_view secret) {
  for (size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + kScrubbed.size())) {
    text.replace(at, secret.size(), kScrubbed);
  }
}

// Rewrites every assignment whose value looks random, keeping its key and quotes.
std::string scrub_assignments(const std::string& text) {
  const RE2& pattern = assignment_pattern();
  std::string out;
  re2::StringPiece input(text);
  std::array<re2::StringPiece, 6> groups;
  size_t position = 0;
  while (position < text.size() &&
         pattern.Match(input, position, text.size(), RE2::UNANCHORED, groups.data(), 6)) {
    const size_t start = size_t(groups[0].data() - text.data());
    const size_t end = start + groups[0].size();
    out.append(text, position, start - position);
    const std::string_view prefix(groups[1].data(), groups[1].size());
    size_t value_group = 2;
    while (value_group < 6 && groups[value_group].data() == nullptr) ++value_group;
    const std::string_view value(groups[value_group].data(), groups[value_group].size());
    if (RE2::PartialMatch(std::string(key_name(prefix)), benign_key_pattern()) ||
        !looks_like_secret(value)) {
      out.append(text, start, end - start);
    } else {
      const size_t value_start = size_t(value.data() - text.data());
      out.append(text, start, value_start - start);  // key, separator, opening quote
      out.append(kScrubbed);
      out.append(text, value_start + value.size(), end - value_start - value.size());
    }
    position = end;  // matches are never empty: a value has 12+ characters
  }
  if (position < text.size()) out.append(text, position, std::string::npos);
  return out;
}

}  // namespace

double shannon_entropy(std::string_view value) {
  if (value.empty()) return 0;
  std::array<int, 256> counts{};
  for (unsigned char c : value) ++counts[c];
  double entropy = 0;
  for (int count : counts) {
    if (count == 0) continue;
    const double p = double(count) / double(value.size());
    entropy -= p * std::log2(p);
  }
  return entropy;
}

Scrubber::Scrubber(std::vector<std::string> literal_secrets) {
  for (std::string& secret : literal_secrets) {
    if (secret.size() >= 4) literals_.push_back(std::move(secret));
  }
  // Longest first, so that a secret containing another is replaced whole.
  std::sort(literals_.begin(), literals_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string Scrubber::scrub(std::string_view input) const {
  std::string text(input);
  for (const std::string& secret : literals_) replace_literal(text, secret);
  RE2::GlobalReplace(&text, token_pattern(), kScrubbed);
  RE2::GlobalReplace(&text, authorization_pattern(), std::string("\\1") + std::string(kScrubbed));
  RE2::GlobalReplace(&text, pem_pattern(), kScrubbed);
  RE2::GlobalReplace(&text, url_password_pattern(),
                     std::string("\\1") + std::string(kScrubbed) + "\\2");
  if (!mentions_assignment(text)) return text;
  return scrub_assignments(text);
}

std::vector<std::pair<size_t, size_t>> Scrubber::secret_spans(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> spans;
  for (const std::string& secret : literals_) {
    for (size_t at = text.find(secret); at != std::string_view::npos;
         at = text.find(secret, at + 1)) {
      spans.emplace_back(at, at + secret.size());
    }
  }
  const re2::StringPiece input(text.data(), text.size());
  for (const RE2* pattern : {&token_pattern(), &authorization_pattern(), &pem_pattern(),
                             &url_password_pattern(), &assignment_pattern()}) {
    re2::StringPiece match;
    size_t position = 0;
    while (position < text.size() &&
           pattern->Match(input, position, text.size(), RE2::UNANCHORED, &match, 1)) {
      const size_t start = size_t(match.data() - text.data());
      spans.emplace_back(start, start + match.size());
      position = start + std::max<size_t>(match.size(), 1);
    }
  }
  return spans;
}

}  // namespace orrery
