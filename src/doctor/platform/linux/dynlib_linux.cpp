// SPDX-License-Identifier: MIT
#include <doctor/platform/dynlib.hpp>

#include <dlfcn.h>
#include <link.h>

#include <utility>

namespace doctor::platform {

Expected<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  dlerror();
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return make_error(ErrorCode::not_found, why != nullptr ? why : name + ": cannot be loaded");
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
      ::dlclose(m_handle);
    }
    m_handle = std::exchange(other.m_handle, nullptr);
    m_name = std::move(other.m_name);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (m_handle != nullptr) {
    ::dlclose(m_handle);
  }
}

void* DynamicLibrary::symbol(const char* symbol) const {
  return m_handle != nullptr ? ::dlsym(m_handle, symbol) : nullptr;
}

std::string DynamicLibrary::path() const {
  struct link_map* map = nullptr;
  if (m_handle != nullptr && ::dlinfo(m_handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr
      && map->l_name != nullptr && map->l_name[0] != '\0') {
    return map->l_name;
  }
  return m_name;
}

} // namespace doctor::platform
