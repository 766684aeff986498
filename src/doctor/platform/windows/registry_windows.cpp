// SPDX-License-Identifier: MIT
#include <doctor/platform/registry.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <algorithm>
#include <cstring>

// The live registry through the Win32 API. Keys are opened with KEY_READ in the 64-bit view
// (KEY_WOW64_64KEY), so a 32-bit build would still read what a 64-bit process sees. Every read
// is bounded: a key with more than k_max_entries subkeys or values, a name longer than the
// registry allows, or value data above k_max_data bytes is cut there, never allocated for.
namespace doctor::platform {

namespace {

constexpr DWORD k_max_entries = 16384;        // subkeys or values listed per key
constexpr DWORD k_max_name = 16384;           // the registry's own limit for a value name
constexpr DWORD k_max_data = 4 * 1024 * 1024; // value data read, bytes

HKEY root_handle(RegistryRoot root) {
  return root == RegistryRoot::local_machine ? HKEY_LOCAL_MACHINE : HKEY_CURRENT_USER;
}

Error registry_error(LSTATUS status, std::string_view what) {
  const auto code = static_cast<DWORD>(status);
  ErrorCode kind = ErrorCode::io;
  if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) {
    kind = ErrorCode::not_found;
  } else if (code == ERROR_ACCESS_DENIED) {
    kind = ErrorCode::permission_denied;
  } else if (code == ERROR_NOT_ENOUGH_MEMORY || code == ERROR_OUTOFMEMORY) {
    kind = ErrorCode::resource;
  }
  return Error{kind, fmt::format("{}: {}", what, windows::last_error_message(code))};
}

// An open key, closed when it goes out of scope.
class Key {
public:
  Key() = default;
  Key(const Key&) = delete;
  Key& operator=(const Key&) = delete;
  ~Key() {
    if (m_key != nullptr) {
      RegCloseKey(m_key);
    }
  }
  HKEY* out() { return &m_key; }
  HKEY get() const { return m_key; }

private:
  HKEY m_key = nullptr;
};

std::string key_name(RegistryRoot root, std::string_view path) {
  return fmt::format("{}\\{}", to_string(root), path);
}

Expected<void> open_key(RegistryRoot root, std::string_view path, Key& key) {
  const std::wstring wpath = windows::widen(path);
  const LSTATUS status =
      RegOpenKeyExW(root_handle(root), wpath.c_str(), 0, KEY_READ | KEY_WOW64_64KEY, key.out());
  if (status != ERROR_SUCCESS) {
    return tl::unexpected(registry_error(status, key_name(root, path)));
  }
  return {};
}

// UTF-16 text of `bytes` (REG_SZ data), up to the first NUL.
std::wstring wide_text(const std::vector<BYTE>& bytes) {
  std::wstring out(bytes.size() / sizeof(wchar_t), L'\0');
  if (!out.empty()) {
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(wchar_t));
  }
  if (const auto nul = out.find(L'\0'); nul != std::wstring::npos) {
    out.resize(nul);
  }
  return out;
}

// Decodes value data of registry type `type` into `out`.
void decode(DWORD type, const std::vector<BYTE>& bytes, RegistryValue& out) {
  switch (type) {
  case REG_SZ:
  case REG_EXPAND_SZ:
    out.type = type == REG_SZ ? RegistryValue::Type::string : RegistryValue::Type::expand_string;
    out.text = windows::narrow(wide_text(bytes));
    return;
  case REG_MULTI_SZ: {
    out.type = RegistryValue::Type::multi_string;
    std::wstring all(bytes.size() / sizeof(wchar_t), L'\0');
    if (!all.empty()) {
      std::memcpy(all.data(), bytes.data(), all.size() * sizeof(wchar_t));
    }
    std::size_t start = 0;
    while (start < all.size()) {
      const std::size_t end = std::min(all.find(L'\0', start), all.size());
      if (end == start) {
        break; // the empty string that ends the list
      }
      out.strings.push_back(windows::narrow(std::wstring_view(all).substr(start, end - start)));
      start = end + 1;
    }
    return;
  }
  case REG_DWORD:
    if (bytes.size() >= 4) {
      out.type = RegistryValue::Type::dword;
      std::uint32_t v = 0;
      std::memcpy(&v, bytes.data(), sizeof v);
      out.number = v;
      return;
    }
    break;
  case REG_QWORD:
    if (bytes.size() >= 8) {
      out.type = RegistryValue::Type::qword;
      std::uint64_t v = 0;
      std::memcpy(&v, bytes.data(), sizeof v);
      out.number = v;
      return;
    }
    break;
  case REG_BINARY:
    out.type = RegistryValue::Type::binary;
    out.data.assign(bytes.begin(), bytes.end());
    return;
  default:
    break;
  }
  out.type = type == REG_BINARY ? RegistryValue::Type::binary : RegistryValue::Type::other;
  out.data.assign(bytes.begin(), bytes.end());
}

// Reads the data of value `wname` of the open key; its size is asked first, and asked again if
// the value grew in between.
Expected<RegistryValue>
read_value(HKEY key, const std::wstring& wname, std::string_view what, RegistryValue out) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    DWORD type = 0;
    DWORD size = 0;
    LSTATUS status = RegQueryValueExW(key, wname.c_str(), nullptr, &type, nullptr, &size);
    if (status != ERROR_SUCCESS) {
      return tl::unexpected(registry_error(status, what));
    }
    std::vector<BYTE> bytes(std::min(size, k_max_data));
    DWORD got = static_cast<DWORD>(bytes.size());
    status = RegQueryValueExW(key, wname.c_str(), nullptr, &type, bytes.data(), &got);
    if (status == ERROR_MORE_DATA) {
      if (size >= k_max_data) {
        return make_error(ErrorCode::too_large,
                          fmt::format("{}: larger than {} bytes", what, k_max_data));
      }
      continue;
    }
    if (status != ERROR_SUCCESS) {
      return tl::unexpected(registry_error(status, what));
    }
    bytes.resize(got);
    decode(type, bytes, out);
    return out;
  }
  return make_error(ErrorCode::io, fmt::format("{}: keeps changing while read", what));
}

class LiveRegistry final : public Registry {
public:
  Expected<std::vector<std::string>> subkeys(RegistryRoot root,
                                             std::string_view path) const override {
    Key key;
    if (auto opened = open_key(root, path, key); !opened) {
      return tl::unexpected(opened.error());
    }
    std::vector<std::string> out;
    std::vector<wchar_t> name(256); // a key name has at most 255 characters
    for (DWORD i = 0; i < k_max_entries; ++i) {
      DWORD len = static_cast<DWORD>(name.size());
      const LSTATUS status =
          RegEnumKeyExW(key.get(), i, name.data(), &len, nullptr, nullptr, nullptr, nullptr);
      if (status == ERROR_NO_MORE_ITEMS) {
        break;
      }
      if (status != ERROR_SUCCESS) {
        return tl::unexpected(registry_error(status, key_name(root, path)));
      }
      out.push_back(windows::narrow(std::wstring_view(name.data(), len)));
    }
    return out;
  }

  Expected<std::vector<RegistryValue>> values(RegistryRoot root,
                                              std::string_view path) const override {
    Key key;
    if (auto opened = open_key(root, path, key); !opened) {
      return tl::unexpected(opened.error());
    }
    std::vector<RegistryValue> out;
    std::vector<wchar_t> name(k_max_name + 1);
    for (DWORD i = 0; i < k_max_entries; ++i) {
      DWORD len = static_cast<DWORD>(name.size());
      const LSTATUS status =
          RegEnumValueW(key.get(), i, name.data(), &len, nullptr, nullptr, nullptr, nullptr);
      if (status == ERROR_NO_MORE_ITEMS) {
        break;
      }
      if (status != ERROR_SUCCESS) {
        return tl::unexpected(registry_error(status, key_name(root, path)));
      }
      const std::wstring wname(name.data(), len);
      RegistryValue v;
      v.name = windows::narrow(wname);
      auto read = read_value(
          key.get(), wname, fmt::format("{}\\{}", key_name(root, path), v.name), std::move(v));
      if (!read) {
        if (read.error().code == ErrorCode::not_found) {
          continue; // deleted while listed
        }
        return tl::unexpected(read.error());
      }
      out.push_back(std::move(*read));
    }
    return out;
  }

  Expected<RegistryValue>
  value(RegistryRoot root, std::string_view path, std::string_view name) const override {
    Key key;
    if (auto opened = open_key(root, path, key); !opened) {
      return tl::unexpected(opened.error());
    }
    RegistryValue v;
    v.name = std::string(name);
    return read_value(key.get(),
                      windows::widen(name),
                      fmt::format("{}\\{}\\{}", to_string(root), path, name),
                      std::move(v));
  }

  std::string source(RegistryRoot root, std::string_view path) const override {
    return fmt::format("registry:{}\\{}", to_string(root), path);
  }
};

} // namespace

std::shared_ptr<const Registry> open_live_registry() {
  return std::make_shared<LiveRegistry>();
}

} // namespace doctor::platform
