#include "core/output_tail.h"

namespace orrery {

void OutputTail::append(std::string_view bytes) {
  total_ += bytes.size();
  if (bytes.size() >= limit_) {
    buffer_.assign(bytes.substr(bytes.size() - limit_));
    return;
  }
  buffer_.append(bytes);
  if (buffer_.size() > 2 * limit_) buffer_.erase(0, buffer_.size() - limit_);
}

std::string OutputTail::text() const {
  size_t start = buffer_.size() > limit_ ? buffer_.size() - limit_ : 0;
  if (total_ <= limit_) return buffer_;
  while (start < buffer_.size() && (static_cast<unsigned char>(buffer_[start]) & 0xC0) == 0x80) {
    ++start;  // a UTF-8 continuation byte: its sequence began before the tail
  }
  const std::uint64_t dropped = total_ - (buffer_.size() - start);
  return "[truncated " + std::to_string(dropped) + " bytes]\n" + buffer_.substr(start);
}

}  // namespace orrery
