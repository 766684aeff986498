// SPDX-License-Identifier: MIT
#include <doctor/platform/console.hpp>
#include <doctor/platform/windows/wide.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>

namespace doctor::platform {

namespace {

// WriteConsoleW is given at most this many UTF-16 units at a time: consoles before Windows 8
// refused a single write above ~64 KiB of buffer.
constexpr std::size_t k_max_units = 8192;

// What write_console held back for each stream: the start of a UTF-8 sequence whose remaining
// bytes come with the next write. Process-wide, as the standard streams are; guarded, since any
// thread may write.
struct PendingBytes {
  std::mutex mutex;
  std::string bytes[2];
};

PendingBytes& pending_bytes() {
  static PendingBytes pending;
  return pending;
}

DWORD std_handle_id(StandardStream stream) {
  return stream == StandardStream::out ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE;
}

// The console handle of `stream`, or nullptr when the stream is a file, a pipe, NUL or absent.
HANDLE console_of(StandardStream stream) {
  HANDLE handle = GetStdHandle(std_handle_id(stream));
  DWORD mode = 0;
  if (handle == nullptr || handle == INVALID_HANDLE_VALUE || GetConsoleMode(handle, &mode) == 0) {
    return nullptr;
  }
  return handle;
}

Expected<void> write_units(HANDLE console, StandardStream stream, std::wstring_view units) {
  while (!units.empty()) {
    std::size_t n = std::min(units.size(), k_max_units);
    // Never split a surrogate pair between two writes.
    if (n < units.size() && n > 1 && units[n - 1] >= 0xD800 && units[n - 1] <= 0xDBFF) {
      --n;
    }
    DWORD written = 0;
    if (WriteConsoleW(console, units.data(), static_cast<DWORD>(n), &written, nullptr) == 0
        || written == 0) {
      const DWORD err = GetLastError();
      return make_error(
          ErrorCode::io,
          fmt::format("{}: cannot write to the console: {}",
                      stream == StandardStream::out ? "standard output" : "standard error",
                      windows::last_error_message(err)));
    }
    units.remove_prefix(std::min<std::size_t>(written, n));
  }
  return {};
}

} // namespace

Expected<bool> write_console(StandardStream stream, std::string_view text) {
  HANDLE console = console_of(stream);
  if (console == nullptr) {
    return false;
  }
  // Bytes another writer left in the C library's buffer go first, so the order holds.
  std::fflush(stream == StandardStream::out ? stdout : stderr);
  PendingBytes& pending = pending_bytes();
  const std::lock_guard lock(pending.mutex);
  std::string& held = pending.bytes[stream == StandardStream::out ? 0 : 1];
  std::string joined = std::move(held);
  joined.append(text);
  const std::size_t complete = util::utf8_complete_prefix(joined);
  held = joined.substr(complete);
  joined.resize(complete);
  if (auto ok = write_units(console, stream, windows::widen(joined)); !ok) {
    return tl::unexpected(ok.error());
  }
  return true;
}

Expected<void> flush_console(StandardStream stream) {
  HANDLE console = console_of(stream);
  if (console == nullptr) {
    return {};
  }
  PendingBytes& pending = pending_bytes();
  const std::lock_guard lock(pending.mutex);
  std::string& held = pending.bytes[stream == StandardStream::out ? 0 : 1];
  if (held.empty()) {
    return {};
  }
  const std::string bytes = std::move(held);
  held.clear();
  return write_units(console, stream, windows::widen(bytes));
}

} // namespace doctor::platform
