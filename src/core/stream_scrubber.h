// StreamScrubber: scrubs output as it arrives in chunks, so that a secret
// split across two reads is still caught.
//
// It holds back the unfinished last line (at most kMaxCarry bytes; a longer
// line is cut before its final kCarryTail bytes, moved back so that it never
// falls inside anything the scrubber replaces) and scrubs whole lines. A PEM private key that
// begins but has not ended yet is dropped until its END line, or to the end of the stream.
// Invariants: the carry stays bounded (kMaxCarry + one chunk, unless one secret-like match is
// longer); a secret shorter than kCarryTail is never written unscrubbed.
#pragma once

#include <string>
#include <string_view>

#include "core/scrubber.h"

namespace orrery {

class StreamScrubber {
 public:
  static constexpr size_t kMaxCarry = 64 * 1024;
  static constexpr size_t kCarryTail = 4 * 1024;

  explicit StreamScrubber(const Scrubber& scrubber) : scrubber_(scrubber) {}

  // Scrubbed text that is safe to write now.
  std::string feed(std::string_view chunk);
  // Everything still held back, scrubbed; the stream has ended.
  std::string finish();

 private:
  std::string drain(bool final);
  size_t safe_cut() const;
  bool skip_private_key(bool final);

  const Scrubber& scrubber_;
  std::string pending_;
  bool in_private_key_ = false;
};

}  // namespace orrery
