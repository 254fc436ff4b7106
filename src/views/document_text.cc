#include "views/document_text.h"

#include "core/exact_json.h"

namespace orrery {

std::string json_text(const nlohmann::json& document) { return write_json(document, 2); }

}  // namespace orrery
