// Work item commands (docs/admission.md, docs/cli.md): `orrery enqueue`
// (one item from options, or one per line with --from-json), `orrery items`
// and `orrery item show | requeue | cancel`.
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"

namespace orrery::cli {

struct ItemArgs {
  std::string route;  // enqueue's ROUTE; items --route
  std::string key;
  std::optional<int> priority;
  std::string project;
  std::string group;
  std::optional<std::string> intent;
  std::optional<std::string> subject;
  std::optional<std::string> subject_path;
  std::optional<std::string> subject_url;
  std::optional<std::string> source;
  std::optional<std::string> dedupe;
  std::optional<std::string> input;
  std::optional<std::string> scope;
  std::optional<std::string> output_policy;
  std::optional<std::string> from_json;  // FILE or -
  std::optional<std::string> object;     // one enqueue object's JSON text (the API)
  std::string status;                    // items
  int limit = 100;                       // items
  int offset = 0;                        // items
  std::string item;                      // item show | requeue | cancel
  std::optional<std::string> reason;     // requeue, cancel
};

Result<int> enqueue_command(const ItemArgs& args, const Context& context);
Result<int> list_items_command(const ItemArgs& args, const Context& context);
Result<int> show_item_command(const ItemArgs& args, const Context& context);
Result<int> requeue_item_command(const ItemArgs& args, const Context& context);
Result<int> cancel_item_command(const ItemArgs& args, const Context& context);

}  // namespace orrery::cli
