#include "core/agent_message.h"

#include "core/json_lines.h"

namespace orrery {
namespace {

using nlohmann::json;

// object[key] when it is a string, else "".
std::string string_at(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::string claude_message(const std::vector<json>& docs) {
  std::string message;
  for (const json& doc : docs) {
    if (string_at(doc, "type") == "result" && doc.contains("result")) {
      message = string_at(doc, "result");
    }
  }
  return message;
}

// codex `exec --json`: {"type": "item.completed", "item": {"type":
// "agent_message", "text": ...}}, or the older {"msg": {"type":
// "agent_message", "message": ...}}; the last one wins.
std::string codex_message(const std::vector<json>& docs) {
  std::string message;
  for (const json& doc : docs) {
    for (const char* key : {"item", "msg"}) {
      const auto inner = doc.find(key);
      if (inner == doc.end() || !inner->is_object()) continue;
      if (string_at(*inner, "type") != "agent_message") continue;
      const std::string text = string_at(*inner, "text") + string_at(*inner, "message");
      if (!text.empty()) message = text;
    }
  }
  return message;
}

std::string gemini_message(const std::vector<json>& docs) {
  std::string message;
  for (const json& doc : docs) {
    const std::string response = string_at(doc, "response");
    if (!response.empty()) message = response;
  }
  return message;
}

}  // namespace

std::string final_message(AgentProvider provider, std::string_view stdout_text) {
  std::string message;
  switch (provider) {
    case AgentProvider::kClaude:
      message = claude_message(json_documents(stdout_text));
      break;
    case AgentProvider::kCodex:
      message = codex_message(json_documents(stdout_text));
      break;
    case AgentProvider::kGemini:
      message = gemini_message(json_documents(stdout_text));
      break;
    default:
      break;
  }
  return message.empty() ? std::string(stdout_text) : message;
}

}  // namespace orrery
