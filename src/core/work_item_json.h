// The JSON the admission queue reads (docs/admission.md, docs/cli.md): the
// enqueue object — one line of `enqueue --from-json`, of a feed loop's
// output or of a POST to a route's items — read into a work item. (The
// documents it writes are views/admission_view.h.)
//
// Invariant: an enqueue object is refused whole, its error naming the
// field, and never half read.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/route.h"
#include "core/work_item.h"

namespace orrery {

// One enqueue object: {"key": TEXT|INTEGER, "priority": N, "project", "group",
// "intent", "subject": {kind, id, path, url} | "KIND[:ID]", "source": {kind,
// id, dedupe_key} | "KIND[:ID]", "dedupe": TEXT, "input": {…}, "scope":
// {…}, "output_policy": {…}}; only "key" is required. An unknown field, a
// value of the wrong type or a value check_item_fields refuses is an error
// naming the field. The item's route is the caller's to set.
Result<WorkItem> parse_enqueue_object(std::string_view text);

// "KIND[:ID]" of --subject and --source: the kind before the first ':', the
// id after it (empty without one); an empty kind is an error naming `field`.
struct KindAndId {
  std::string kind;
  std::string id;
};
Result<KindAndId> parse_kind_and_id(std::string_view text, std::string_view field);

// A JSON text given for `field` (--input, scope, output_policy) checked as
// one object, returned compact; anything else is an error naming the field.
Result<std::string> check_json_object(std::string_view text, std::string_view field);

}  // namespace orrery
