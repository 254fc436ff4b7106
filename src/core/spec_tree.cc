#include "core/spec_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <charconv>
#include <sstream>
#include <vector>

#include "core/exact_json.h"
#include "core/text.h"

namespace orrery {
namespace {

using nlohmann::json;

std::string nesting_message() {
  return "the spec nests arrays and objects more than " + std::to_string(kMaxSpecNesting) + " deep";
}

// The containers open while a tree is built, and where the next value goes.
// Pointers stay valid: a container is only added to while it is the top.
class TreeBuilder {
 public:
  // Where the value being added goes, for messages: "steps[2].target".
  std::string path() const {
    std::string text;
    for (size_t i = 0; i < stack_.size(); ++i) {
      const Frame& frame = stack_[i];
      const bool child_open = i + 1 < stack_.size();
      if (frame.value->is_array()) {
        text += '[';
        text += std::to_string(frame.value->size() - (child_open ? 1 : 0));
        text += ']';
      } else if (child_open || frame.has_key) {
        if (!text.empty()) text += '.';
        text += visible(frame.key);
      }
    }
    return text;
  }

  bool expecting_key() const {
    return !stack_.empty() && stack_.back().value->is_object() && !stack_.back().has_key;
  }

  // Empty when the key is new in its object, else the message.
  std::string add_key(std::string key) {
    Frame& top = stack_.back();
    if (top.value->contains(key)) {
      const std::string where = path();
      return (where.empty() ? "" : where + ": ") + "the key '" + visible(key) + "' is given twice";
    }
    top.key = std::move(key);
    top.has_key = true;
    return "";
  }

  // Adds a value (a container is then open); false when nested too deep.
  bool add(json value) {
    json* placed = place(std::move(value));
    if (placed->is_structured()) {
      if (stack_.size() >= size_t(kMaxSpecNesting)) return false;
      stack_.push_back({placed, "", false});
    }
    return true;
  }

  void close() { stack_.pop_back(); }
  bool done() const { return stack_.empty() && has_root_; }
  json take() { return std::move(root_); }

 private:
  struct Frame {
    json* value;
    std::string key;
    bool has_key;
  };

  json* place(json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      has_root_ = true;
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.value->is_array()) {
      top.value->push_back(std::move(value));
      return &top.value->back();
    }
    json* slot = &(*top.value)[top.key];
    *slot = std::move(value);
    top.has_key = false;
    return slot;
  }

  json root_;
  bool has_root_ = false;
  std::vector<Frame> stack_;
};

// nlohmann's SAX interface onto a TreeBuilder; the parser itself is not
// recursive, so the depth limit here is enough.
class JsonSax {
 public:
  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(json::number_integer_t value) { return add(value); }
  bool number_unsigned(json::number_unsigned_t value) { return add(value); }
  bool number_float(json::number_float_t value, const std::string& text) {
    return add(exact_number(value, text));
  }
  bool string(std::string& value) { return add(std::move(value)); }
  bool binary(json::binary_t&) { return fail("binary values are not JSON"); }
  bool start_object(size_t) { return add(json::object()); }
  bool start_array(size_t) { return add(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& key) {
    std::string problem = builder_.add_key(std::move(key));
    return problem.empty() || fail(problem);
  }
  bool parse_error(size_t position, const std::string& token,
                   const nlohmann::detail::exception& error) {
    // position counts the bytes read, the offending one included.
    const size_t offset = position == 0 ? 0 : position - 1;
    if (error.id == kNumberOverflow) {
      error_ = "the number " + visible(token) + " at " + line_and_column(text_, offset) +
               " is beyond what can be read (at most about ±1.8e308)";
      return false;
    }
    // The offending line up to the error, for context.
    const size_t end = std::min(offset + 1, text_.size());
    const size_t newline = text_.substr(0, end).rfind('\n');
    const size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
    std::string_view line = trim(text_.substr(begin, end - begin));
    if (line.size() > 20) line = line.substr(line.size() - 20);
    error_ = "JSON syntax error at " + line_and_column(text_, offset) +
             (line.empty() ? "" : " (near '" + visible(line) + "')");
    return false;
  }

  explicit JsonSax(std::string_view text) : text_(text) {}
  // The library's error id of a number beyond a double's range (1e400).
  static constexpr int kNumberOverflow = 406;
  const std::string& error() const { return error_; }
  json take() { return builder_.take(); }

 private:
  bool add(json value) { return builder_.add(std::move(value)) || fail(nesting_message()); }
  bool close() {
    builder_.close();
    return true;
  }
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  std::string_view text_;
  TreeBuilder builder_;
  std::string error_;
};

// Thrown by the YAML event handler to stop the parser.
struct YamlRefusal {
  std::string message;
};

std::string at_mark(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return " at line " + std::to_string(mark.line + 1) + ", column " +
         std::to_string(mark.column + 1);
}

bool is_one_of(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* word : words) {
    if (text == word) return true;
  }
  return false;
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// [-+]? (digits | digits? . digits) ([eE] [-+]? digits)?, at least one digit.
bool is_decimal(std::string_view text) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  const size_t exponent = text.find_first_of("eE", i);
  const std::string_view mantissa = text.substr(i, exponent - i);
  const size_t point = mantissa.find('.');
  const std::string_view whole = mantissa.substr(0, point);
  const std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : mantissa.substr(point + 1);
  if (!(all_digits(whole) || whole.empty()) || !(all_digits(fraction) || fraction.empty())) {
    return false;
  }
  if (whole.empty() && fraction.empty()) return false;
  if (exponent == std::string_view::npos) return true;
  std::string_view power = text.substr(exponent + 1);
  if (!power.empty() && (power[0] == '-' || power[0] == '+')) power.remove_prefix(1);
  return all_digits(power);
}

// A plain (unquoted) scalar under the YAML 1.2 core schema.
json plain_scalar(const std::string& text) {
  if (is_one_of(text, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (is_one_of(text, {"true", "True", "TRUE"})) return true;
  if (is_one_of(text, {"false", "False", "FALSE"})) return false;
  const std::string_view digits =
      std::string_view(text).substr((text[0] == '-' || text[0] == '+') ? 1 : 0);
  if (all_digits(digits)) {
    std::int64_t value = 0;
    const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
    auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return value;
  }
  if (is_decimal(text)) {
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    double value = 0;
    if (in >> value) return exact_number(value, text);
  }
  return text;
}

// yaml-cpp's events onto a TreeBuilder.
class YamlHandler : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    if (builder_.expecting_key()) refuse(mark, "a key cannot be empty");
    add(mark, nullptr);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    refuse(mark, "YAML aliases (*name) are not accepted in spec files; write the value out");
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                const std::string& value) override {
    check_tag(mark, tag);
    if (builder_.expecting_key()) {
      std::string problem = builder_.add_key(value);
      if (!problem.empty()) throw YamlRefusal{problem + at_mark(mark)};
      return;
    }
    add(mark, tag == "?" ? plain_scalar(value) : json(value));
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, json::array());
  }
  void OnSequenceEnd() override { builder_.close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, json::object());
  }
  void OnMapEnd() override { builder_.close(); }

  bool done() const { return builder_.done(); }
  json take() { return builder_.take(); }

 private:
  [[noreturn]] void refuse(const YAML::Mark& mark, const std::string& what) {
    const std::string where = builder_.path();
    throw YamlRefusal{(where.empty() ? "" : where + ": ") + what + at_mark(mark)};
  }
  void check_tag(const YAML::Mark& mark, const std::string& tag) {
    if (tag != "?" && tag != "!" && !tag.empty()) {
      refuse(mark, "the YAML tag '" + visible(tag) + "' is not accepted in spec files");
    }
  }
  void open(const YAML::Mark& mark, const std::string& tag, json container) {
    check_tag(mark, tag);
    if (builder_.expecting_key()) refuse(mark, "a key must be text, not a list or a mapping");
    add(mark, std::move(container));
  }
  void add(const YAML::Mark& mark, json value) {
    if (!builder_.add(std::move(value))) throw YamlRefusal{nesting_message() + at_mark(mark)};
  }

  TreeBuilder builder_;
};

}  // namespace

std::string line_and_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

Result<nlohmann::json> json_spec_tree(std::string_view text) {
  JsonSax sax(text);
  const bool parsed = json::sax_parse(text, &sax, json::input_format_t::json, true, false);
  if (!parsed) return usage_error(sax.error());
  return sax.take();
}

Result<nlohmann::json> yaml_spec_tree(std::string_view text) {
  std::istringstream in{std::string(text)};
  YamlHandler handler;
  try {
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(handler) || !handler.done()) {
      return usage_error("the spec file holds no YAML document");
    }
    YamlHandler second;
    if (parser.HandleNextDocument(second)) {
      return usage_error("the spec file holds more than one YAML document; give one");
    }
  } catch (const YamlRefusal& refusal) {
    return usage_error(refusal.message);
  } catch (const YAML::Exception& error) {
    return usage_error("YAML syntax error" + at_mark(error.mark) + ": " + error.msg);
  }
  return handler.take();
}

}  // namespace orrery
