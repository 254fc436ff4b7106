// A GitHub webhook delivery read as an enqueue object (docs/server.md,
// "Webhooks"): `POST /v1/routes/R/items?format=github` takes GitHub's own
// payload, and the issue or pull request it names becomes one item.
//
// Invariants: the key is "OWNER/REPO#NUMBER" — issues and pull requests share
// their numbers, so one key is one piece of work, and a later delivery about
// it refreshes the waiting item; the delivery id is the invocation's dedupe
// key, so GitHub's redelivery of one delivery is a duplicate; the object
// always fits the enqueue limits (a body is cut to kMaxGithubBodyBytes at a
// character boundary); events and actions that are not work are ignored with
// the reason, never an error, so GitHub does not mark them failed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

inline constexpr std::size_t kMaxGithubBodyBytes = 32 * 1024;

struct GithubDelivery {
  std::string event;     // X-GitHub-Event: issues, pull_request, ping, ...
  std::string delivery;  // X-GitHub-Delivery: the delivery's id
  std::string_view payload;
};

// An enqueue object (core/work_item_json.h) for the delivery, or, when the
// delivery is not work, why it is ignored.
struct GithubWork {
  std::optional<std::string> enqueue_object;
  std::string ignored;
};

// Issues: opened, reopened, edited, labeled, unlabeled. Pull requests: those
// and synchronize, ready_for_review. A delivery without its event, not a
// JSON object, or missing the number, title or repository is an error
// naming what is missing.
Result<GithubWork> read_github_delivery(const GithubDelivery& delivery);

}  // namespace orrery
