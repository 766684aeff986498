// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// The Windows registry of the examined machine, read-only: live through the Win32 API
// (registry_windows.cpp) or offline from the hive files of a mounted Windows disk
// (registry_hive.cpp, libhivex). The Windows collectors read every key through this interface, so
// a live run and an examined disk give the same facts.
namespace doctor::platform {

// The root a key path starts from. HKLM's SYSTEM and SOFTWARE are the hives of the same names;
// "SYSTEM\\CurrentControlSet" is the control set Select\Current names, live or offline.
enum class RegistryRoot { local_machine, current_user };

// "HKLM" or "HKCU".
std::string_view to_string(RegistryRoot root);

struct RegistryValue {
  enum class Type { string, expand_string, multi_string, dword, qword, binary, other };
  std::string name; // "" for the key's default value
  Type type = Type::other;
  std::string text;                 // string, expand_string: UTF-8, unexpanded, no trailing NUL
  std::vector<std::string> strings; // multi_string: UTF-8
  std::uint64_t number = 0;         // dword, qword
  std::string data;                 // binary and other: the raw bytes
};

class Registry {
public:
  virtual ~Registry() = default;

  // The names of the subkeys of `path` ("SYSTEM\\CurrentControlSet\\Control\\Class"), in the
  // order the registry keeps them. ErrorCode::not_found when the key does not exist.
  virtual Expected<std::vector<std::string>> subkeys(RegistryRoot root,
                                                     std::string_view path) const = 0;

  // Every value of the key `path`. ErrorCode::not_found when the key does not exist.
  virtual Expected<std::vector<RegistryValue>> values(RegistryRoot root,
                                                      std::string_view path) const = 0;

  // The value `name` of key `path` (names compare without regard to case; "" is the default
  // value). ErrorCode::not_found when the key or the value does not exist.
  virtual Expected<RegistryValue>
  value(RegistryRoot root, std::string_view path, std::string_view name) const = 0;

  // The key `path` under `root` as a fact's source names it, with where it was read:
  // "registry:HKLM\\SYSTEM\\…" (live), "hive:/Windows/System32/config/SYSTEM:HKLM\\SYSTEM\\…" (a
  // disk's hive file).
  virtual std::string source(RegistryRoot root, std::string_view path) const = 0;
};

// The registry of the machine the doctor runs on; nullptr on a host without one (Linux).
std::shared_ptr<const Registry> open_live_registry();

} // namespace doctor::platform
