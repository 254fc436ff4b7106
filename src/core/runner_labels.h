// Runner labels and the --machine selector (docs/cli.md, "Runner labels").
//
// A runner (`orrery daemon`) has labels LABEL=VALUE: those given with
// --label, and always host=<its host name>. A loop's --machine selector is a
// list of labels; a runner may run the loop when every label of the selector
// is among its own (an empty selector: any runner).
//
// Both follow one rule: a LABEL of 1 to kMaxLabelKeyBytes ASCII letters,
// digits, '.', '_' and '-'; a VALUE of 1 to kMaxLabelValueBytes bytes of
// valid UTF-8 with no control character, space or ','; at most kMaxLabels
// labels (a runner's host= included); a label given twice counts once, a
// LABEL given with two values is an error. Pure functions; errors name the
// option and the value.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/loop.h"
#include "core/result.h"

namespace orrery {

// A runner's labels, LABEL -> VALUE: each LABEL once, in order.
using RunnerLabels = std::map<std::string, std::string>;

// One LABEL=VALUE given to `option` (e.g. "--machine", "--label").
Result<EnvVar> parse_label(const std::string& text, std::string_view option);

// The labels given to `option`, each once, in the order given.
Result<std::vector<EnvVar>> parse_label_list(const std::vector<std::string>& texts,
                                             std::string_view option);

// The labels of a runner on `hostname`: `given` (--label) and host=<hostname>.
// A given host= label other than the host name is an error.
Result<RunnerLabels> runner_labels_of(const std::vector<std::string>& given,
                                      const std::string& hostname);

// Whether every label of `selector` (a loop's --machine) is among the runner's.
bool runner_may_run(const RunnerLabels& runner, const std::vector<EnvVar>& selector);

// The stored form: LABEL=VALUE sorted by LABEL, joined by ','; "" for none.
std::string labels_text(const RunnerLabels& labels);
// The labels of a stored form; an internal error when it is not one.
Result<RunnerLabels> parse_labels_text(const std::string& text);

}  // namespace orrery
