#include "store/sqlite/labels_function.h"

#include <sqlite3.h>

#include <string>

#include "core/runner_labels.h"
#include "store/target_codec.h"

namespace orrery::sqlite {
namespace {

std::string text_argument(sqlite3_value* value) {
  const unsigned char* text = sqlite3_value_text(value);
  return text == nullptr
             ? std::string()
             : std::string(reinterpret_cast<const char*>(text), size_t(sqlite3_value_bytes(value)));
}

void labels_within(sqlite3_context* context, int, sqlite3_value** arguments) {
  if (sqlite3_value_type(arguments[0]) == SQLITE_NULL ||
      sqlite3_value_type(arguments[1]) == SQLITE_NULL) {
    sqlite3_result_null(context);
    return;
  }
  auto selector = decode_labels(text_argument(arguments[0]));
  auto labels = parse_labels_text(text_argument(arguments[1]));
  if (!selector || !labels) {
    const std::string& message = !selector ? selector.error().message : labels.error().message;
    sqlite3_result_error(context, message.c_str(), int(message.size()));
    return;
  }
  sqlite3_result_int(context, runner_may_run(*labels, *selector) ? 1 : 0);
}

}  // namespace

Status register_labels_function(sqlite3* db) {
  const int rc =
      sqlite3_create_function_v2(db, "orrery_labels_within", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 nullptr, labels_within, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    return internal_error(std::string("the SQLite function orrery_labels_within could not be "
                                      "registered: ") +
                          sqlite3_errstr(rc));
  }
  return Ok{};
}

}  // namespace orrery::sqlite
