#include "core/usage.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/json_lines.h"

namespace orrery {
namespace {

using nlohmann::json;

// A token count: a non-negative integer, else 0 (the output is untrusted).
std::int64_t number(const json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number_integer()) return 0;
  if (found->is_number_unsigned()) {
    const auto value = found->get<std::uint64_t>();
    return value > std::uint64_t(INT64_MAX) ? INT64_MAX : std::int64_t(value);
  }
  return std::max<std::int64_t>(found->get<std::int64_t>(), 0);
}

// The document's "type" when it is a string, else "" (the output is
// untrusted: {"type": {...}} must not throw).
std::string type_of(const json& doc) {
  const auto found = doc.find("type");
  return found != doc.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// a + b for counts, saturating instead of overflowing.
std::int64_t plus(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

Usage claude_usage(const std::vector<json>& docs) {
  Usage usage;
  for (const json& doc : docs) {
    const auto found = doc.find("usage");
    if (type_of(doc) != "result" || found == doc.end() || !found->is_object()) continue;
    usage.input_tokens =
        plus(plus(number(*found, "input_tokens"), number(*found, "cache_creation_input_tokens")),
             number(*found, "cache_read_input_tokens"));
    usage.output_tokens = number(*found, "output_tokens");
    for (const char* key : {"total_cost_usd", "cost_usd"}) {
      const auto cost = doc.find(key);
      if (cost != doc.end() && cost->is_number() && std::isfinite(cost->get<double>()) &&
          cost->get<double>() >= 0) {
        usage.cost_usd = cost->get<double>();
      }
    }
  }
  return usage;
}

Usage codex_usage(const std::vector<json>& docs) {
  std::int64_t input = 0;
  std::int64_t output = 0;
  bool seen = false;
  for (const json& doc : docs) {
    const auto found = doc.find("usage");
    if (type_of(doc) == "turn.completed" && found != doc.end() && found->is_object()) {
      input = plus(input, number(*found, "input_tokens"));
      output = plus(output, number(*found, "output_tokens"));
      seen = true;
    }
  }
  Usage usage;
  if (seen) {
    usage.input_tokens = input;
    usage.output_tokens = output;
  }
  return usage;
}

Usage gemini_usage(const std::vector<json>& docs) {
  Usage usage;
  for (const json& doc : docs) {
    const json* models = nullptr;
    if (doc.contains("stats") && doc["stats"].is_object() && doc["stats"].contains("models")) {
      models = &doc["stats"]["models"];
    }
    if (models == nullptr || !models->is_object()) continue;
    std::int64_t input = 0;
    std::int64_t output = 0;
    for (const auto& [name, model] : models->items()) {
      if (!model.is_object() || !model.contains("tokens") || !model["tokens"].is_object()) continue;
      input = plus(input, number(model["tokens"], "prompt"));
      output = plus(output, number(model["tokens"], "candidates"));
    }
    usage.input_tokens = input;
    usage.output_tokens = output;
  }
  return usage;
}

}  // namespace

Usage parse_usage(AgentProvider provider, std::string_view stdout_text) {
  const std::vector<json> docs = json_documents(stdout_text);
  switch (provider) {
    case AgentProvider::kClaude:
      return claude_usage(docs);
    case AgentProvider::kCodex:
      return codex_usage(docs);
    case AgentProvider::kGemini:
      return gemini_usage(docs);
    default:
      return {};
  }
}

}  // namespace orrery
