// McpSession (src/server/mcp_session.h), scripted line by line: JSON-RPC
// framing errors of every kind, notifications unanswered, nothing but
// initialize and ping before initialize, version negotiation, tool calls
// checked against their schema, a tool's failure as a result.
#include "server/mcp_session.h"

#include <gtest/gtest.h>

namespace orrery::server {
namespace {

using nlohmann::json;

McpTool echo_tool() {
  return {"echo",
          "answers its text",
          {{"type", "object"},
           {"properties",
            {{"text", {{"type", "string"}}},
             {"n", {{"type", "integer"}}},
             {"mode", {{"type", "string"}, {"enum", {"a", "b"}}}}}},
           {"required", {"text"}},
           {"additionalProperties", false}},
          [](const json& arguments) {
            if (arguments["text"] == "fail") return McpToolResult{{{"error", "failed"}}, true};
            return McpToolResult{{{"echo", arguments["text"]}}, false};
          }};
}

McpResources no_resources() {
  return {[] { return json::array(); },
          [](const std::string&) -> std::optional<json> { return std::nullopt; }};
}

class McpSessionTest : public ::testing::Test {
 protected:
  json send(const json& message) { return send_line(message.dump()); }
  json send_line(const std::string& line) {
    auto answer = session_.handle(line);
    if (!answer) return nullptr;
    return json::parse(*answer);
  }
  json request(const std::string& method, const json& params = json::object()) {
    return send({{"jsonrpc", "2.0"}, {"id", ++id_}, {"method", method}, {"params", params}});
  }
  void initialize(const std::string& version = "2025-06-18") {
    const json answer = request("initialize", {{"protocolVersion", version}});
    ASSERT_TRUE(answer.contains("result")) << answer.dump();
  }
  static int error_code(const json& answer) {
    return answer.contains("error") ? answer["error"]["code"].get<int>() : 0;
  }

  McpSession session_{{echo_tool()}, no_resources(), "1.2.3"};
  int id_ = 0;
};

TEST_F(McpSessionTest, EveryFramingErrorHasItsCodeAndNeverAnotherRequestsId) {
  EXPECT_EQ(error_code(send_line("not json")), -32700);
  EXPECT_TRUE(send_line("not json")["id"].is_null());
  EXPECT_EQ(error_code(send_line("{\"jsonrpc\": \"2.0\", \"id\": 1,")), -32700);
  const std::vector<json> invalid = {
      json::array({{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}}),  // a batch
      json(1),
      json("ping"),
      json(nullptr),
      {{"id", 1}, {"method", "ping"}},  // no jsonrpc
      {{"jsonrpc", "1.0"}, {"id", 1}, {"method", "ping"}},
      {{"jsonrpc", 2}, {"id", 1}, {"method", "ping"}},
      {{"jsonrpc", "2.0"}, {"id", 1}},  // no method
      {{"jsonrpc", "2.0"}, {"id", 1}, {"method", 7}},
      {{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}},
      {{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "ping"}},
      {{"jsonrpc", "2.0"}, {"id", json::object()}, {"method", "ping"}},
      {{"jsonrpc", "2.0"}, {"id", true}, {"method", "ping"}},
  };
  for (const json& message : invalid) {
    const json answer = send(message);
    EXPECT_EQ(error_code(answer), -32600) << message.dump() << " → " << answer.dump();
  }
  EXPECT_EQ(send({{"jsonrpc", "2.0"}, {"id", 4}})["id"], 4);      // a valid id is kept
  EXPECT_EQ(error_code(request("ping", json::array())), -32602);  // params not an object
}

TEST_F(McpSessionTest, AValueOfEveryTypeInEveryFieldIsAnsweredWithoutThrowing) {
  // Each field of a request, and each field of each method's params, given a
  // value of every JSON type: the answer is one JSON-RPC response (or none,
  // for a notification), never an exception.
  const std::vector<json> values = {nullptr,
                                    true,
                                    0,
                                    -1,
                                    1.5,
                                    "",
                                    "x",
                                    "\xff",
                                    json::array(),
                                    json::array({1}),
                                    json::object(),
                                    json{{"k", "v"}}};
  const json base = {{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "tools/call"},
                     {"params", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}}};
  std::vector<json> messages;
  for (const char* field : {"jsonrpc", "id", "method", "params"}) {
    for (const json& value : values) {
      json message = base;
      message[field] = value;
      messages.push_back(message);
    }
  }
  for (const char* method :
       {"initialize", "tools/call", "tools/list", "resources/read", "resources/list", "ping"}) {
    for (const char* field : {"protocolVersion", "name", "arguments", "uri", "capabilities"}) {
      for (const json& value : values) {
        json message = base;
        message["method"] = method;
        message["params"] = {{field, value}};
        messages.push_back(message);
        message["params"] = {{"name", "echo"}, {"arguments", {{"text", value}, {"n", value}}}};
        messages.push_back(message);
      }
    }
  }
  initialize();
  for (const json& message : messages) {
    std::optional<std::string> answer;
    ASSERT_NO_THROW(
        answer = session_.handle(message.dump(-1, ' ', false, json::error_handler_t::replace)))
        << message.dump();
    if (!answer) continue;
    const json parsed = json::parse(*answer, nullptr, false);
    ASSERT_TRUE(parsed.is_object()) << *answer;
    EXPECT_EQ(parsed["jsonrpc"], "2.0");
    EXPECT_NE(parsed.contains("result"), parsed.contains("error")) << *answer;
  }
}

TEST_F(McpSessionTest, NotificationsAndStrayResponsesGetNoAnswer) {
  EXPECT_TRUE(send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).is_null());
  EXPECT_TRUE(send({{"jsonrpc", "2.0"}, {"method", "tools/call"}}).is_null());
  EXPECT_TRUE(send({{"jsonrpc", "2.0"}, {"result", json::object()}}).is_null());
}

TEST_F(McpSessionTest, OnlyInitializeAndPingAreAnsweredBeforeInitialize) {
  EXPECT_TRUE(request("ping").contains("result"));
  for (const char* method : {"tools/list", "tools/call", "resources/list", "resources/read"}) {
    EXPECT_EQ(error_code(request(method)), -32600) << method;
  }
  initialize();
  EXPECT_TRUE(request("tools/list").contains("result"));
  EXPECT_EQ(error_code(request("tools/nothing")), -32601);
}

TEST_F(McpSessionTest, AKnownVersionIsAgreedAndAnyOtherGetsTheNewest) {
  for (const std::string& version : kMcpProtocolVersions) {
    McpSession session({echo_tool()}, no_resources(), "1.2.3");
    const json answer = json::parse(*session.handle(json{
        {"jsonrpc", "2.0"},
        {"id", 1},
        {"method", "initialize"},
        {"params", {{"protocolVersion", version}}}}.dump()));
    EXPECT_EQ(answer["result"]["protocolVersion"], version);
    EXPECT_EQ(answer["result"]["serverInfo"]["version"], "1.2.3");
  }
  for (const json& asked :
       {json("1999-01-01"), json(""), json(7), json::array(), json::object(), json(nullptr)}) {
    McpSession session({echo_tool()}, no_resources(), "1.2.3");
    json params = json::object();
    if (!asked.is_null()) params["protocolVersion"] = asked;
    const json answer = json::parse(*session.handle(
        json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", params}}.dump()));
    EXPECT_EQ(answer["result"]["protocolVersion"], kMcpProtocolVersions.back()) << asked.dump();
  }
}

TEST_F(McpSessionTest, ACallIsCheckedAgainstTheSchemaAndAFailureIsAResult) {
  initialize();
  const json ok = request("tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}});
  EXPECT_EQ(ok["result"]["isError"], false);
  EXPECT_EQ(ok["result"]["structuredContent"]["echo"], "hi");
  EXPECT_EQ(json::parse(ok["result"]["content"][0]["text"].get<std::string>())["echo"], "hi");
  const json failed = request("tools/call", {{"name", "echo"}, {"arguments", {{"text", "fail"}}}});
  EXPECT_EQ(failed["result"]["isError"], true);
  const std::vector<json> bad = {
      {{"name", "nothing"}},
      {{"arguments", {{"text", "hi"}}}},
      {{"name", 7}},
      {{"name", "echo"}},  // text required
      {{"name", "echo"}, {"arguments", {{"text", 1}}}},
      {{"name", "echo"}, {"arguments", {{"text", "x"}, {"n", 1.5}}}},
      {{"name", "echo"}, {"arguments", {{"text", "x"}, {"mode", "c"}}}},
      {{"name", "echo"}, {"arguments", {{"text", "x"}, {"other", 1}}}},
      {{"name", "echo"}, {"arguments", json::array()}},
  };
  for (const json& params : bad) {
    EXPECT_EQ(error_code(request("tools/call", params)), -32602) << params.dump();
  }
}

TEST_F(McpSessionTest, StructuredContentIsGivenFromTheVersionThatHasIt) {
  initialize("2025-03-26");
  const json old = request("tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}});
  EXPECT_FALSE(old["result"].contains("structuredContent"));
  EXPECT_EQ(old["result"]["content"][0]["type"], "text");
}

TEST_F(McpSessionTest, AnUnknownResourceIsItsOwnError) {
  initialize();
  EXPECT_EQ(request("resources/list")["result"]["resources"], json::array());
  EXPECT_EQ(error_code(request("resources/read", {{"uri", "orrery://runs/x/stdout"}})), -32002);
  EXPECT_EQ(error_code(request("resources/read")), -32602);
}

}  // namespace
}  // namespace orrery::server
