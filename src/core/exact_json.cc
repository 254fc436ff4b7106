#include "core/exact_json.h"

#include <cstdint>
#include <vector>

namespace orrery {
namespace {

using Json = nlohmann::json;

// A kept number is a binary value of this subtype holding the number's text:
// no JSON text reads as a binary value, so none can pose as a kept number.
constexpr std::uint64_t kKeptNumberSubtype = 0x6b;

template <typename Document>
std::string library_text(const Document& value) {
  return value.dump(-1, ' ', false, Document::error_handler_t::replace);
}

// The library's document builder, except that a number whose text the double
// it parsed to would not write back is kept as that text.
template <typename Document>
class KeepingNumbers : public nlohmann::detail::json_sax_dom_parser<Document> {
  using Builder = nlohmann::detail::json_sax_dom_parser<Document>;

 public:
  explicit KeepingNumbers(Document& root) : Builder(root, false) {}

  bool number_float(double value, const std::string& text) {
    if (library_text(Document(value)) == text || !is_json_number_text(text)) {
      return Builder::number_float(value, text);
    }
    typename Document::binary_t kept(std::vector<std::uint8_t>(text.begin(), text.end()),
                                     kKeptNumberSubtype);
    return Builder::binary(kept);
  }
};

template <typename Document>
bool is_kept(const Document& value) {
  return value.is_binary() && value.get_binary().has_subtype() &&
         value.get_binary().subtype() == kKeptNumberSubtype;
}

template <typename Document>
bool holds_kept_number(const Document& value) {
  if (is_kept(value)) return true;
  if (!value.is_structured()) return false;
  for (const Document& part : value) {
    if (holds_kept_number(part)) return true;
  }
  return false;
}

void new_line(int indent, int level, std::string& out) {
  if (indent < 0) return;
  out += '\n';
  out.append(std::size_t(indent) * std::size_t(level), ' ');
}

template <typename Document>
void write_value(const Document& value, int indent, int level, std::string& out);

// An object or an array laid out as the library lays it out.
template <typename Document>
void write_structured(const Document& value, int indent, int level, std::string& out) {
  const bool object = value.is_object();
  if (value.empty()) {
    out += object ? "{}" : "[]";
    return;
  }
  out += object ? '{' : '[';
  bool first = true;
  for (auto part = value.begin(); part != value.end(); ++part) {
    if (!first) out += ',';
    first = false;
    new_line(indent, level + 1, out);
    if (object) {
      out += library_text(Document(part.key()));
      out += indent < 0 ? ":" : ": ";
    }
    write_value(part.value(), indent, level + 1, out);
  }
  new_line(indent, level, out);
  out += object ? '}' : ']';
}

template <typename Document>
void write_value(const Document& value, int indent, int level, std::string& out) {
  if (is_kept(value)) {
    const auto& bytes = value.get_binary();
    out.append(bytes.begin(), bytes.end());
  } else if (value.is_structured()) {
    write_structured(value, indent, level, out);
  } else {
    out += library_text(value);
  }
}

template <typename Document>
Document read_document(std::string_view text) {
  Document root;
  KeepingNumbers<Document> builder(root);
  const bool read = Document::sax_parse(text, &builder);
  if (!read || builder.is_errored()) return Document(Document::value_t::discarded);
  return root;
}

template <typename Document>
std::string write_document(const Document& value, int indent) {
  if (!holds_kept_number(value)) {
    return value.dump(indent, ' ', false, Document::error_handler_t::replace);
  }
  std::string out;
  write_value(value, indent, 0, out);
  return out;
}

}  // namespace

Json read_json(std::string_view text) { return read_document<Json>(text); }

nlohmann::ordered_json read_ordered_json(std::string_view text) {
  return read_document<nlohmann::ordered_json>(text);
}

std::string write_json(const Json& value, int indent) { return write_document(value, indent); }

std::string write_json(const nlohmann::ordered_json& value, int indent) {
  return write_document(value, indent);
}

bool is_kept_number(const Json& value) { return is_kept(value); }

std::string kept_number_text(const Json& value) {
  if (!is_kept_number(value)) return "";
  const auto& bytes = value.get_binary();
  return std::string(bytes.begin(), bytes.end());
}

bool is_json_number_text(std::string_view text) {
  std::size_t at = 0;
  auto digits = [&] {
    const std::size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    return at > start;
  };
  if (at < text.size() && text[at] == '-') ++at;
  if (at < text.size() && text[at] == '0') {
    ++at;
  } else if (!digits()) {
    return false;
  }
  if (at < text.size() && text[at] == '.') {
    ++at;
    if (!digits()) return false;
  }
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (!digits()) return false;
  }
  return at == text.size();
}

bool is_whole_number_text(std::string_view text) {
  const std::size_t start = text.starts_with('-') ? 1 : 0;
  return text.size() > start && text.find_first_not_of("0123456789", start) == std::string::npos;
}

Json exact_number(double value, std::string_view text) {
  if (library_text(Json(value)) == text || !is_json_number_text(text)) return Json(value);
  return Json::binary(std::vector<std::uint8_t>(text.begin(), text.end()), kKeptNumberSubtype);
}

std::string json_type_name(const Json& value) {
  return is_kept_number(value) ? "number" : value.type_name();
}

Json with_kept_numbers_as_text(Json value) {
  if (is_kept_number(value)) return Json(kept_number_text(value));
  if (value.is_structured()) {
    for (Json& part : value) part = with_kept_numbers_as_text(std::move(part));
  }
  return value;
}

}  // namespace orrery
