// One session of the Model Context Protocol (docs/mcp.md): JSON-RPC 2.0
// messages, one per line, read from the client and answered.
//
// Invariants:
// - every request (a message with an id) gets exactly one response with its
//   id; a notification (no id) gets none;
// - a line that is not JSON is -32700 with id null; a message that is not a
//   JSON-RPC 2.0 request (an array, no method, a bad id) is -32600; an
//   unknown method -32601; bad params — and a tool that is unknown or not in
//   the session's scope — -32602; only `initialize` and `ping` are answered
//   before `initialize`;
// - initialize answers the client's protocol version when it is one of
//   kMcpProtocolVersions, otherwise the newest of them;
// - a tool's own failure (a loop not found, a bad spec) is a result with
//   isError true and the error document, not a JSON-RPC error.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::server {

// Oldest first; the last is the newest.
inline const std::vector<std::string> kMcpProtocolVersions = {"2024-11-05", "2025-03-26",
                                                              "2025-06-18", "2025-11-25"};

// What a tool returned: its document, and whether it is the tool's failure.
struct McpToolResult {
  nlohmann::json document;  // an object
  bool is_error = false;
};

struct McpTool {
  std::string name;
  std::string description;
  nlohmann::json input_schema;  // type object: properties, required, additionalProperties false
  std::function<McpToolResult(const nlohmann::json& arguments)> call;
};

// A resource: its URI, name and what it holds; read returns its text, or
// nothing when the URI is not one the session serves.
struct McpResources {
  std::function<nlohmann::json()> list;  // [{uri, name, mimeType}]
  std::function<std::optional<nlohmann::json>(const std::string& uri)>
      read;  // {uri, mimeType, text}
};

class McpSession {
 public:
  McpSession(std::vector<McpTool> tools, McpResources resources, std::string version);

  // The response line to `line`, or nothing for a notification.
  std::optional<std::string> handle(std::string_view line);

 private:
  nlohmann::json answer(const std::string& method, const nlohmann::json& params);
  nlohmann::json initialize(const nlohmann::json& params);
  nlohmann::json call_tool(const nlohmann::json& params);
  nlohmann::json read_resource(const nlohmann::json& params);

  std::vector<McpTool> tools_;
  McpResources resources_;
  std::string version_;
  std::string protocol_;  // agreed at initialize; empty before
};

// The reason `arguments` do not fit the schema (type, required, no other
// properties), or nothing.
std::optional<std::string> schema_mismatch(const nlohmann::json& schema,
                                           const nlohmann::json& arguments);

}  // namespace orrery::server
