// libFuzzer target: Scrubber and StreamScrubber over untrusted output.
//
// Checked: no crash, hang or sanitizer report; a literal secret given to the
// scrubber never survives scrubbing, whole or streamed in two chunks.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/scrubber.h"
#include "core/stream_scrubber.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string secret = "Fz-secret-0123";
  const orrery::Scrubber scrubber({secret});
  const std::string input = std::string(text) + secret;
  if (scrubber.scrub(input).find(secret) != std::string::npos) __builtin_trap();
  const size_t cut = data[0] % (input.size() + 1);
  orrery::StreamScrubber stream(scrubber);
  std::string out = stream.feed(std::string_view(input).substr(0, cut));
  out += stream.feed(std::string_view(input).substr(cut));
  out += stream.finish();
  if (out.find(secret) != std::string::npos) __builtin_trap();
  return 0;
}
