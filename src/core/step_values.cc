#include "core/step_values.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/exact_json.h"
#include "core/text.h"

namespace orrery {
namespace {

using Json = nlohmann::ordered_json;

bool is_key_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

bool is_key_char(char c) {
  return is_key_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

bool is_valid_key(std::string_view key) {
  if (key.empty() || key.size() > kMaxStepOutputKeyBytes || !is_key_start(key[0])) return false;
  for (const char c : key) {
    if (!is_key_char(c)) return false;
  }
  return true;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

Error line_error(size_t number, const std::string& problem) {
  return usage_error("ORRERY_OUTPUT line " + std::to_string(number) + ": " + problem);
}

Json outputs_object(const std::string& outputs_json) {
  Json outputs = read_ordered_json(outputs_json);
  if (outputs.is_discarded() || !outputs.is_object()) return Json::object();
  return outputs;
}

}  // namespace

Result<std::string> parse_step_outputs(std::string_view file_text) {
  if (file_text.size() > kMaxStepOutputBytes)
    return usage_error("ORRERY_OUTPUT holds " + std::to_string(file_text.size()) +
                       " bytes; at most " + std::to_string(kMaxStepOutputBytes) +
                       " (256 KiB) are accepted");
  const std::string text = storable_text(file_text);
  Json values = Json::object();
  size_t number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_blank(line) || line.front() == '#') continue;
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos)
      return line_error(number, visible(line) + " has no '='; each line is KEY=VALUE");
    const std::string key(line.substr(0, equals));
    if (!is_valid_key(key))
      return line_error(number, "key '" + visible(key) +
                                    "' is not valid: a key is a letter or '_' then up to 127 "
                                    "letters, digits, '_', '.' or '-'");
    if (!values.contains(key) && values.size() == kMaxStepOutputKeys)
      return line_error(number, "more than " + std::to_string(kMaxStepOutputKeys) +
                                    " keys; at most " + std::to_string(kMaxStepOutputKeys) +
                                    " are accepted");
    values[key] = std::string(line.substr(equals + 1));
  }
  return write_json(values);
}

std::string steps_document(const WorkflowSpec& spec, const std::vector<StepRun>& steps) {
  std::unordered_map<std::string_view, const StepRun*> finished;
  for (const StepRun& step : steps) {
    if (is_finished(step.status)) finished.emplace(step.step_id, &step);
  }
  Json document = Json::object();
  for (const WorkflowStep& spec_step : spec.steps) {
    const auto found = finished.find(spec_step.id);
    if (found == finished.end()) continue;
    const StepRun& step = *found->second;
    Json entry = Json::object();
    entry["status"] = step_status_name(step.status);
    entry["exit_code"] = step.exit_code ? Json(*step.exit_code) : Json(nullptr);
    entry["outputs"] = outputs_object(step.outputs_json);
    document[step.step_id] = std::move(entry);
  }
  return write_json(document);
}

}  // namespace orrery
