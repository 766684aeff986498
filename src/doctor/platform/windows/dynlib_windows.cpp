// SPDX-License-Identifier: MIT
#include <doctor/platform/dynlib.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <string>
#include <utility>

namespace doctor::platform {

namespace {

// "C:\x", "C:/x", "\\server\share\x".
bool is_absolute(const std::string& name) {
  return (name.size() > 2 && name[1] == ':' && (name[2] == '\\' || name[2] == '/'))
         || name.starts_with("\\\\");
}

} // namespace

// A library named by its full path (the file the parent's loader model chose) is loaded with its
// own folder searched for its imports (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR: cudnn64_9.dll's
// cudnn_graph64_9.dll, cublas64_12.dll's cublasLt64_12.dll) besides the process's default
// directories, which a confined child narrowed to System32 (platform::confine_child). The folder
// is also added to those default directories (AddDllDirectory), as a framework adds its own
// (torch's os.add_dll_directory of torch\lib): a library that opens its siblings by name while it
// runs (cuDNN 9's sub-libraries, zlibwapi.dll for cuDNN 8) finds them as it would there. A bare
// name gets the process's default search.
Expected<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  const bool absolute = is_absolute(name);
  std::wstring wide = windows::widen(name);
  if (absolute) {
    for (wchar_t& c : wide) {
      c = c == L'/' ? L'\\' : c;
    }
    if (const std::size_t slash = wide.find_last_of(L'\\'); slash != std::wstring::npos) {
      (void)AddDllDirectory(wide.substr(0, slash).c_str()); // no folder: the load below says why
    }
  }
  const DWORD flags =
      absolute ? LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS : 0;
  HMODULE handle = LoadLibraryExW(wide.c_str(), nullptr, flags);
  if (handle == nullptr) {
    const DWORD code = GetLastError();
    return make_error(
        ErrorCode::not_found,
        fmt::format("{}: LoadLibrary error {}: {}", name, code, windows::last_error_message(code)));
  }
  DynamicLibrary lib;
  lib.m_handle = handle;
  lib.m_name = name;
  return lib;
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr))
    , m_name(std::move(other.m_name)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (m_handle != nullptr) {
      FreeLibrary(static_cast<HMODULE>(m_handle));
    }
    m_handle = std::exchange(other.m_handle, nullptr);
    m_name = std::move(other.m_name);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (m_handle != nullptr) {
    FreeLibrary(static_cast<HMODULE>(m_handle));
  }
}

void* DynamicLibrary::symbol(const char* symbol) const {
  if (m_handle == nullptr) {
    return nullptr;
  }
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(m_handle), symbol));
}

std::string DynamicLibrary::path() const {
  wchar_t buf[MAX_PATH * 2];
  const DWORD n = GetModuleFileNameW(static_cast<HMODULE>(m_handle), buf, MAX_PATH * 2);
  return n > 0 ? windows::narrow(std::wstring_view(buf, n)) : m_name;
}

} // namespace doctor::platform
