// SPDX-License-Identifier: MIT
#include <doctor/platform/environment.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <windows.h>

namespace doctor::platform {

Environment Environment::of_this_process() {
  std::map<std::string, std::string> vars;
  wchar_t* block = GetEnvironmentStringsW();
  if (block == nullptr) {
    return Environment();
  }
  for (const wchar_t* p = block; *p != L'\0';) {
    const std::wstring_view entry(p);
    p += entry.size() + 1;
    // Entries such as "=C:=C:\dir" start with '=' and are not variables.
    const auto eq = entry.find(L'=', 1);
    if (eq == std::wstring_view::npos || entry.front() == L'=') {
      continue;
    }
    vars.emplace(windows::narrow(entry.substr(0, eq)), windows::narrow(entry.substr(eq + 1)));
  }
  FreeEnvironmentStringsW(block);
  return Environment(std::move(vars));
}

} // namespace doctor::platform
