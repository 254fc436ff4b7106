#include "views/error_view.h"

#include "core/exit_codes.h"

namespace orrery {

nlohmann::json error_json(const Error& error) {
  return {{"error", {{"code", error_code_name(error.code)}, {"message", error.message}}}};
}

}  // namespace orrery
