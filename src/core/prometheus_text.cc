#include "core/prometheus_text.h"

#include <cmath>
#include <cstdio>

#include "core/text.h"

namespace orrery {
namespace {

// HELP text escapes \ and newline; a label value also ".
std::string escaped(std::string_view text, bool quote) {
  const std::string valid = storable_text(text);
  std::string out;
  out.reserve(valid.size());
  for (const char c : valid) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string label_text(const MetricLabels& labels) {
  if (labels.empty()) return "";
  std::string text = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) text += ",";
    text += labels[i].first;
    text += "=\"";
    text += escaped(labels[i].second, true);
    text += "\"";
  }
  return text + "}";
}

}  // namespace

std::string prometheus_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

void PrometheusText::family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += "# HELP ";
  text_ += name;
  text_ += " ";
  text_ += escaped(help, false);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += " ";
  text_ += type;
  text_ += "\n";
}

void PrometheusText::sample(std::string_view name, const MetricLabels& labels, double value) {
  text_ += name;
  text_ += label_text(labels);
  text_ += " ";
  text_ += prometheus_number(value);
  text_ += "\n";
}

void PrometheusText::histogram(std::string_view name, const MetricLabels& labels,
                               const std::vector<double>& bounds,
                               const std::vector<double>& cumulative, double count, double sum) {
  const std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i < bounds.size() && i < cumulative.size(); ++i) {
    MetricLabels with_bound = labels;
    with_bound.emplace_back("le", prometheus_number(bounds[i]));
    sample(bucket, with_bound, cumulative[i]);
  }
  MetricLabels infinite = labels;
  infinite.emplace_back("le", "+Inf");
  sample(bucket, infinite, count);
  sample(std::string(name) + "_sum", labels, sum);
  sample(std::string(name) + "_count", labels, count);
}

}  // namespace orrery
