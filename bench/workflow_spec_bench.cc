// Micro-benchmarks of parsing and validating workflow specs at the size limits
// (docs/benchmarks.md, "Workflow specs at the limits").
//
// spec_parse/chain: a 1,000-step chain (each step depends on the one before), JSON.
// spec_parse/fan_in_yaml: 999 independent steps and one that depends on all of
//   them, read by the YAML reader.
// spec_parse/dense: 500 steps, each depending on every step before it
//   (124,750 edges), JSON.
// json_floor/...: nlohmann::json::parse of the same text alone, the floor a
//   spec parse cannot beat, measured in the same run.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/workflow.h"
#include "core/workflow_spec.h"

namespace orrery {
namespace {

using nlohmann::json;

// Appended, not "s" + std::to_string(i): GCC 12 at -O3 warns (-Wrestrict)
// on that operator+.
std::string step_id(int i) {
  std::string id = "s";
  id += std::to_string(i);
  return id;
}

json chain(int steps) {
  json spec{{"name", "chain"}, {"steps", json::array()}};
  for (int i = 0; i < steps; ++i) {
    json step{{"id", step_id(i)}, {"target", {{"type", "command"}, {"command", "true"}}}};
    if (i > 0) step["depends_on"] = {step_id(i - 1)};
    spec["steps"].push_back(step);
  }
  return spec;
}

std::string chain_text() { return chain(kMaxWorkflowSteps).dump(); }

std::string fan_in_text() {
  json spec = chain(kMaxWorkflowSteps);
  json all = json::array();
  for (int i = 0; i < kMaxWorkflowSteps - 1; ++i) {
    spec["steps"][size_t(i)].erase("depends_on");
    all.push_back(step_id(i));
  }
  spec["steps"][size_t(kMaxWorkflowSteps - 1)]["depends_on"] = all;
  return spec.dump();
}

std::string dense_text() {
  json spec = chain(500);
  for (int i = 1; i < 500; ++i) {
    json before = json::array();
    for (int j = 0; j < i; ++j) before.push_back(step_id(j));
    spec["steps"][size_t(i)]["depends_on"] = before;
  }
  return spec.dump();
}

void parse_spec(benchmark::State& state, const std::string& text, SpecFormat format) {
  for (auto _ : state) {
    auto spec = parse_workflow_spec(text, format, PathBase{"/work/specs"});
    if (!spec) {
      state.SkipWithError(spec.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(spec->steps.data());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(text.size()));
}

void parse_json_only(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    json document = json::parse(text);
    benchmark::DoNotOptimize(document.size());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(text.size()));
}

void BM_SpecChain(benchmark::State& state) {
  static const std::string text = chain_text();
  parse_spec(state, text, SpecFormat::kJson);
}
void BM_SpecFanInYaml(benchmark::State& state) {
  static const std::string text = fan_in_text();
  parse_spec(state, text, SpecFormat::kYaml);
}
void BM_SpecDense(benchmark::State& state) {
  static const std::string text = dense_text();
  parse_spec(state, text, SpecFormat::kJson);
}
void BM_JsonChain(benchmark::State& state) {
  static const std::string text = chain_text();
  parse_json_only(state, text);
}
void BM_JsonDense(benchmark::State& state) {
  static const std::string text = dense_text();
  parse_json_only(state, text);
}

BENCHMARK(BM_SpecChain)->Name("spec_parse/chain")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonChain)->Name("json_floor/chain")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SpecFanInYaml)->Name("spec_parse/fan_in_yaml")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SpecDense)->Name("spec_parse/dense")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JsonDense)->Name("json_floor/dense")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace orrery

BENCHMARK_MAIN();
