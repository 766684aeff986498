// SPDX-License-Identifier: MIT
// The Windows event log and registry, read-only: what the `crashes` command needs on a live
// Windows machine. Other systems return ErrorCode::unsupported.
#pragma once

#include <doctor/util/error.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace doctor::platform {

// Returns the rendered XML of the newest `max_events` events of `channel` ("System") matching the
// XPath query `xpath` ("*" for all), newest first (EvtQuery + EvtNext + EvtRender). Returns
// not_found for an unknown channel, permission_denied when the channel may not be read, and
// ErrorCode::unsupported on systems other than Windows.
Expected<std::vector<std::string>>
query_event_log(const std::string& channel, const std::string& xpath, std::size_t max_events);

// Returns a REG_DWORD under HKEY_LOCAL_MACHINE (`key` like
// "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers"), nullopt if the key or value is absent;
// an error if the value has another type or cannot be read. ErrorCode::unsupported on systems
// other than Windows.
Expected<std::optional<std::uint32_t>> read_registry_dword(const std::string& key,
                                                           const std::string& value);

} // namespace doctor::platform
