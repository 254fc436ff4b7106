#include "core/github_delivery.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/text.h"

namespace orrery {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 5> kIssueActions{"opened", "reopened", "edited", "labeled",
                                                        "unlabeled"};
constexpr std::array<std::string_view, 7> kPullActions{
    "opened", "reopened", "edited", "labeled", "unlabeled", "synchronize", "ready_for_review"};

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& actions, const std::string& action) {
  return std::find(actions.begin(), actions.end(), action) != actions.end();
}

// The longest prefix of valid UTF-8 `text` of at most `max_bytes`, not
// splitting a character.
std::string cut_at_character(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  return text.substr(0, end);
}

std::string text_at(const json& object, const char* field) {
  const auto found = object.find(field);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::vector<std::string> label_names(const json& subject) {
  std::vector<std::string> names;
  const auto labels = subject.find("labels");
  if (labels == subject.end() || !labels->is_array()) return names;
  for (const json& label : *labels) {
    if (label.is_object()) names.push_back(text_at(label, "name"));
  }
  return names;
}

std::string author_of(const json& subject) {
  const auto user = subject.find("user");
  return user != subject.end() && user->is_object() ? text_at(*user, "login") : "";
}

Result<GithubWork> work_of(const GithubDelivery& delivery, const json& payload,
                           const char* subject_field, const char* subject_kind) {
  const auto subject = payload.find(subject_field);
  const auto repository = payload.find("repository");
  if (subject == payload.end() || !subject->is_object()) {
    return usage_error("the " + delivery.event + " delivery has no '" + subject_field + "' object");
  }
  const auto number = subject->find("number");
  if (number == subject->end() || !number->is_number_integer()) {
    return usage_error(std::string("the delivery's ") + subject_field + " has no integer 'number'");
  }
  const std::string full_name = repository != payload.end() && repository->is_object()
                                    ? text_at(*repository, "full_name")
                                    : "";
  if (full_name.empty()) {
    return usage_error("the delivery has no 'repository' with a 'full_name'");
  }
  const std::string number_text = std::to_string(number->get<std::int64_t>());
  const std::string title = text_at(*subject, "title");
  const std::string url = text_at(*subject, "html_url");
  json input = {{"event", delivery.event},
                {"action", text_at(payload, "action")},
                {"repository", full_name},
                {"number", number->get<std::int64_t>()},
                {"title", title},
                {"body", cut_at_character(text_at(*subject, "body"), kMaxGithubBodyBytes)},
                {"labels", label_names(*subject)},
                {"author", author_of(*subject)},
                {"url", url}};
  json object = {{"key", full_name + "#" + number_text},
                 {"project", full_name},
                 {"intent", title},
                 {"subject", {{"kind", subject_kind}, {"id", number_text}, {"url", url}}},
                 {"input", std::move(input)}};
  if (!delivery.delivery.empty()) {
    object["source"] = {{"kind", "github"}, {"id", delivery.delivery}};
    object["dedupe"] = delivery.delivery;
  } else {
    object["source"] = "github";
  }
  GithubWork work;
  work.enqueue_object = write_json(object);
  return work;
}

GithubWork ignored(std::string reason) {
  GithubWork work;
  work.ignored = std::move(reason);
  return work;
}

}  // namespace

Result<GithubWork> read_github_delivery(const GithubDelivery& delivery) {
  if (delivery.event.empty()) {
    return usage_error(
        "?format=github takes GitHub's webhook deliveries, which carry X-GitHub-Event; this "
        "request has none");
  }
  const json payload = read_json(delivery.payload);
  if (!payload.is_object()) {
    return usage_error("the " + visible(delivery.event) +
                       " delivery's body is not a JSON object (give the webhook content type "
                       "application/json)");
  }
  const std::string action = text_at(payload, "action");
  if (delivery.event == "ping") return ignored("ping: the webhook reaches this route");
  if (delivery.event == "issues") {
    if (!listed(kIssueActions, action))
      return ignored("issues." + visible(action) + " is not work");
    return work_of(delivery, payload, "issue", "issue");
  }
  if (delivery.event == "pull_request") {
    if (!listed(kPullActions, action)) {
      return ignored("pull_request." + visible(action) + " is not work");
    }
    return work_of(delivery, payload, "pull_request", "pull_request");
  }
  return ignored("the " + visible(delivery.event) +
                 " event is not work (issues and pull_request are)");
}

}  // namespace orrery
