#include "server/http_message.h"

namespace orrery::server {

const std::string& HttpRequest::header(const std::string& lower_case_name) const {
  static const std::string kNone;
  const auto found = headers.find(lower_case_name);
  return found == headers.end() ? kNone : found->second;
}

const std::string* HttpRequest::parameter(const std::string& name) const {
  const auto found = query.find(name);
  return found == query.end() ? nullptr : &found->second;
}

}  // namespace orrery::server
