// SPDX-License-Identifier: MIT
// Random bytes as the SYSTEM hive of a Windows disk: the hive is opened the way `check --sysroot`
// opens it (file checks, "regf" and size checks, then libhivex), every key is walked (bounded)
// and every value decoded, and the Windows collectors read it. Nothing may crash, hang or leak.
// An input that does not start with "regf" gets a valid base block in front (checksum and hbin
// size set), so the fuzzer spends its time in the hbins and cells rather than on the header.
#include <doctor/collect/windows/windows_collectors.hpp>
#include <doctor/platform/registry_hive.hpp>

#include <stdlib.h> // mkdtemp

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace {

using doctor::platform::Registry;
using doctor::platform::RegistryRoot;

constexpr std::size_t k_page = 4096;
constexpr int k_max_depth = 8;
constexpr std::size_t k_max_keys = 2000;

void put32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    s[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xffU);
  }
}

// A base block for `hbins` bytes of hive bins whose root key is at offset 0x20.
std::string base_block(std::size_t hbins) {
  std::string b(k_page, '\0');
  b.replace(0, 4, "regf");
  put32(b, 4, 1);
  put32(b, 8, 1);
  put32(b, 20, 1);
  put32(b, 24, 3);
  put32(b, 32, 1);
  put32(b, 36, 0x20);
  put32(b, 40, static_cast<std::uint32_t>(hbins));
  put32(b, 44, 1);
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < 508; i += 4) {
    sum ^= static_cast<std::uint32_t>(static_cast<unsigned char>(b[i]))
           | static_cast<std::uint32_t>(static_cast<unsigned char>(b[i + 1])) << 8U
           | static_cast<std::uint32_t>(static_cast<unsigned char>(b[i + 2])) << 16U
           | static_cast<std::uint32_t>(static_cast<unsigned char>(b[i + 3])) << 24U;
  }
  put32(b, 508, sum);
  return b;
}

const std::filesystem::path& tree() {
  static const std::filesystem::path k_tree = [] {
    std::string templ = (std::filesystem::temp_directory_path() / "fuzz_hive.XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) {
      std::abort();
    }
    std::filesystem::create_directories(std::filesystem::path(templ) / "Windows/System32/config");
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(tree(), ec);
    });
    return std::filesystem::path(templ);
  }();
  return k_tree;
}

void walk(const Registry& r, const std::string& path, int depth, std::size_t& keys) {
  if (depth > k_max_depth || ++keys > k_max_keys) {
    return;
  }
  (void)r.values(RegistryRoot::local_machine, path);
  (void)r.value(RegistryRoot::local_machine, path, "");
  (void)r.source(RegistryRoot::local_machine, path);
  auto subkeys = r.subkeys(RegistryRoot::local_machine, path);
  if (!subkeys) {
    return;
  }
  for (const std::string& name : *subkeys) {
    walk(r, path + "\\" + name, depth + 1, keys);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.rfind("regf", 0) != 0) {
    bytes.resize((bytes.size() + k_page - 1) / k_page * k_page, '\0');
    bytes = base_block(bytes.size()) + bytes;
  }
  {
    std::ofstream out(tree() / "Windows/System32/config/SYSTEM",
                      std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const doctor::platform::SysRoot root =
      doctor::platform::open_tree_root(tree(), doctor::platform::Environment());
  if (const Registry* r = root.registry()) {
    std::size_t keys = 0;
    walk(*r, "SYSTEM", 0, keys);
    (void)r->value(RegistryRoot::local_machine,
                   "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers",
                   "TdrDelay");
  }
  doctor::facts::Facts facts;
  const doctor::collect::CollectOptions options;
  doctor::collect::collect_windows_display(root, options, facts);
  doctor::collect::collect_windows_crash_settings(root, options, facts);
  doctor::collect::collect_windows_memory(root, options, facts);
  doctor::collect::collect_windows_environment(root, options, facts);
  doctor::collect::collect_windows_services(root, options, facts);
  doctor::collect::collect_windows_programs(root, options, facts);
  return 0;
}
