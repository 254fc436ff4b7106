// A loop spec as a document (docs/server.md, "Loops"; docs/apply.md): the
// JSON object `POST /v1/loops`, `PATCH /v1/loops/LOOP` and `orrery apply`
// take, whose keys are the options of `orrery add` in snake_case
// (`--catch-up-limit` is `catch_up_limit`) and whose values are what those
// options take: text for text ("15m", "0 9 * * 1-5"), true/false for flags,
// whole numbers for numbers, lists of text for repeatable options and for
// `command`. `env`, `secret_env` and `machine` also take an object
// {"K": "V"}.
//
// Invariants: an unknown key is refused, naming the closest accepted one;
// a value of the wrong type is refused naming the key; nothing is validated
// beyond the types here — build_loop (core/loop_spec.h) does that, with the
// same messages as the CLI. `no_feed` is accepted only for an edit, `name` only for a creation.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/loop_spec.h"
#include "core/result.h"

namespace orrery {

enum class SpecUse { kCreate, kEdit };

Result<LoopSpec> loop_spec_from_document(const nlohmann::json& document, SpecUse use);

}  // namespace orrery
