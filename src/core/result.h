// Result<T>: a value or an Error, the way the core reports failure.
//
// Invariant: a Result holds exactly one of the two. An Error carries a code
// (which maps to a CLI exit status at the edge) and a message that names the
// offending value and what would have been accepted.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace orrery {

// kUnavailable: a temporary condition (the database stayed busy past the busy
// timeout, a server unreachable); retrying may succeed.
enum class ErrorCode { kUsage, kNotFound, kConflict, kInternal, kUnavailable };

struct Error {
  ErrorCode code = ErrorCode::kUsage;
  std::string message;
};

inline Error usage_error(std::string message) { return {ErrorCode::kUsage, std::move(message)}; }
inline Error not_found_error(std::string message) {
  return {ErrorCode::kNotFound, std::move(message)};
}
inline Error conflict_error(std::string message) {
  return {ErrorCode::kConflict, std::move(message)};
}
inline Error internal_error(std::string message) {
  return {ErrorCode::kInternal, std::move(message)};
}
inline Error unavailable_error(std::string message) {
  return {ErrorCode::kUnavailable, std::move(message)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// For operations that return nothing on success.
struct Ok {};
using Status = Result<Ok>;

}  // namespace orrery
