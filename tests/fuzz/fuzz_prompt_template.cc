// libFuzzer target: prompt templates (core/prompt_template.h), which a
// workflow spec's author writes and a run fills in from values that come
// from trackers and agents.
//
// Checked: nothing crashes, overflows the stack or leaks; a template the
// check accepts renders from full values unless a name lacks a value, and
// its names are the ones it lists; a template the check refuses renders
// never; a value is inserted as it is, never expanded (a template of one
// tag renders to exactly its value, whatever the value holds); the
// rendered prompt stays within kMaxRenderedPromptBytes.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/prompt_template.h"
#include "core/text.h"

namespace {

using Json = nlohmann::json;

std::string values_with(const std::string& text) {
  Json values{{"item",
               {{"id", "i"},
                {"key", text},
                {"title", text},
                {"payload", {{"a", text}, {"b", {{"c", 1}}}}}}},
              {"run", {{"id", "r"}, {"attempt", 1}, {"input", Json::object()}}},
              {"workflow", {{"name", "w"}}},
              {"feedback", text},
              {"steps",
               {{"s", {{"status", "succeeded"}, {"outputs", {{"x", text}}}}},
                {"s.t", {{"status", "failed"}, {"exit_code", 2}, {"outputs", Json::object()}}}}}};
  return values.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const orrery::TemplateScope scope{{"s", "s.t"}};
  const std::string values = values_with(orrery::storable_text(text));
  auto names = orrery::check_template(text, scope, "prompt");
  auto rendered = orrery::render_template(text, values, "prompt");
  if (!names && rendered) __builtin_trap();
  if (rendered && rendered->size() > orrery::kMaxRenderedPromptBytes) __builtin_trap();
  for (const auto& name : names ? *names : std::vector<std::string>{}) {
    if (!orrery::template_names(text, name)) __builtin_trap();
  }
  // A value holding tags is inserted as it is.
  auto one = orrery::render_template("{{ item.title }}", values, "prompt");
  if (!one) __builtin_trap();
  const Json parsed = Json::parse(values);
  if (*one != parsed["item"]["title"].get<std::string>()) __builtin_trap();
  return 0;
}
