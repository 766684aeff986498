// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <memory>
#include <string>

namespace doctor::platform {

// A library opened at run time (dlopen / LoadLibrary). Everything the doctor calls in NVIDIA's
// libraries goes through one of these, inside an isolated child process, never linked; so does
// libcrypto, a system library, in the doctor's own process, the first time a digest is asked for.
class DynamicLibrary {
public:
  // Opens `name` with the platform loader's normal search. Returns an error carrying the loader's
  // own message (dlerror / GetLastError) if it cannot be opened.
  static Expected<DynamicLibrary> open(const std::string& name);

  DynamicLibrary(DynamicLibrary&&) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&&) noexcept;
  ~DynamicLibrary();

  // Returns the address of `symbol`, or nullptr if the library does not export it.
  void* symbol(const char* symbol) const;

  // Returns the file the loader picked, or the requested name if the platform cannot tell.
  std::string path() const;

private:
  DynamicLibrary() = default;
  void* m_handle = nullptr;
  std::string m_name;
};

} // namespace doctor::platform
