// PrometheusText (src/core/prometheus_text.h): families, escaped labels,
// numbers that read back, cumulative histograms.
#include "core/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace orrery {
namespace {

TEST(PrometheusText, AFamilyHasHelpAndTypeThenItsSamples) {
  PrometheusText text;
  text.family("orrery_runs_total", "counter", "Runs by loop\nand status \\ kept");
  text.sample("orrery_runs_total", {{"loop", "nightly"}, {"status", "succeeded"}}, 3);
  text.sample("orrery_runs_total", {}, 0);
  EXPECT_EQ(text.text(),
            "# HELP orrery_runs_total Runs by loop\\nand status \\\\ kept\n"
            "# TYPE orrery_runs_total counter\n"
            "orrery_runs_total{loop=\"nightly\",status=\"succeeded\"} 3\n"
            "orrery_runs_total 0\n");
}

TEST(PrometheusText, LabelValuesAreEscapedAndMadeValidUtf8) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a\"b", "a\\\"b"},
      {"a\\b", "a\\\\b"},
      {"a\nb", "a\\nb"},
      {"<script>", "<script>"},
      {"\xff", "\xef\xbf\xbd"},
      {std::string("a\0b", 3),
       "a\xef\xbf\xbd"
       "b"},
      {"h\xc3\xa9", "h\xc3\xa9"},
      {"", ""},
  };
  for (const auto& [value, written] : cases) {
    PrometheusText text;
    text.sample("m", {{"name", value}}, 1);
    EXPECT_EQ(text.text(), "m{name=\"" + written + "\"} 1\n") << value;
  }
}

TEST(PrometheusText, NumbersReadBackExactly) {
  EXPECT_EQ(prometheus_number(0), "0");
  EXPECT_EQ(prometheus_number(-7), "-7");
  EXPECT_EQ(prometheus_number(1'780'000'000'000), "1780000000000");
  EXPECT_EQ(prometheus_number(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(prometheus_number(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(prometheus_number(std::nan("")), "NaN");
  for (const double value : {0.1, 0.25, 1.5, 1e-9, 123456.789, 1e20, -3.75, 2.5e15}) {
    EXPECT_EQ(std::strtod(prometheus_number(value).c_str(), nullptr), value) << value;
  }
}

TEST(PrometheusText, AHistogramEndsWithInfinitySumAndCount) {
  PrometheusText text;
  text.histogram("d_seconds", {{"loop", "a"}}, {0.5, 1}, {1, 3}, 4, 7.25);
  EXPECT_EQ(text.text(),
            "d_seconds_bucket{loop=\"a\",le=\"0.5\"} 1\n"
            "d_seconds_bucket{loop=\"a\",le=\"1\"} 3\n"
            "d_seconds_bucket{loop=\"a\",le=\"+Inf\"} 4\n"
            "d_seconds_sum{loop=\"a\"} 7.25\n"
            "d_seconds_count{loop=\"a\"} 4\n");
}

}  // namespace
}  // namespace orrery
