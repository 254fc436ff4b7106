// PrometheusText: metrics written in the Prometheus text exposition format
// (version 0.0.4; docs/server.md, "Metrics"): a family's # HELP and # TYPE
// lines, then its samples, one per line.
//
// Invariants: label values are escaped (\\, \" and \n) and made valid UTF-8
// (an invalid byte becomes U+FFFD); a value is written so that it reads back
// exactly (integers without a fraction, NaN and ±Inf by name); a histogram's
// buckets are cumulative and end with le="+Inf" equal to its count.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orrery {

using MetricLabels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // Starts a family: type is counter, gauge or histogram.
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, const MetricLabels& labels, double value);
  // A histogram's samples: `cumulative[i]` observations at or under `bounds[i]`.
  void histogram(std::string_view name, const MetricLabels& labels,
                 const std::vector<double>& bounds, const std::vector<double>& cumulative,
                 double count, double sum);

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A number as the text format writes it.
std::string prometheus_number(double value);

}  // namespace orrery
