// SPDX-License-Identifier: MIT
// Links with wevtapi (EvtQuery, EvtNext, EvtRender, EvtClose) and advapi32 (RegGetValueW).
#include <doctor/platform/event_log.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <windows.h>
#include <winevt.h>

#include <array>

namespace doctor::platform {

namespace {

constexpr std::size_t k_batch = 64;
constexpr DWORD k_next_timeout_ms = 30'000;
constexpr std::size_t k_max_events = 100'000;

// Closes an event log handle when it goes out of scope.
class EvtHandleGuard {
public:
  explicit EvtHandleGuard(EVT_HANDLE h)
      : m_handle(h) {}
  ~EvtHandleGuard() {
    if (m_handle != nullptr) {
      EvtClose(m_handle);
    }
  }
  EvtHandleGuard(const EvtHandleGuard&) = delete;
  EvtHandleGuard& operator=(const EvtHandleGuard&) = delete;

  EVT_HANDLE get() const { return m_handle; }

private:
  EVT_HANDLE m_handle;
};

ErrorCode code_for(DWORD err) {
  switch (err) {
  case ERROR_EVT_CHANNEL_NOT_FOUND:
  case ERROR_FILE_NOT_FOUND:
    return ErrorCode::not_found;
  case ERROR_ACCESS_DENIED:
    return ErrorCode::permission_denied;
  case ERROR_EVT_INVALID_QUERY:
    return ErrorCode::invalid_argument;
  case ERROR_TIMEOUT:
    return ErrorCode::timeout;
  default:
    return ErrorCode::io;
  }
}

tl::unexpected<Error> win_error(const std::string& what, DWORD err) {
  return make_error(code_for(err),
                    what + ": " + windows::last_error_message(err) + " (error "
                        + std::to_string(err) + ")");
}

// Renders one event as XML; the first call asks for the size (in bytes, of UTF-16 text).
Expected<std::string> render(EVT_HANDLE event) {
  DWORD used = 0;
  DWORD properties = 0;
  if (EvtRender(nullptr, event, EvtRenderEventXml, 0, nullptr, &used, &properties) == FALSE) {
    const DWORD err = GetLastError();
    if (err != ERROR_INSUFFICIENT_BUFFER) {
      return win_error("cannot render an event", err);
    }
  }
  std::wstring buffer(used / sizeof(wchar_t) + 1, L'\0');
  if (EvtRender(nullptr,
                event,
                EvtRenderEventXml,
                static_cast<DWORD>(buffer.size() * sizeof(wchar_t)),
                buffer.data(),
                &used,
                &properties)
      == FALSE) {
    return win_error("cannot render an event", GetLastError());
  }
  buffer.resize(wcsnlen(buffer.c_str(), buffer.size()));
  return windows::narrow(buffer);
}

} // namespace

Expected<std::vector<std::string>>
query_event_log(const std::string& channel, const std::string& xpath, std::size_t max_events) {
  std::vector<std::string> out;
  max_events = max_events < k_max_events ? max_events : k_max_events;
  if (max_events == 0) {
    return out;
  }
  const std::wstring wchannel = windows::widen(channel);
  const std::wstring wquery = windows::widen(xpath.empty() ? std::string("*") : xpath);
  const EvtHandleGuard query(EvtQuery(
      nullptr, wchannel.c_str(), wquery.c_str(), EvtQueryChannelPath | EvtQueryReverseDirection));
  if (query.get() == nullptr) {
    return win_error("cannot query event log " + channel, GetLastError());
  }
  while (out.size() < max_events) {
    std::array<EVT_HANDLE, k_batch> events{};
    const std::size_t want = max_events - out.size() < k_batch ? max_events - out.size() : k_batch;
    DWORD returned = 0;
    if (EvtNext(
            query.get(), static_cast<DWORD>(want), events.data(), k_next_timeout_ms, 0, &returned)
        == FALSE) {
      const DWORD err = GetLastError();
      if (err == ERROR_NO_MORE_ITEMS) {
        break;
      }
      return win_error("cannot read event log " + channel, err);
    }
    Expected<std::string> failed = std::string();
    for (DWORD i = 0; i < returned; ++i) {
      const EvtHandleGuard event(events[i]);
      if (!failed) {
        continue; // close the rest of the batch
      }
      auto xml = render(event.get());
      if (!xml) {
        failed = std::move(xml);
        continue;
      }
      out.push_back(std::move(*xml));
    }
    if (!failed) {
      return tl::unexpected(failed.error());
    }
  }
  return out;
}

Expected<std::optional<std::uint32_t>> read_registry_dword(const std::string& key,
                                                           const std::string& value) {
  const std::wstring wkey = windows::widen(key);
  const std::wstring wvalue = windows::widen(value);
  DWORD data = 0;
  DWORD size = sizeof data;
  const LSTATUS status = RegGetValueW(
      HKEY_LOCAL_MACHINE, wkey.c_str(), wvalue.c_str(), RRF_RT_REG_DWORD, nullptr, &data, &size);
  if (status == ERROR_FILE_NOT_FOUND) {
    return std::optional<std::uint32_t>();
  }
  if (status == ERROR_UNSUPPORTED_TYPE) {
    return make_error(ErrorCode::parse, "HKLM\\" + key + "\\" + value + " is not a REG_DWORD");
  }
  if (status != ERROR_SUCCESS) {
    return win_error("cannot read HKLM\\" + key + "\\" + value, static_cast<DWORD>(status));
  }
  return std::optional<std::uint32_t>(static_cast<std::uint32_t>(data));
}

} // namespace doctor::platform
