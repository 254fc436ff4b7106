// Exit statuses of docs/cli.md, of every orrery process (the CLI and the
// supervisors alike), and the error codes of JSON error documents.
#pragma once

#include "core/result.h"

namespace orrery {

inline constexpr int kExitOk = 0;
inline constexpr int kExitWorkFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNotFound = 3;
inline constexpr int kExitConflict = 4;
inline constexpr int kExitInternal = 70;
inline constexpr int kExitUnavailable = 75;  // temporary: retrying may succeed

inline int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return kExitUsage;
    case ErrorCode::kNotFound:
      return kExitNotFound;
    case ErrorCode::kConflict:
      return kExitConflict;
    case ErrorCode::kInternal:
      return kExitInternal;
    case ErrorCode::kUnavailable:
      return kExitUnavailable;
  }
  return kExitInternal;
}

inline const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return "usage";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kInternal:
      return "internal";
    case ErrorCode::kUnavailable:
      return "unavailable";
  }
  return "internal";
}

}  // namespace orrery
