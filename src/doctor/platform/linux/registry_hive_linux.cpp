// SPDX-License-Identifier: MIT
// The offline registry of a Windows disk, read with Debian's libhivex.
//
// A hive on an examined disk is hostile input. So libhivex never opens a path itself: the hive is
// opened as every file the doctor reads (InputFile: a FIFO or device is refused without being
// opened for reading), its size and "regf" signature are checked on that descriptor, and libhivex
// is handed the same descriptor through /proc/self/fd, so what it maps is the file that was
// checked. libhivex then validates the base block's checksum and every cell offset it follows.
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/registry_hive.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <hivex.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>

namespace doctor::platform {

namespace {

// Subkeys and values read from one key; a key with more is cut there (a real key has far fewer).
constexpr std::size_t k_max_entries = 100000;
constexpr std::size_t k_hive_header = 4096; // the base block; the first hbin follows it

constexpr std::uint32_t k_reg_sz = hive_t_REG_SZ;
constexpr std::uint32_t k_reg_expand_sz = hive_t_REG_EXPAND_SZ;
constexpr std::uint32_t k_reg_binary = hive_t_REG_BINARY;
constexpr std::uint32_t k_reg_dword = hive_t_REG_DWORD;
constexpr std::uint32_t k_reg_dword_big_endian = hive_t_REG_DWORD_BIG_ENDIAN;
constexpr std::uint32_t k_reg_multi_sz = hive_t_REG_MULTI_SZ;
constexpr std::uint32_t k_reg_qword = hive_t_REG_QWORD;

// Frees what libhivex returns with malloc.
struct Freer {
  void operator()(void* p) const { std::free(p); }
};
template<typename T>
using Owned = std::unique_ptr<T, Freer>;

std::string errno_text(int error) {
  return error == 0 ? std::string("invalid hive") : std::string(std::strerror(error));
}

std::uint64_t little_endian(const char* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) {
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  }
  return v;
}

// UTF-16LE text up to its first NUL code unit, as UTF-8.
std::string utf16_until_nul(std::string_view bytes) {
  std::size_t end = 0;
  while (end + 1 < bytes.size() && (bytes[end] != '\0' || bytes[end + 1] != '\0')) {
    end += 2;
  }
  return util::utf16le_to_utf8(bytes.substr(0, end));
}

// `type` is the value's type field as the hive stores it: any 32-bit number, so it is never held
// in hive_type (an enum with no such values).
RegistryValue decode_value(std::string name, std::uint32_t type, std::string data) {
  RegistryValue v;
  v.name = std::move(name);
  switch (type) {
  case k_reg_sz:
  case k_reg_expand_sz:
    v.type = type == k_reg_sz ? RegistryValue::Type::string : RegistryValue::Type::expand_string;
    v.text = utf16_until_nul(data);
    return v;
  case k_reg_multi_sz: {
    v.type = RegistryValue::Type::multi_string;
    std::string_view rest = data;
    while (rest.size() >= 2) {
      std::size_t end = 0;
      while (end + 1 < rest.size() && (rest[end] != '\0' || rest[end + 1] != '\0')) {
        end += 2;
      }
      if (end == 0) {
        break; // the empty string ends the list
      }
      v.strings.push_back(util::utf16le_to_utf8(rest.substr(0, end)));
      rest.remove_prefix(std::min(rest.size(), end + 2));
    }
    return v;
  }
  case k_reg_dword:
  case k_reg_dword_big_endian:
    if (data.size() >= 4) {
      v.type = RegistryValue::Type::dword;
      v.number = little_endian(data.data(), 4);
      if (type == k_reg_dword_big_endian) {
        v.number = ((v.number & 0xff) << 24) | ((v.number & 0xff00) << 8)
                   | ((v.number >> 8) & 0xff00) | (v.number >> 24);
      }
      return v;
    }
    break;
  case k_reg_qword:
    if (data.size() >= 8) {
      v.type = RegistryValue::Type::qword;
      v.number = little_endian(data.data(), 8);
      return v;
    }
    break;
  case k_reg_binary:
    v.type = RegistryValue::Type::binary;
    v.data = std::move(data);
    return v;
  default:
    break;
  }
  v.type = RegistryValue::Type::other;
  v.data = std::move(data);
  return v;
}

// One open hive file. libhivex handles are not documented as safe for concurrent readers, so
// every call holds the mutex.
class Hive {
public:
  // Opens the hive at inner path `inner` of `root`. Returns an error (never not_found) naming it.
  static Expected<std::unique_ptr<Hive>> open(const SysRoot& root, const std::string& inner) {
    auto fail = [&](ErrorCode code, const std::string& why) {
      return make_error(code == ErrorCode::not_found ? ErrorCode::io : code,
                        fmt::format("hive {}: {}", inner, why));
    };
    auto resolved = root.resolve(inner);
    if (!resolved) {
      return fail(resolved.error().code, resolved.error().message);
    }
    // Named first for a clear message; InputFile checks the opened file itself again.
    if (auto st = root.stat(*resolved); st && st->kind != FileKind::regular) {
      return fail(ErrorCode::not_regular,
                  fmt::format("is {}, not a regular file", describe(st->kind)));
    }
    auto file = InputFile::open(root.host_path(*resolved));
    if (!file) {
      return fail(file.error().code, file.error().message);
    }
    const std::uint64_t size = file->stat().size;
    if (size > k_max_hive_bytes) {
      return fail(
          ErrorCode::too_large,
          fmt::format("{} bytes, more than the {} a hive may have", size, k_max_hive_bytes));
    }
    char header[48] = {};
    auto got = file->read_at(0, header, sizeof header);
    if (!got) {
      return fail(got.error().code, got.error().message);
    }
    if (*got < 4 || std::memcmp(header, "regf", 4) != 0) {
      return fail(ErrorCode::parse, "not a registry hive (no \"regf\" signature)");
    }
    if (size < 2 * k_hive_header) {
      return fail(ErrorCode::parse,
                  fmt::format("truncated: {} bytes, less than a base block and one hbin", size));
    }
    // The base block says how many bytes of hbins follow it (offset 40).
    const std::uint64_t declared = little_endian(header + 40, 4);
    if (k_hive_header + declared > size) {
      return fail(ErrorCode::parse,
                  fmt::format("truncated: the header declares {} bytes of hive bins, the file "
                              "holds {}",
                              declared,
                              size - k_hive_header));
    }
    // The descriptor that was checked, reopened by libhivex (it opens a path).
    const std::string fd_path = fmt::format("/proc/self/fd/{}", file->native());
    errno = 0;
    hive_h* h = hivex_open(fd_path.c_str(), 0);
    if (h == nullptr) {
      return fail(ErrorCode::parse, "libhivex rejects it as damaged (" + errno_text(errno) + ")");
    }
    std::unique_ptr<Hive> out(new Hive(h));
    return out;
  }

  Hive(const Hive&) = delete;
  Hive& operator=(const Hive&) = delete;
  ~Hive() { hivex_close(m_h); }

  // The node at backslash path `path` below the root (names in any case), or not_found.
  Expected<hive_node_h> find(std::string_view path, const std::string& label) const {
    const std::lock_guard lock(m_mutex);
    hive_node_h node = hivex_root(m_h);
    if (node == 0) {
      return make_error(ErrorCode::parse, label + ": the hive has no root key");
    }
    for (std::string_view part : util::split(path, '\\')) {
      if (part.empty()) {
        continue;
      }
      errno = 0;
      const hive_node_h child = hivex_node_get_child(m_h, node, std::string(part).c_str());
      if (child == 0) {
        if (errno != 0) {
          return make_error(ErrorCode::parse,
                            fmt::format("{}: damaged hive ({})", label, errno_text(errno)));
        }
        return make_error(ErrorCode::not_found, label + ": no such key");
      }
      node = child;
    }
    return node;
  }

  Expected<std::vector<std::string>> subkeys(hive_node_h node, const std::string& label) const {
    const std::lock_guard lock(m_mutex);
    errno = 0;
    Owned<hive_node_h> children(hivex_node_children(m_h, node));
    if (!children) {
      return make_error(ErrorCode::parse,
                        fmt::format("{}: damaged hive ({})", label, errno_text(errno)));
    }
    std::vector<std::string> out;
    for (const hive_node_h* c = children.get(); *c != 0 && out.size() < k_max_entries; ++c) {
      Owned<char> name(hivex_node_name(m_h, *c));
      if (name) {
        out.emplace_back(name.get());
      }
    }
    return out;
  }

  Expected<std::vector<RegistryValue>> values(hive_node_h node, const std::string& label) const {
    const std::lock_guard lock(m_mutex);
    errno = 0;
    Owned<hive_value_h> values(hivex_node_values(m_h, node));
    if (!values) {
      return make_error(ErrorCode::parse,
                        fmt::format("{}: damaged hive ({})", label, errno_text(errno)));
    }
    std::vector<RegistryValue> out;
    for (const hive_value_h* v = values.get(); *v != 0 && out.size() < k_max_entries; ++v) {
      Owned<char> key(hivex_value_key(m_h, *v));
      // libhivex stores the raw type field through a hive_type pointer: give it plain storage.
      alignas(hive_type) unsigned char type_field[sizeof(hive_type)] = {};
      std::size_t length = 0;
      Owned<char> data(
          hivex_value_value(m_h, *v, reinterpret_cast<hive_type*>(type_field), &length));
      std::uint32_t type = 0;
      std::memcpy(&type, type_field, std::min(sizeof type, sizeof type_field));
      if (!key || !data) {
        continue; // a value whose cells do not hold together: left out, the rest still read
      }
      out.push_back(decode_value(key.get(), type, std::string(data.get(), length)));
    }
    return out;
  }

private:
  explicit Hive(hive_h* h)
      : m_h(h) {}
  hive_h* m_h;
  mutable std::mutex m_mutex;
};

// A hive slot: the open hive, or why there is none.
struct Slot {
  std::string inner;  // the hive file
  std::string prefix; // "HKLM\\SYSTEM", "HKCU"
  std::unique_ptr<Hive> hive;
  Error error;
};

Slot open_slot(const SysRoot& root,
               const std::string& inner,
               const std::string& missing,
               std::string prefix) {
  Slot slot;
  slot.inner = inner;
  slot.prefix = std::move(prefix);
  if (inner.empty()) {
    slot.error = Error{ErrorCode::io, fmt::format("no {} hive: {}", slot.prefix, missing)};
    return slot;
  }
  auto hive = Hive::open(root, inner);
  if (hive) {
    slot.hive = std::move(*hive);
  } else {
    slot.error = hive.error();
  }
  return slot;
}

class HiveRegistry final : public Registry {
public:
  HiveRegistry(const SysRoot& root, const HivePaths& paths)
      : m_system(open_slot(root, paths.system, paths.system_missing, "HKLM\\SYSTEM"))
      , m_software(open_slot(root, paths.software, paths.software_missing, "HKLM\\SOFTWARE"))
      , m_user(open_slot(root, paths.user, paths.user_missing, "HKCU"))
      , m_control_set(current_control_set()) {}

  Expected<std::vector<std::string>> subkeys(RegistryRoot root,
                                             std::string_view path) const override {
    auto where = locate(root, path);
    if (!where) {
      return tl::unexpected(where.error());
    }
    auto node = where->slot->hive->find(where->rest, where->label);
    if (!node) {
      return tl::unexpected(node.error());
    }
    return where->slot->hive->subkeys(*node, where->label);
  }

  Expected<std::vector<RegistryValue>> values(RegistryRoot root,
                                              std::string_view path) const override {
    auto where = locate(root, path);
    if (!where) {
      return tl::unexpected(where.error());
    }
    auto node = where->slot->hive->find(where->rest, where->label);
    if (!node) {
      return tl::unexpected(node.error());
    }
    return where->slot->hive->values(*node, where->label);
  }

  Expected<RegistryValue>
  value(RegistryRoot root, std::string_view path, std::string_view name) const override {
    auto all = values(root, path);
    if (!all) {
      return tl::unexpected(all.error());
    }
    const std::string wanted = util::to_lower(name);
    for (RegistryValue& v : *all) {
      if (util::to_lower(v.name) == wanted) {
        return std::move(v);
      }
    }
    return make_error(ErrorCode::not_found,
                      fmt::format("{}\\{}: no value {}", to_string(root), path, name));
  }

  std::string source(RegistryRoot root, std::string_view path) const override {
    auto where = locate(root, path);
    if (!where) {
      return fmt::format("hive:{}\\{}", to_string(root), path);
    }
    return fmt::format("hive:{}:{}", where->slot->inner, where->label);
  }

private:
  struct Location {
    const Slot* slot;
    std::string rest;  // the path inside the hive, CurrentControlSet resolved
    std::string label; // "HKLM\\SYSTEM\\ControlSet001\\Control", for messages and sources
  };

  Expected<Location> locate(RegistryRoot root, std::string_view path) const {
    std::vector<std::string_view> parts;
    for (std::string_view p : util::split(path, '\\')) {
      if (!p.empty()) {
        parts.push_back(p);
      }
    }
    const Slot* slot = &m_user;
    std::size_t first = 0;
    if (root == RegistryRoot::local_machine) {
      const std::string hive = parts.empty() ? "" : util::to_lower(parts[0]);
      if (hive == "system") {
        slot = &m_system;
      } else if (hive == "software") {
        slot = &m_software;
      } else {
        return make_error(
            ErrorCode::not_found,
            fmt::format("HKLM\\{}: only the SYSTEM and SOFTWARE hives are read", path));
      }
      first = 1;
    }
    if (!slot->hive) {
      return tl::unexpected(slot->error);
    }
    Location out{slot, "", slot->prefix};
    for (std::size_t i = first; i < parts.size(); ++i) {
      std::string part(parts[i]);
      if (slot == &m_system && i == 1 && util::to_lower(part) == "currentcontrolset") {
        if (!m_control_set) {
          return tl::unexpected(m_control_set.error());
        }
        part = *m_control_set;
      }
      out.rest += "\\" + part;
      out.label += "\\" + part;
    }
    return out;
  }

  // "ControlSet001" from SYSTEM\Select\Current, the control set Windows boots with.
  Expected<std::string> current_control_set() const {
    if (!m_system.hive) {
      return tl::unexpected(m_system.error);
    }
    auto select = m_system.hive->find("Select", "HKLM\\SYSTEM\\Select");
    auto values = select ? m_system.hive->values(*select, "HKLM\\SYSTEM\\Select")
                         : tl::unexpected(select.error());
    if (!values) {
      return make_error(
          values.error().code == ErrorCode::not_found ? ErrorCode::parse : values.error().code,
          fmt::format("hive {}: no CurrentControlSet: {}", m_system.inner, values.error().message));
    }
    for (const RegistryValue& v : *values) {
      if (util::to_lower(v.name) == "current" && v.type == RegistryValue::Type::dword
          && v.number >= 1 && v.number <= 999) {
        return fmt::format("ControlSet{:03}", v.number);
      }
    }
    return make_error(ErrorCode::parse,
                      fmt::format("hive {}: no CurrentControlSet: HKLM\\SYSTEM\\Select has no "
                                  "Current value from 1 to 999",
                                  m_system.inner));
  }

  Slot m_system;
  Slot m_software;
  Slot m_user;
  Expected<std::string> m_control_set;
};

} // namespace

Expected<std::shared_ptr<const Registry>> open_hive_registry(const SysRoot& root,
                                                             const HivePaths& paths) {
  return std::make_shared<const HiveRegistry>(root, paths);
}

} // namespace doctor::platform
