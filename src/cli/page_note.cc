#include "cli/page_note.h"

#include <algorithm>
#include <iostream>

#include "core/shell_quote.h"
#include "core/token_amount.h"  // format_count

namespace orrery::cli {

Status check_page_options(int limit, int max_limit, int offset) {
  if (limit < 1 || limit > max_limit) {
    return usage_error("--limit " + std::to_string(limit) + ": expected 1 to " +
                       std::to_string(max_limit));
  }
  if (offset < 0) return usage_error("--offset " + std::to_string(offset) + ": expected 0 or more");
  return Ok{};
}

std::string next_page_command(std::string command, int limit, int default_limit,
                              const ListedPage& page) {
  if (limit != default_limit) command += option_word("--limit", std::to_string(limit));
  command += option_word("--offset", std::to_string(std::int64_t(page.offset) + page.shown));
  return command;
}

std::string operand_word(std::string_view value) {
  if (value.empty()) return "";
  std::string word = " ";
  word += shell_quote(value);
  return word;
}

std::string option_word(std::string_view option, std::string_view value) {
  if (value.empty()) return "";
  std::string word = " ";
  word += option;
  word += operand_word(value);
  return word;
}

std::string command_of(std::string_view listing, std::initializer_list<std::string> words) {
  std::string command(listing);
  for (const std::string& word : words) command += word;
  return command;
}

void tell_rest(const Context& context, const ListedPage& page, std::string_view noun,
               const std::string& next_command) {
  if (context.globals.json && context.page != nullptr) {
    context.page->more = page.rest > 0;
    context.page->next_offset = page.offset + page.shown;
    return;
  }
  if (page.rest <= 0) return;
  if (context.globals.json) {
    std::cerr << "orrery: " << format_count(page.rest) << " more " << noun
              << " not shown: " << next_command << " --json\n";
  } else {
    *context.out << format_count(page.rest) << " more: " << next_command << '\n';
  }
}

}  // namespace orrery::cli
