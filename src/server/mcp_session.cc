#include "server/mcp_session.h"

#include <algorithm>
#include <stdexcept>

#include "core/exact_json.h"

namespace orrery::server {
namespace {

using nlohmann::json;

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kResourceNotFound = -32002;  // MCP's own

// A JSON-RPC error raised while answering, carried to the response.
struct RpcError : std::runtime_error {
  RpcError(int rpc_code, const std::string& message)
      : std::runtime_error(message), code(rpc_code) {}
  int code;
};

std::string line_of(const json& message) { return write_json(message); }

json error_message(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

// The field's text, or "" when it is absent or not a string.
std::string text_field(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

bool is_valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

bool has_type(const json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number() || is_kept_number(value);
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  return true;
}

}  // namespace

std::optional<std::string> schema_mismatch(const json& schema, const json& arguments) {
  if (!arguments.is_object()) return "the arguments must be an object";
  const json& properties = schema.at("properties");
  for (const auto& [key, value] : arguments.items()) {
    const auto property = properties.find(key);
    if (property == properties.end()) {
      std::string known;
      for (const auto& [name, unused] : properties.items())
        known += (known.empty() ? "" : ", ") + name;
      return "unknown argument '" + key + "' (it takes: " + (known.empty() ? "none" : known) + ")";
    }
    const std::string type = property->value("type", "");
    if (!has_type(value, type)) return "argument '" + key + "' must be " + type;
    if (const auto choices = property->find("enum"); choices != property->end()) {
      if (std::find(choices->begin(), choices->end(), value) == choices->end()) {
        return "argument '" + key + "' must be one of " + write_json(*choices);
      }
    }
  }
  for (const json& required : schema.value("required", json::array())) {
    if (!arguments.contains(required.get<std::string>())) {
      return "argument '" + required.get<std::string>() + "' is required";
    }
  }
  return std::nullopt;
}

McpSession::McpSession(std::vector<McpTool> tools, McpResources resources, std::string version)
    : tools_(std::move(tools)), resources_(std::move(resources)), version_(std::move(version)) {}

std::optional<std::string> McpSession::handle(std::string_view line) {
  const json message = read_json(line);
  if (message.is_discarded()) {
    return line_of(error_message(nullptr, kParseError, "the line is not JSON"));
  }
  if (!message.is_object()) {
    return line_of(error_message(nullptr, kInvalidRequest,
                                 "a message is one JSON-RPC 2.0 object (batches are not taken)"));
  }
  const bool is_request = message.contains("id");
  const json id = is_request ? message["id"] : json();
  if (text_field(message, "jsonrpc") != "2.0" || !message.contains("method") ||
      !message["method"].is_string() || (is_request && !is_valid_id(id))) {
    if (!is_request && (message.contains("result") || message.contains("error"))) {
      return std::nullopt;  // a response to nothing we asked: ignored
    }
    return line_of(error_message(is_request && is_valid_id(id) ? id : json(), kInvalidRequest,
                                 "not a JSON-RPC 2.0 request: it needs \"jsonrpc\": \"2.0\", a "
                                 "string \"method\" and a string or integer \"id\""));
  }
  const std::string method = message["method"];
  const json params = message.value("params", json::object());
  if (!is_request) {
    return std::nullopt;  // notifications/initialized, notifications/cancelled, ...
  }
  try {
    if (!params.is_object()) throw RpcError(kInvalidParams, "params must be an object");
    json result = answer(method, params);
    return line_of({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  } catch (const RpcError& error) {
    return line_of(error_message(id, error.code, error.what()));
  } catch (const json::exception& error) {
    // A value of an unexpected type somewhere in params.
    return line_of(error_message(id, kInvalidParams, std::string("bad params: ") + error.what()));
  }
}

json McpSession::answer(const std::string& method, const json& params) {
  if (method == "initialize") return initialize(params);
  if (method == "ping") return json::object();
  if (protocol_.empty()) {
    throw RpcError(kInvalidRequest, "'" + method + "' before initialize: initialize first");
  }
  if (method == "tools/list") {
    json list = json::array();
    for (const McpTool& tool : tools_) {
      list.push_back({{"name", tool.name},
                      {"description", tool.description},
                      {"inputSchema", tool.input_schema}});
    }
    return {{"tools", std::move(list)}};
  }
  if (method == "tools/call") return call_tool(params);
  if (method == "resources/list") return {{"resources", resources_.list()}};
  if (method == "resources/templates/list") {
    return {{"resourceTemplates",
             json::array({{{"uriTemplate", "orrery://runs/{run}/{stream}"},
                           {"name", "run log"},
                           {"description", "a run's stdout or stderr log (its last 1 MiB)"},
                           {"mimeType", "text/plain"}}})}};
  }
  if (method == "resources/read") return read_resource(params);
  throw RpcError(kMethodNotFound, "no method '" + method + "'");
}

json McpSession::initialize(const json& params) {
  const std::string asked = text_field(params, "protocolVersion");
  const bool known = std::find(kMcpProtocolVersions.begin(), kMcpProtocolVersions.end(), asked) !=
                     kMcpProtocolVersions.end();
  protocol_ = known ? asked : kMcpProtocolVersions.back();
  return {{"protocolVersion", protocol_},
          {"capabilities", {{"tools", {{"listChanged", false}}}, {"resources", json::object()}}},
          {"serverInfo", {{"name", "orrery"}, {"version", version_}}},
          {"instructions",
           "orrery schedules commands and coding agents. List and read loops and runs; the tools "
           "this session was allowed (orrery mcp --allow) change them."}};
}

json McpSession::call_tool(const json& params) {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    throw RpcError(kInvalidParams, "tools/call needs a string 'name'");
  }
  const auto tool =
      std::find_if(tools_.begin(), tools_.end(), [&](const McpTool& t) { return t.name == *name; });
  if (tool == tools_.end()) {
    throw RpcError(kInvalidParams, "no tool '" + name->get<std::string>() +
                                       "' in this session (see tools/list; orrery mcp --allow "
                                       "run or manage adds the tools that change things)");
  }
  const json arguments = params.value("arguments", json::object());
  if (auto mismatch = schema_mismatch(tool->input_schema, arguments)) {
    throw RpcError(kInvalidParams, tool->name + ": " + *mismatch);
  }
  const McpToolResult result = tool->call(arguments);
  json answer = {{"content", json::array({{{"type", "text"}, {"text", line_of(result.document)}}})},
                 {"isError", result.is_error}};
  if (protocol_ >= "2025-06-18") answer["structuredContent"] = result.document;
  return answer;
}

json McpSession::read_resource(const json& params) {
  const auto uri = params.find("uri");
  if (uri == params.end() || !uri->is_string()) {
    throw RpcError(kInvalidParams, "resources/read needs a string 'uri'");
  }
  auto contents = resources_.read(*uri);
  if (!contents) {
    throw RpcError(kResourceNotFound, "no resource '" + uri->get<std::string>() +
                                          "' (run logs are orrery://runs/RUN/stdout or /stderr)");
  }
  return {{"contents", json::array({std::move(*contents)})}};
}

}  // namespace orrery::server
