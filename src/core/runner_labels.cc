#include "core/runner_labels.h"

#include <algorithm>

#include "core/limits.h"
#include "core/text.h"

namespace orrery {
namespace {

bool is_key_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// A space, ',' (the separator of the stored form), or a C0, DEL or C1
// control at `i` of valid UTF-8.
bool is_refused_in_value(std::string_view value, size_t i) {
  const auto c = static_cast<unsigned char>(value[i]);
  if (c <= 0x20 || c == 0x7f || c == ',') return true;
  // U+0080-U+009F are 0xC2 0x80-0x9F.
  return c == 0xc2 && i + 1 < value.size() && static_cast<unsigned char>(value[i + 1]) <= 0x9f;
}

std::string quoted(std::string_view option, std::string_view text) {
  return std::string(option) + " '" + visible(text) + "'";
}

Status check_key(const std::string& text, const std::string& key, std::string_view option) {
  if (key.size() > kMaxLabelKeyBytes) {
    return usage_error(quoted(option, text) + ": the label is " + std::to_string(key.size()) +
                       " bytes long; at most " + std::to_string(kMaxLabelKeyBytes) +
                       " are allowed");
  }
  for (char c : key) {
    if (!is_key_character(c)) {
      return usage_error(quoted(option, text) + ": the label '" + visible(key) +
                         "' may contain only ASCII letters, digits, '.', '_' and '-'");
    }
  }
  return Ok{};
}

Status check_value(const std::string& text, const std::string& value, std::string_view option) {
  if (value.empty()) {
    return usage_error(quoted(option, text) + ": the value is empty; expected LABEL=VALUE");
  }
  if (value.size() > kMaxLabelValueBytes) {
    return usage_error(quoted(option, text) + ": the value is " + std::to_string(value.size()) +
                       " bytes long; at most " + std::to_string(kMaxLabelValueBytes) +
                       " are allowed");
  }
  for (size_t i = 0; i < value.size(); ++i) {
    if (is_refused_in_value(value, i)) {
      return usage_error(quoted(option, text) +
                         ": a value cannot contain a space, a ',' or a control character");
    }
  }
  return Ok{};
}

// `label` added to `labels` unless already there; its LABEL with another
// VALUE is an error.
Status add_label(const EnvVar& label, std::string_view option, std::vector<EnvVar>& labels) {
  for (const EnvVar& known : labels) {
    if (known.first != label.first) continue;
    if (known.second == label.second) return Ok{};
    return usage_error(std::string(option) + " gives the label " + label.first + " two values, '" +
                       visible(known.second) + "' and '" + visible(label.second) +
                       "'; give each label once");
  }
  labels.push_back(label);
  return Ok{};
}

Status check_count(size_t count, std::string_view what) {
  if (count <= size_t(kMaxLabels)) return Ok{};
  return usage_error(std::string(what) + " has " + std::to_string(count) + " labels; at most " +
                     std::to_string(kMaxLabels) + " are allowed");
}

}  // namespace

Result<EnvVar> parse_label(const std::string& text, std::string_view option) {
  if (auto valid = check_utf8(text, option); !valid) return valid.error();
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    return usage_error(quoted(option, text) + ": expected LABEL=VALUE");
  }
  EnvVar label{text.substr(0, equals), text.substr(equals + 1)};
  if (auto key = check_key(text, label.first, option); !key) return key.error();
  if (auto value = check_value(text, label.second, option); !value) return value.error();
  return label;
}

Result<std::vector<EnvVar>> parse_label_list(const std::vector<std::string>& texts,
                                             std::string_view option) {
  std::vector<EnvVar> labels;
  for (const std::string& text : texts) {
    auto label = parse_label(text, option);
    if (!label) return label.error();
    if (auto added = add_label(*label, option, labels); !added) return added.error();
  }
  if (auto count = check_count(labels.size(), option); !count) return count.error();
  return labels;
}

Result<RunnerLabels> runner_labels_of(const std::vector<std::string>& given,
                                      const std::string& hostname) {
  auto host = parse_label("host=" + hostname, "this machine's host name as a label");
  if (!host) return host.error();
  auto labels = parse_label_list(given, "--label");
  if (!labels) return labels.error();
  for (const EnvVar& label : *labels) {
    if (label.first == "host" && label.second != hostname) {
      return usage_error("--label host=" + visible(label.second) +
                         " differs from this machine's host name '" + visible(hostname) +
                         "'; a runner's host label is always its host name (leave host= out)");
    }
  }
  RunnerLabels runner(labels->begin(), labels->end());
  runner.insert(*host);
  if (runner.size() > size_t(kMaxLabels)) {
    return usage_error("--label gives " + std::to_string(runner.size() - 1) +
                       " labels besides host=; a runner has at most " + std::to_string(kMaxLabels) +
                       " labels, host= included");
  }
  return runner;
}

bool runner_may_run(const RunnerLabels& runner, const std::vector<EnvVar>& selector) {
  for (const auto& [key, value] : selector) {
    const auto found = runner.find(key);
    if (found == runner.end() || found->second != value) return false;
  }
  return true;
}

std::string labels_text(const RunnerLabels& labels) {
  std::string text;
  for (const auto& [key, value] : labels) {
    if (!text.empty()) text += ',';
    text += key + '=' + value;
  }
  return text;
}

Result<RunnerLabels> parse_labels_text(const std::string& text) {
  std::vector<std::string> parts;
  for (size_t begin = 0; !text.empty() && begin <= text.size();) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    parts.push_back(text.substr(begin, comma - begin));
    begin = comma + 1;
  }
  auto labels = parse_label_list(parts, "the stored runner labels");
  if (!labels) return internal_error(labels.error().message);
  RunnerLabels parsed(labels->begin(), labels->end());
  if (labels_text(parsed) != text) {
    return internal_error("the stored runner labels '" + visible(text) +
                          "' are not sorted by label with each label once");
  }
  return parsed;
}

}  // namespace orrery
