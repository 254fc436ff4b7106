#include "store/store.h"

namespace orrery {

const char* reserve_answer_name(ReserveAnswer answer) {
  switch (answer) {
    case ReserveAnswer::kReserved:
      return "reserved";
    case ReserveAnswer::kExisting:
      return "existing";
    case ReserveAnswer::kBusy:
      return "busy";
    case ReserveAnswer::kReclaimed:
      return "reclaimed";
  }
  return "unknown";
}

}  // namespace orrery
