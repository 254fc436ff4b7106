#include "core/stream_scrubber.h"

#include <re2/re2.h>

namespace orrery {
namespace {

const RE2& key_begin() {
  static const RE2 pattern(R"re(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)re");
  return pattern;
}

const RE2& key_end() {
  static const RE2 pattern(R"re(-----END [A-Z0-9 ]*PRIVATE KEY-----)re");
  return pattern;
}

// Where the last BEGIN marker of `text` starts and ends, when no END follows it.
bool unterminated_key(std::string_view text, size_t* begin, size_t* after) {
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece match;
  bool found = false;
  size_t position = 0;
  while (key_begin().Match(input, position, text.size(), RE2::UNANCHORED, &match, 1)) {
    *begin = size_t(match.data() - text.data());
    *after = *begin + match.size();
    position = *after;
    found = true;
  }
  if (!found) return false;
  return !key_end().Match(input, *after, text.size(), RE2::UNANCHORED, nullptr, 0);
}

}  // namespace

std::string StreamScrubber::feed(std::string_view chunk) {
  pending_.append(chunk);
  return drain(false);
}

std::string StreamScrubber::finish() { return drain(true); }

// Drops pending text up to and including an END line; false while it has not come.
bool StreamScrubber::skip_private_key(bool final) {
  re2::StringPiece input(pending_);
  re2::StringPiece match;
  if (key_end().Match(input, 0, pending_.size(), RE2::UNANCHORED, &match, 1)) {
    pending_.erase(0, size_t(match.data() - pending_.data()) + match.size());
    in_private_key_ = false;
    return true;
  }
  // Keep only what could be the start of a split END marker.
  constexpr size_t kMarkerTail = 64;
  if (final || pending_.size() <= kMarkerTail) {
    if (final) pending_.clear();
    return false;
  }
  pending_.erase(0, pending_.size() - kMarkerTail);
  return false;
}

size_t StreamScrubber::safe_cut() const {
  const size_t newline = pending_.rfind('\n');
  if (newline != std::string::npos) return newline + 1;
  if (pending_.size() <= kMaxCarry) return 0;
  // A long line: cut before the last kCarryTail bytes, but never inside
  // something the scrubber would replace (it would be scrubbed in neither piece).
  size_t cut = pending_.size() - kCarryTail;
  const auto spans = scrubber_.secret_spans(pending_);
  for (bool moved = true; moved && cut > 0;) {
    moved = false;
    for (const auto& [begin, end] : spans) {
      if (begin < cut && cut < end) {
        cut = begin;
        moved = true;
      }
    }
  }
  return cut;
}

std::string StreamScrubber::drain(bool final) {
  std::string out;
  while (true) {
    if (in_private_key_ && !skip_private_key(final)) return out;
    const size_t cut = final ? pending_.size() : safe_cut();
    if (cut == 0) return out;
    const std::string_view segment(pending_.data(), cut);
    size_t begin = 0;
    size_t after = 0;
    if (!final && unterminated_key(segment, &begin, &after)) {
      out += scrubber_.scrub(segment.substr(0, begin));
      out += kScrubbed;
      pending_.erase(0, after);
      in_private_key_ = true;
      continue;
    }
    out += scrubber_.scrub(segment);
    pending_.erase(0, cut);
    if (final || pending_.empty()) return out;
  }
}

}  // namespace orrery
