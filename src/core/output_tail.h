// OutputTail: the last `limit` bytes of a stream, kept for the run record.
//
// When more was written, the text starts with "[truncated N bytes]\n" (N
// counts every byte not kept) and never with a cut UTF-8 sequence: leading
// continuation bytes of the kept tail are dropped and counted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace orrery {

inline constexpr size_t kRunOutputLimit = 256 * 1024;

class OutputTail {
 public:
  explicit OutputTail(size_t limit = kRunOutputLimit) : limit_(limit) {}

  void append(std::string_view bytes);
  std::string text() const;
  std::uint64_t total_bytes() const { return total_; }

 private:
  size_t limit_;
  std::string buffer_;  // at most 2 * limit_ bytes between trims
  std::uint64_t total_ = 0;
};

}  // namespace orrery
