// A listing's page, told whole: nothing a listing leaves out is left out
// silently (docs/cli.md, "Pages"). After a full page, people read
// "13 more: orrery items --offset 100" under the table; a --json caller gets
// the array alone on stdout and the same note, with --json, on stderr — or, for
// a caller that pages itself (Context::page, the HTTP API), the next offset.
//
// Invariant: the rest is counted with the listing's own filter, so "N more"
// is the number of rows the next pages hold as the store stood when asked.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "cli/command.h"
#include "core/result.h"
#include "ops/page.h"

namespace orrery::cli {

using ops::listed_page;
using ops::ListedPage;

// --limit within 1..max_limit and --offset not negative, or what was wrong.
Status check_page_options(int limit, int max_limit, int offset);

// `command` (the listing and its filters) with --limit when it is not the
// default and --offset of the next page.
std::string next_page_command(std::string command, int limit, int default_limit,
                              const ListedPage& page);

// " --OPTION VALUE", the value quoted for a shell when it needs to be; ""
// when the value is empty.
std::string option_word(std::string_view option, std::string_view value);
// " VALUE" quoted the same way, for an operand; "" when it is empty.
std::string operand_word(std::string_view value);
// `listing` followed by `words` (made by option_word and operand_word).
std::string command_of(std::string_view listing, std::initializer_list<std::string> words);

// Tells what follows the page (nothing when it is the last): `noun` names the
// rows ("items", "goals").
void tell_rest(const Context& context, const ListedPage& page, std::string_view noun,
               const std::string& next_command);

}  // namespace orrery::cli
