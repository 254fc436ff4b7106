#include "server/metrics_page.h"

#include "core/prometheus_text.h"
#include "server/api_response.h"

namespace orrery::server {
namespace {

constexpr const char* kTextFormat = "text/plain; version=0.0.4; charset=utf-8";

MetricLabels loop_labels(const LoopLabel& loop) {
  return {{"loop", loop.loop_name}, {"loop_id", loop.loop_id}};
}

std::vector<double> seconds(const std::vector<DurationMs>& milliseconds) {
  std::vector<double> values;
  for (const DurationMs ms : milliseconds) values.push_back(double(ms) / 1000.0);
  return values;
}

void run_counts(PrometheusText& text, const MetricsSnapshot& snapshot) {
  text.family("orrery_runs_total", "counter",
              "Runs the store keeps, by loop and status (pruning lowers it).");
  for (const RunCount& count : snapshot.runs) {
    MetricLabels labels = loop_labels(count.loop);
    labels.emplace_back("status", count.status);
    text.sample("orrery_runs_total", labels, double(count.count));
  }
  text.family("orrery_skipped_slots_total", "counter",
              "Slots recorded as skipped, by loop and reason.");
  for (const RunCount& count : snapshot.skipped) {
    MetricLabels labels = loop_labels(count.loop);
    labels.emplace_back("reason", count.status.empty() ? "unknown" : count.status);
    text.sample("orrery_skipped_slots_total", labels, double(count.count));
  }
}

void histograms(PrometheusText& text, const char* name, const char* help,
                const std::vector<RunHistogram>& rows, const std::vector<DurationMs>& bounds) {
  text.family(name, "histogram", help);
  const std::vector<double> bounds_seconds = seconds(bounds);
  for (const RunHistogram& row : rows) {
    std::vector<double> cumulative(row.cumulative.begin(), row.cumulative.end());
    text.histogram(name, loop_labels(row.loop), bounds_seconds, cumulative, double(row.count),
                   double(row.sum_ms) / 1000.0);
  }
}

void admission_and_goals(PrometheusText& text, const MetricsSnapshot& snapshot, TimeMs now) {
  text.family("orrery_queue_items", "gauge", "Items of each route's queue, by status.");
  for (const ItemCount& count : snapshot.items) {
    text.sample("orrery_queue_items", {{"route", count.route}, {"status", count.status}},
                double(count.count));
  }
  text.family("orrery_goal_tokens_used", "gauge", "Tokens a goal has used (open goals).");
  for (const GoalTokens& goal : snapshot.goals) {
    text.sample("orrery_goal_tokens_used", {{"goal", goal.goal_id}, {"status", goal.status}},
                double(goal.tokens_used));
  }
  text.family("orrery_goal_budget_remaining_tokens", "gauge",
              "Tokens left of a goal's budget (open goals with a budget).");
  for (const GoalTokens& goal : snapshot.goals) {
    if (!goal.token_budget) continue;
    text.sample("orrery_goal_budget_remaining_tokens", {{"goal", goal.goal_id}},
                double(std::max<std::int64_t>(0, *goal.token_budget - goal.tokens_used)));
  }
  text.family("orrery_cooldown_remaining_seconds", "gauge",
              "Seconds until a provider account's usage-limit cooldown ends.");
  for (const AccountCooldown& cooldown : snapshot.cooldowns) {
    text.sample("orrery_cooldown_remaining_seconds", {{"account", cooldown.account}},
                double(cooldown.until_at - now) / 1000.0);
  }
}

void daemon_and_server(PrometheusText& text, const MetricsSnapshot& snapshot,
                       const ServerCounters& counters) {
  text.family("orrery_daemon_lease_held", "gauge", "1 while a daemon holds a live lease.");
  text.sample("orrery_daemon_lease_held", {}, snapshot.lease_held ? 1 : 0);
  text.family("orrery_daemon_lease_generation", "gauge",
              "The daemon lease's generation (it grows with every new holder).");
  text.sample("orrery_daemon_lease_generation", {}, double(snapshot.lease_generation));
  text.family("orrery_store_errors_total", "counter",
              "Requests this server answered with a store error, by class.");
  text.sample("orrery_store_errors_total", {{"class", "unavailable"}},
              double(counters.store_unavailable.load()));
  text.sample("orrery_store_errors_total", {{"class", "internal"}},
              double(counters.internal_errors.load()));
}

}  // namespace

MetricsBounds metrics_bounds() {
  MetricsBounds bounds;
  bounds.duration_ms = {100,     500,     1'000,     5'000,     15'000,    60'000,
                        300'000, 900'000, 1'800'000, 3'600'000, 7'200'000, 14'400'000};
  bounds.dispatch_latency_ms = {10,    50,    100,    250,    500,    1'000,
                                2'500, 5'000, 10'000, 30'000, 60'000, 300'000};
  return bounds;
}

std::string metrics_text(const MetricsSnapshot& snapshot, const MetricsBounds& bounds, TimeMs now,
                         const ServerCounters& counters) {
  PrometheusText text;
  run_counts(text, snapshot);
  histograms(text, "orrery_run_duration_seconds", "How long finished runs took, by loop.",
             snapshot.durations, bounds.duration_ms);
  histograms(text, "orrery_run_dispatch_latency_seconds",
             "From a run's slot to its start, by loop.", snapshot.dispatch_latencies,
             bounds.dispatch_latency_ms);
  admission_and_goals(text, snapshot, now);
  daemon_and_server(text, snapshot, counters);
  return text.text();
}

MetricsPage::MetricsPage(std::unique_ptr<Store> store, const Clock& clock, ServerCounters& counters)
    : store_(std::move(store)), clock_(clock), counters_(counters) {}

HttpResponse MetricsPage::render() {
  const MetricsBounds bounds = metrics_bounds();
  const TimeMs now = clock_.wall_now();
  Result<MetricsSnapshot> snapshot = [&] {
    std::lock_guard lock(mutex_);
    return store_->metrics_snapshot(bounds, now);
  }();
  if (!snapshot) return error_response(snapshot.error());  // counted by the server as answered
  HttpResponse response;
  response.content_type = kTextFormat;
  response.body = metrics_text(*snapshot, bounds, now, counters_);
  return response;
}

}  // namespace orrery::server
