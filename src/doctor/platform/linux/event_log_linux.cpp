// SPDX-License-Identifier: MIT
#include <doctor/platform/event_log.hpp>

namespace doctor::platform {

Expected<std::vector<std::string>> query_event_log(const std::string& /*channel*/,
                                                   const std::string& /*xpath*/,
                                                   std::size_t /*max_events*/) {
  return make_error(ErrorCode::unsupported, "the Windows event log exists only on Windows");
}

Expected<std::optional<std::uint32_t>> read_registry_dword(const std::string& /*key*/,
                                                           const std::string& /*value*/) {
  return make_error(ErrorCode::unsupported, "the Windows registry exists only on Windows");
}

} // namespace doctor::platform
