// WorkflowCatalog: the versions of each workflow (docs/workflows.md,
// "Versions"). Creating stores a spec as the next version of its name (1
// for a new name), atomically: two creations of one name at once get two
// versions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "core/workflow.h"

namespace orrery {

class WorkflowCatalog {
 public:
  virtual ~WorkflowCatalog() = default;

  virtual Result<Workflow> create_workflow(const WorkflowSpec& spec, const std::string& id,
                                           TimeMs now) = 0;
  virtual Result<std::optional<Workflow>> get_workflow(const std::string& id) = 0;
  // An id (that version), an id prefix of at least 6 characters, or a name
  // (its newest version, or `version`); a version that the id names
  // otherwise, or that the name does not have, is not_found; ambiguity a
  // conflict listing the candidates.
  virtual Result<Workflow> resolve_workflow(const std::string& text,
                                            std::optional<int> version) = 0;
  // By name; each name's newest version, or every version (then newest
  // version first within a name).
  virtual Result<std::vector<Workflow>> list_workflows(bool all_versions) = 0;
};

}  // namespace orrery
