// read_github_delivery (src/core/github_delivery.h): issue and pull-request
// deliveries become one enqueue object keyed OWNER/REPO#NUMBER, the delivery
// id its dedupe key; other events and actions are ignored with the reason;
// broken deliveries are errors naming what is missing; a huge body is cut at
// a character boundary so that the object is always enqueued.
#include "core/github_delivery.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/work_item_json.h"

namespace orrery {
namespace {

using nlohmann::json;

json issue_payload(const std::string& action, const std::string& body = "It breaks.") {
  return {{"action", action},
          {"issue",
           {{"number", 12},
            {"title", "Crash on start"},
            {"body", body},
            {"html_url", "https://github.com/acme/web/issues/12"},
            {"labels", json::array({{{"name", "agent"}}, {{"name", "bug"}}})},
            {"user", {{"login", "ada"}}}}},
          {"repository", {{"full_name", "acme/web"}}}};
}

json pull_payload(const std::string& action) {
  json payload = issue_payload(action);
  payload["pull_request"] = payload["issue"];
  payload.erase("issue");
  return payload;
}

GithubWork read(const std::string& event, const json& payload,
                const std::string& delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958") {
  const std::string text = payload.dump();
  auto work = read_github_delivery({event, delivery, text});
  EXPECT_TRUE(work) << (work ? "" : work.error().message);
  return work ? *work : GithubWork{};
}

TEST(GithubDelivery, AnOpenedIssueIsAnItemKeyedByRepositoryAndNumber) {
  const GithubWork work = read("issues", issue_payload("opened"));
  ASSERT_TRUE(work.enqueue_object);
  auto item = parse_enqueue_object(*work.enqueue_object);
  ASSERT_TRUE(item) << item.error().message;
  EXPECT_EQ(item->key, "acme/web#12");
  EXPECT_EQ(item->project, "acme/web");
  EXPECT_EQ(item->invocation.intent, "Crash on start");
  EXPECT_EQ(item->invocation.subject.kind, "issue");
  EXPECT_EQ(item->invocation.subject.id, "12");
  EXPECT_EQ(item->invocation.subject.url, "https://github.com/acme/web/issues/12");
  EXPECT_EQ(item->invocation.source.kind, "github");
  EXPECT_EQ(item->invocation.source.dedupe_key, "72d3162e-cc78-11e3-81ab-4c9367dc0958");
  const json input = json::parse(item->input_json);
  EXPECT_EQ(input["body"], "It breaks.");
  EXPECT_EQ(input["labels"], json::array({"agent", "bug"}));
  EXPECT_EQ(input["author"], "ada");
  EXPECT_EQ(input["action"], "opened");
}

TEST(GithubDelivery, EachActionIsWorkOrIgnoredWithItsName) {
  const std::vector<std::pair<std::string, bool>> issue_actions = {
      {"opened", true},    {"reopened", true},     {"edited", true},   {"labeled", true},
      {"unlabeled", true}, {"closed", false},      {"deleted", false}, {"assigned", false},
      {"pinned", false},   {"transferred", false}, {"", false}};
  for (const auto& [action, is_work] : issue_actions) {
    const GithubWork work = read("issues", issue_payload(action));
    EXPECT_EQ(work.enqueue_object.has_value(), is_work) << action;
    if (!is_work) {
      EXPECT_NE(work.ignored.find("issues." + action), std::string::npos) << action;
    }
  }
  for (const char* action : {"opened", "reopened", "synchronize", "ready_for_review"}) {
    const GithubWork work = read("pull_request", pull_payload(action));
    ASSERT_TRUE(work.enqueue_object) << action;
    EXPECT_EQ(parse_enqueue_object(*work.enqueue_object)->invocation.subject.kind, "pull_request");
  }
  for (const char* action : {"closed", "converted_to_draft", "review_requested"}) {
    EXPECT_FALSE(read("pull_request", pull_payload(action)).enqueue_object) << action;
  }
}

TEST(GithubDelivery, OtherEventsAndPingAreIgnored) {
  for (const char* event : {"ping", "push", "issue_comment", "star", "workflow_run"}) {
    const GithubWork work = read(event, issue_payload("opened"));
    EXPECT_FALSE(work.enqueue_object) << event;
    EXPECT_FALSE(work.ignored.empty()) << event;
  }
}

TEST(GithubDelivery, ABrokenDeliveryIsAnErrorNamingWhatIsMissing) {
  EXPECT_FALSE(read_github_delivery({"", "d", issue_payload("opened").dump()}));
  for (const char* body : {"", "[]", "not json", "\"text\"", "{\"action\": \"opened\""}) {
    auto work = read_github_delivery({"issues", "d", body});
    ASSERT_FALSE(work) << body;
    EXPECT_EQ(work.error().code, ErrorCode::kUsage);
  }
  const std::vector<std::pair<std::function<void(json&)>, std::string>> breaks = {
      {[](json& p) { p.erase("issue"); }, "'issue'"},
      {[](json& p) { p["issue"] = "12"; }, "'issue'"},
      {[](json& p) { p["issue"].erase("number"); }, "'number'"},
      {[](json& p) { p["issue"]["number"] = "12"; }, "'number'"},
      {[](json& p) { p["issue"]["number"] = 1.5; }, "'number'"},
      {[](json& p) { p.erase("repository"); }, "'repository'"},
      {[](json& p) { p["repository"]["full_name"] = 7; }, "'repository'"},
  };
  for (const auto& [breaking, named] : breaks) {
    json payload = issue_payload("opened");
    breaking(payload);
    auto work = read_github_delivery({"issues", "d", payload.dump()});
    ASSERT_FALSE(work) << payload.dump();
    EXPECT_NE(work.error().message.find(named), std::string::npos) << work.error().message;
  }
}

TEST(GithubDelivery, AHugeBodyIsCutAtACharacterSoTheObjectIsEnqueued) {
  // Every width of character straddling the cut: the cut never splits one.
  for (const std::string character : {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    for (size_t lead = 0; lead < 4; ++lead) {
      std::string body(lead, 'x');
      while (body.size() < 70 * 1024) body += character;
      const GithubWork work = read("issues", issue_payload("opened", body));
      ASSERT_TRUE(work.enqueue_object);
      auto item = parse_enqueue_object(*work.enqueue_object);
      ASSERT_TRUE(item) << item.error().message;
      const std::string kept = json::parse(item->input_json)["body"];
      EXPECT_LE(kept.size(), kMaxGithubBodyBytes);
      EXPECT_GT(kept.size() + character.size(), kMaxGithubBodyBytes);
      EXPECT_EQ(kept, body.substr(0, kept.size()));
    }
  }
}

TEST(GithubDelivery, WithoutADeliveryIdTheSourceIsGithubWithoutDedupe) {
  const GithubWork work = read("issues", issue_payload("opened"), "");
  ASSERT_TRUE(work.enqueue_object);
  auto item = parse_enqueue_object(*work.enqueue_object);
  ASSERT_TRUE(item) << item.error().message;
  EXPECT_EQ(item->invocation.source.kind, "github");
  EXPECT_EQ(item->invocation.source.dedupe_key, "");
}

}  // namespace
}  // namespace orrery
