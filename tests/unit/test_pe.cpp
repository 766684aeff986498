// SPDX-License-Identifier: MIT
// The PE reader, on two kinds of input: images written here byte by byte after the PE/COFF
// specification (every structure the reader knows, plus the damage it must survive), and real DLLs
// built at test time with mingw-w64 (gcc, windres, dlltool), which skip cleanly without it. The
// first kind is platform-neutral and also runs in the Windows build under wine; the second needs
// a shell and the cross tools, so it is Linux-only.
#include <doctor/formats/pe.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#ifndef _WIN32
#  include "support/temp_tree.hpp"
#endif

namespace doctor {
namespace {

using formats::parse_pe;
using formats::PeInfo;

void put16(std::string& s, std::size_t at, std::uint16_t v) {
  if (s.size() < at + 2) {
    s.resize(at + 2, '\0');
  }
  s[at] = static_cast<char>(v & 0xffU);
  s[at + 1] = static_cast<char>(v >> 8U);
}

void put32(std::string& s, std::size_t at, std::uint32_t v) {
  put16(s, at, static_cast<std::uint16_t>(v & 0xffffU));
  put16(s, at + 2, static_cast<std::uint16_t>(v >> 16U));
}

void put64(std::string& s, std::size_t at, std::uint64_t v) {
  put32(s, at, static_cast<std::uint32_t>(v & 0xffffffffU));
  put32(s, at + 4, static_cast<std::uint32_t>(v >> 32U));
}

std::uint32_t get32(std::string_view s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    v |= std::uint32_t{static_cast<unsigned char>(s.at(at + i))} << (8U * i);
  }
  return v;
}

void pad_to(std::string& s, std::size_t alignment) {
  while (s.size() % alignment != 0) {
    s.push_back('\0');
  }
}

bool contains(const std::vector<std::string>& v, std::string_view needle) {
  return std::any_of(
      v.begin(), v.end(), [&](const auto& s) { return s.find(needle) != std::string::npos; });
}

// UTF-16LE bytes of `s`, with a terminating NUL.
std::string utf16z(std::u16string_view s) {
  std::string out;
  for (const char16_t c : s) {
    out.push_back(static_cast<char>(c & 0xffU));
    out.push_back(static_cast<char>(c >> 8U));
  }
  out.append(2, '\0');
  return out;
}

// One node of a version resource: wLength, wValueLength, wType, the key, padding to 32 bits, the
// value, then each child at a 32-bit boundary.
std::string version_node(std::u16string_view key,
                         std::string_view value,
                         std::uint16_t value_length,
                         std::uint16_t type,
                         const std::vector<std::string>& children = {}) {
  std::string b(6, '\0');
  b += utf16z(key);
  pad_to(b, 4);
  b += value;
  for (const auto& c : children) {
    pad_to(b, 4);
    b += c;
  }
  put16(b, 0, static_cast<std::uint16_t>(b.size()));
  put16(b, 2, value_length);
  put16(b, 4, type);
  return b;
}

std::string version_string(std::u16string_view key, std::u16string_view value) {
  return version_node(key, utf16z(value), static_cast<std::uint16_t>(value.size() + 1), 1);
}

std::string fixed_file_info(std::uint32_t signature,
                            std::uint32_t file_ms,
                            std::uint32_t file_ls,
                            std::uint32_t product_ms,
                            std::uint32_t product_ls) {
  std::string f(52, '\0');
  put32(f, 0, signature);
  put32(f, 4, 0x10000);
  put32(f, 8, file_ms);
  put32(f, 12, file_ls);
  put32(f, 16, product_ms);
  put32(f, 20, product_ls);
  return f;
}

// A VS_VERSIONINFO as a resource compiler writes it, with cuDNN's strings (and a FileDescription
// outside ASCII, to check the UTF-16 decoding).
std::string cudnn_version_info(std::uint32_t signature = 0xfeef04bd) {
  const std::string table = version_node(
      u"040904E4",
      "",
      0,
      1,
      {version_string(u"CompanyName", u"NVIDIA Corporation"),
       version_string(u"FileDescription", u"NVIDIA cuDNN Library \u00e9\u4e2d\U0001F600"),
       version_string(u"FileVersion", u"8.9.4.19"),
       version_string(u"InternalName", u"cudnn"),
       version_string(u"OriginalFilename", u"cudnn64_8.dll"),
       version_string(u"ProductName", u"NVIDIA cuDNN Library"),
       version_string(u"ProductVersion", u"8.9.4.19")});
  std::string translation(4, '\0');
  put16(translation, 0, 0x409);
  put16(translation, 2, 1252);
  const std::string var =
      version_node(u"VarFileInfo", "", 0, 1, {version_node(u"Translation", translation, 4, 0)});
  return version_node(u"VS_VERSION_INFO",
                      fixed_file_info(signature, 0x00080009, 0x00040013, 0x00080009, 0x00040000),
                      52,
                      0,
                      {version_node(u"StringFileInfo", "", 0, 1, {table}), var});
}

constexpr std::uint32_t k_section_rva = 0x1000;
constexpr std::uint32_t k_section_offset = 0x400;

// A PE image with one data section (.rdata at RVA 0x1000, file offset 0x400), a zero-filled .bss
// after it, and data directories pointing into .rdata. Tests append structures to `rdata` and
// point directories at them.
struct SyntheticPe {
  bool pe32_plus = true;
  std::uint16_t machine = 0x8664;
  std::uint16_t characteristics = 0x2022; // executable image, large address aware, DLL
  std::uint64_t image_base = 0x180000000;
  std::uint32_t timestamp = 0x64c7a1b6;
  std::uint32_t section_count = 2;
  bool pad_raw_data = true; // SizeOfRawData rounded up to FileAlignment, as linkers write it
  std::map<std::size_t, std::pair<std::uint32_t, std::uint32_t>> directories;
  std::string rdata;
  std::string trailer; // bytes after the last section (certificates, COFF string table)
  std::string rdata_name = ".rdata";
  std::uint32_t symbol_table = 0;

  // Appends `bytes` to .rdata at a 4-byte boundary; returns their RVA.
  std::uint32_t add(std::string_view bytes) {
    pad_to(rdata, 4);
    const auto rva = static_cast<std::uint32_t>(k_section_rva + rdata.size());
    rdata += bytes;
    return rva;
  }

  std::uint32_t add_name(std::string_view name) {
    std::string s(name);
    s.push_back('\0');
    return add(s);
  }

  // .bss follows .rdata at the next 4 KiB boundary.
  std::uint32_t bss_rva() const {
    return k_section_rva + ((static_cast<std::uint32_t>(rdata.size()) + 0xfffU) & ~0xfffU) + 0x1000;
  }

  std::string build() const {
    std::string f(k_section_offset, '\0');
    f[0] = 'M';
    f[1] = 'Z';
    const std::size_t pe = 0x80;
    put32(f, 0x3c, pe);
    f.replace(pe, 4, std::string("PE\0\0", 4));
    const std::size_t coff = pe + 4;
    const std::size_t opt = coff + 20;
    const std::uint16_t opt_size = pe32_plus ? 240 : 224;
    put16(f, coff, machine);
    put16(f, coff + 2, static_cast<std::uint16_t>(section_count));
    put32(f, coff + 4, timestamp);
    put32(f, coff + 8, symbol_table);
    put16(f, coff + 16, opt_size);
    put16(f, coff + 18, characteristics);
    put16(f, opt, pe32_plus ? 0x20b : 0x10b);
    if (pe32_plus) {
      put64(f, opt + 24, image_base);
    } else {
      put32(f, opt + 28, static_cast<std::uint32_t>(image_base));
    }
    put32(f, opt + 32, 0x1000);  // SectionAlignment
    put32(f, opt + 36, 0x200);   // FileAlignment
    put32(f, opt + 56, 0x20000); // SizeOfImage
    put32(f, opt + 60, k_section_offset);
    const std::size_t dirs = opt + (pe32_plus ? 112 : 96);
    put32(f, dirs - 4, 16);
    for (const auto& [index, dir] : directories) {
      put32(f, dirs + index * 8, dir.first);
      put32(f, dirs + index * 8 + 4, dir.second);
    }
    const std::size_t table = opt + opt_size;
    const auto raw_size = static_cast<std::uint32_t>(
        pad_raw_data ? (rdata.size() + 0x1ffU) & ~std::size_t{0x1ff} : rdata.size());
    f.replace(table, rdata_name.size(), rdata_name);
    put32(f, table + 8, static_cast<std::uint32_t>(rdata.size()));
    put32(f, table + 12, k_section_rva);
    put32(f, table + 16, raw_size);
    put32(f, table + 20, k_section_offset);
    f.replace(table + 40, 4, ".bss");
    put32(f, table + 48, 0x1000);
    put32(f, table + 52, bss_rva());
    f.resize(k_section_offset, '\0');
    f += rdata;
    f.resize(k_section_offset + raw_size, '\0');
    f += trailer;
    return f;
  }
};

// Lays out an import directory for `dlls` in `pe` and points data directory 1 at it.
void add_imports(SyntheticPe& pe, const std::vector<std::string>& dlls) {
  std::vector<std::uint32_t> names;
  names.reserve(dlls.size());
  for (const auto& d : dlls) {
    names.push_back(pe.add_name(d));
  }
  const std::uint32_t thunks = pe.add(std::string(16, '\0'));
  std::string table;
  for (std::size_t i = 0; i < dlls.size(); ++i) {
    put32(table, i * 20, thunks);
    put32(table, i * 20 + 12, names[i]);
    put32(table, i * 20 + 16, thunks);
  }
  table.resize((dlls.size() + 1) * 20, '\0');
  pe.directories[1] = {pe.add(table), static_cast<std::uint32_t>(table.size())};
}

// Lays out a delay-load directory for `dlls`: RVA-based (attributes 1), or the old form with
// virtual addresses (attributes 0).
void add_delay_imports(SyntheticPe& pe, const std::vector<std::string>& dlls, bool rva_based) {
  const std::uint64_t bias = rva_based ? 0 : pe.image_base;
  std::vector<std::uint32_t> names;
  names.reserve(dlls.size());
  for (const auto& d : dlls) {
    names.push_back(pe.add_name(d));
  }
  const std::uint32_t thunks = pe.add(std::string(16, '\0'));
  std::string table;
  for (std::size_t i = 0; i < dlls.size(); ++i) {
    put32(table, i * 32, rva_based ? 1 : 0);
    put32(table, i * 32 + 4, static_cast<std::uint32_t>(names[i] + bias));
    put32(table, i * 32 + 12, static_cast<std::uint32_t>(thunks + bias));
    put32(table, i * 32 + 16, static_cast<std::uint32_t>(thunks + bias));
  }
  table.resize((dlls.size() + 1) * 32, '\0');
  pe.directories[13] = {pe.add(table), static_cast<std::uint32_t>(table.size())};
}

// Lays out a resource tree RT_VERSION (16) -> id 1 -> language 0x409 -> `version`, with a
// RT_ICON (3) type before it, and points data directory 2 at it. Returns the tree's RVA.
std::uint32_t add_version_resource(SyntheticPe& pe, std::string_view version) {
  std::string tree(0x80, '\0');
  put16(tree, 14, 2); // root: two id entries
  put32(tree, 16, 3);
  put32(tree, 20, 0x80000000U | 0x60U); // RT_ICON: an empty directory
  put32(tree, 24, 16);
  put32(tree, 28, 0x80000000U | 0x20U);
  put16(tree, 0x20 + 14, 1); // name level
  put32(tree, 0x20 + 16, 1);
  put32(tree, 0x20 + 20, 0x80000000U | 0x38U);
  put16(tree, 0x38 + 14, 1); // language level
  put32(tree, 0x38 + 16, 0x409);
  put32(tree, 0x38 + 20, 0x50);
  const std::uint32_t rva = pe.add(tree);
  const std::uint32_t data = pe.add(version);
  put32(pe.rdata, rva - k_section_rva + 0x50, data);
  put32(pe.rdata, rva - k_section_rva + 0x54, static_cast<std::uint32_t>(version.size()));
  pe.directories[2] = {rva, static_cast<std::uint32_t>(tree.size())};
  return rva;
}

// An Authenticode-shaped certificate table (a WIN_CERTIFICATE with a dummy PKCS#7 blob) at the end
// of `file`, and data directory 4 pointing at it by file offset, as signtool leaves it.
void append_certificate(std::string& file, std::size_t payload = 1000) {
  pad_to(file, 8);
  const auto offset = static_cast<std::uint32_t>(file.size());
  std::string cert(8 + payload, '\x30');
  put32(cert, 0, static_cast<std::uint32_t>(cert.size()));
  put16(cert, 4, 0x200);
  put16(cert, 6, 2);
  file += cert;
  const std::size_t opt = get32(file, 0x3c) + 24;
  const bool plus = file.at(opt) == 0x0b && file.at(opt + 1) == 0x02;
  const std::size_t dirs = opt + (plus ? 112 : 96);
  const std::size_t security = dirs + 32; // data directory 4, 8 bytes each
  put32(file, security, offset);
  put32(file, security + 4, static_cast<std::uint32_t>(cert.size()));
}

SyntheticPe full_synthetic() {
  SyntheticPe pe;
  add_imports(pe, {"cudnn_ops_infer64_8.dll", "KERNEL32.dll"});
  add_delay_imports(pe, {"cublas64_11.dll", "nvcuda.dll"}, /*rva_based=*/true);
  add_version_resource(pe, cudnn_version_info());
  return pe;
}

PeInfo parse_ok(const std::string& file) {
  auto info = parse_pe(file);
  EXPECT_TRUE(info.has_value()) << info.error().message;
  return info ? *info : PeInfo{};
}

TEST(pe, reads_every_field_of_a_pe32_plus_dll) {
  const std::string file = full_synthetic().build();
  EXPECT_TRUE(formats::is_pe(file));
  const PeInfo info = parse_ok(file);
  EXPECT_EQ(info.machine, 0x8664U);
  EXPECT_EQ(info.machine_name, "x64");
  EXPECT_TRUE(info.pe32_plus);
  EXPECT_TRUE(info.is_dll);
  EXPECT_EQ(info.timestamp, 0x64c7a1b6U);
  EXPECT_EQ(info.imports, (std::vector<std::string>{"cudnn_ops_infer64_8.dll", "KERNEL32.dll"}));
  EXPECT_EQ(info.delay_imports, (std::vector<std::string>{"cublas64_11.dll", "nvcuda.dll"}));
  EXPECT_EQ(info.section_names, (std::vector<std::string>{".rdata", ".bss"}));
  EXPECT_FALSE(info.has_signature);
  EXPECT_EQ(info.problems, std::vector<std::string>{});
  ASSERT_TRUE(info.version.has_value());
  formats::PeVersionInfo want;
  want.file_version = "8.9.4.19";
  want.product_version = "8.9.4.19";
  want.product_name = "NVIDIA cuDNN Library";
  want.file_description = "NVIDIA cuDNN Library \xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80";
  want.company_name = "NVIDIA Corporation";
  want.original_filename = "cudnn64_8.dll";
  want.fixed_file_version = "8.9.4.19";
  want.fixed_product_version = "8.9.4.0";
  EXPECT_EQ(*info.version, want);
}

TEST(pe, reads_a_pe32_exe_with_old_va_based_delay_imports) {
  SyntheticPe pe;
  pe.pe32_plus = false;
  pe.machine = 0x14c;
  pe.characteristics = 0x0102; // executable, 32-bit machine: not a DLL
  pe.image_base = 0x400000;
  add_imports(pe, {"KERNEL32.dll"});
  add_delay_imports(pe, {"zlibwapi.dll"}, /*rva_based=*/false);
  const PeInfo info = parse_ok(pe.build());
  EXPECT_EQ(info.machine_name, "x86");
  EXPECT_FALSE(info.pe32_plus);
  EXPECT_FALSE(info.is_dll);
  EXPECT_EQ(info.imports, std::vector<std::string>{"KERNEL32.dll"});
  EXPECT_EQ(info.delay_imports, std::vector<std::string>{"zlibwapi.dll"});
  EXPECT_FALSE(info.version.has_value());
  EXPECT_EQ(info.problems, std::vector<std::string>{});
}

TEST(pe, va_based_delay_import_below_the_image_base_is_a_problem) {
  SyntheticPe pe;
  pe.pe32_plus = false;
  pe.machine = 0x14c;
  pe.image_base = 0x10000000;
  add_delay_imports(pe, {"zlibwapi.dll"}, /*rva_based=*/true);
  // Clear the RVA flag: the RVAs now read as addresses below the image base.
  put32(pe.rdata, pe.directories[13].first - k_section_rva, 0);
  const PeInfo info = parse_ok(pe.build());
  EXPECT_TRUE(info.delay_imports.empty());
  EXPECT_TRUE(contains(info.problems, "below the image base 0x10000000")) << info.problems.at(0);
}

TEST(pe, names_machines) {
  for (const auto& [machine, name] : std::vector<std::pair<std::uint16_t, std::string>>{
           {0x8664, "x64"}, {0x14c, "x86"}, {0xaa64, "arm64"}, {0x1c4, "machine 0x1c4"}}) {
    SyntheticPe pe;
    pe.machine = machine;
    const PeInfo info = parse_ok(pe.build());
    EXPECT_EQ(info.machine, machine);
    EXPECT_EQ(info.machine_name, name);
  }
}

TEST(pe, non_pe_input_is_a_parse_error) {
  const std::string good = SyntheticPe{}.build();
  std::string no_signature = good;
  no_signature[0x80] = 'N';
  std::string far_header = good;
  put32(far_header, 0x3c, 0x7fffffff);
  std::string bad_magic = good;
  put16(bad_magic, 0x80 + 24, 0x107);
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "no MZ header"},
      {"MZ", "no MZ header"},
      {std::string(4096, 'A'), "no MZ header"},
      {"\x7f"
       "ELF"
           + std::string(200, '\0'),
       "no MZ header"},
      {good.substr(0, 64), "past the end of the 64-byte file"},
      {far_header, "pe header offset 2147483647 is past the end"},
      {no_signature, "no PE signature at offset 128"},
      {bad_magic, "unknown optional header magic 0x107"},
      {good.substr(0, 0x80 + 24 + 50), "optional header at offset 152 runs past the end"},
      {good.substr(0, 0x80 + 10), "coff header at offset 132 runs past the end"},
  };
  for (const auto& [input, message] : cases) {
    auto info = parse_pe(input);
    ASSERT_FALSE(info.has_value()) << message;
    EXPECT_EQ(info.error().code, ErrorCode::parse);
    EXPECT_NE(info.error().message.find(message), std::string::npos) << info.error().message;
  }
  EXPECT_FALSE(formats::is_pe(""));
  EXPECT_FALSE(formats::is_pe(no_signature));
  EXPECT_FALSE(formats::is_pe(far_header));
  EXPECT_TRUE(formats::is_pe(good));
}

TEST(pe, section_past_the_end_of_the_file_is_a_truncation_problem) {
  const std::string file = full_synthetic().build();
  const PeInfo info = parse_ok(file.substr(0, k_section_offset + 100));
  EXPECT_TRUE(contains(info.problems,
                       fmt::format("section .rdata ends at {}, past the end of the 1124-byte file "
                                   "(truncated?)",
                                   file.size())))
      << info.problems.at(0);
  EXPECT_EQ(info.section_names, (std::vector<std::string>{".rdata", ".bss"}));
}

TEST(pe, directory_outside_every_section_or_in_zero_filled_memory_is_a_problem) {
  SyntheticPe pe;
  pe.directories[1] = {0x90000, 20};
  pe.directories[2] = {pe.bss_rva() + 0x10, 16};
  pe.directories[13] = {pe.bss_rva() + 0x2000, 32};
  const PeInfo info = parse_ok(pe.build());
  EXPECT_TRUE(contains(info.problems, "import directory at rva 0x90000 is not in any section"));
  EXPECT_TRUE(
      contains(info.problems, "resource directory at rva 0x2010 lies in zero-filled memory"));
  EXPECT_TRUE(contains(info.problems, "delay-load directory at rva 0x4000 is not in any section"));
}

TEST(pe, unterminated_dll_name_at_the_end_of_the_section_is_a_problem) {
  SyntheticPe pe;
  pe.pad_raw_data = false;
  add_imports(pe, {"KERNEL32.dll"});
  pe.rdata += "cudnn_ops_infer64_8.dll"; // no NUL, and the section's file data ends here
  const auto name_rva = static_cast<std::uint32_t>(k_section_rva + pe.rdata.size() - 23);
  put32(pe.rdata, pe.directories[1].first - k_section_rva + 12, name_rva);
  const PeInfo info = parse_ok(pe.build());
  EXPECT_TRUE(info.imports.empty());
  EXPECT_TRUE(
      contains(info.problems, fmt::format("import 0 name at rva {:#x} is unterminated", name_rva)))
      << info.problems.at(0);
}

TEST(pe, import_directory_without_terminator_is_a_problem) {
  SyntheticPe pe;
  pe.pad_raw_data = false;
  const std::uint32_t name = pe.add_name("KERNEL32.dll");
  std::string table;
  for (std::size_t i = 0; i < 3; ++i) {
    put32(table, i * 20 + 12, name);
    put32(table, i * 20 + 16, name);
  }
  pe.directories[1] = {pe.add(table), 60};
  const PeInfo info = parse_ok(pe.build());
  EXPECT_EQ(info.imports.size(), 3U);
  EXPECT_TRUE(contains(info.problems, "ends after 3 entries without a terminator"))
      << info.problems.at(0);
}

TEST(pe, absurd_import_counts_are_cut_off) {
  SyntheticPe pe;
  const std::uint32_t name = pe.add_name("KERNEL32.dll");
  std::string descriptor(20, '\0');
  put32(descriptor, 12, name);
  put32(descriptor, 16, name);
  std::string table;
  for (std::size_t i = 0; i < 5000; ++i) {
    table += descriptor;
  }
  pe.directories[1] = {pe.add(table), static_cast<std::uint32_t>(table.size())};
  std::string delay(32, '\0');
  put32(delay, 0, 1);
  put32(delay, 4, name);
  put32(delay, 12, name);
  std::string delay_table;
  for (std::size_t i = 0; i < 5000; ++i) {
    delay_table += delay;
  }
  pe.directories[13] = {pe.add(delay_table), static_cast<std::uint32_t>(delay_table.size())};
  const PeInfo info = parse_ok(pe.build());
  EXPECT_EQ(info.imports.size(), 4096U);
  EXPECT_EQ(info.delay_imports.size(), 4096U);
  EXPECT_TRUE(contains(info.problems, "import directory has more than 4096 entries"));
  EXPECT_TRUE(contains(info.problems, "delay-load directory has more than 4096 entries"));
}

TEST(pe, resource_tree_that_loops_is_cut_off) {
  SyntheticPe pe;
  const std::uint32_t tree = add_version_resource(pe, cudnn_version_info());
  // The name level's entry points back at the root directory.
  put32(pe.rdata, tree - k_section_rva + 0x20 + 20, 0x80000000U);
  const PeInfo info = parse_ok(pe.build());
  EXPECT_FALSE(info.version.has_value());
  EXPECT_TRUE(contains(info.problems, "resource tree loops back to the directory at offset 0x0"))
      << info.problems.at(0);
}

TEST(pe, resource_tree_deeper_than_three_levels_is_cut_off) {
  SyntheticPe pe;
  const std::uint32_t tree = add_version_resource(pe, cudnn_version_info());
  // The language level's entry points at a directory instead of a data entry.
  put32(pe.rdata, tree - k_section_rva + 0x38 + 20, 0x80000000U | 0x60U);
  const PeInfo info = parse_ok(pe.build());
  EXPECT_FALSE(info.version.has_value());
  EXPECT_TRUE(contains(info.problems, "resource tree is deeper than 3 levels"));
}

TEST(pe, resource_directory_with_absurd_counts_is_cut_off) {
  SyntheticPe pe;
  pe.pad_raw_data = false;
  const std::uint32_t tree = add_version_resource(pe, cudnn_version_info());
  put16(pe.rdata, tree - k_section_rva + 12, 0xffff);
  put16(pe.rdata, tree - k_section_rva + 14, 0xffff);
  const PeInfo info = parse_ok(pe.build());
  EXPECT_TRUE(contains(info.problems, "claims 131070 entries; only the first 4096 are read"));
  EXPECT_TRUE(contains(info.problems, "4096 entries run past the resource data"));
}

TEST(pe, version_info_with_a_bad_fixed_signature_keeps_its_strings) {
  SyntheticPe pe;
  add_version_resource(pe, cudnn_version_info(0x12345678));
  const PeInfo info = parse_ok(pe.build());
  ASSERT_TRUE(info.version.has_value());
  EXPECT_EQ(info.version->fixed_file_version, "");
  EXPECT_EQ(info.version->file_version, "8.9.4.19");
  EXPECT_TRUE(contains(info.problems, "fixed file info signature 0x12345678"));
}

TEST(pe, damaged_version_info_is_a_problem_not_a_hang) {
  SyntheticPe pe;
  std::string version = cudnn_version_info();
  // The StringFileInfo block (the first child, after the 52-byte fixed info) claims length 0.
  const std::size_t first_child = 40 + 52; // header and key (38 bytes, padded), fixed info
  ASSERT_EQ(version.substr(first_child + 6, 4), std::string("S\0t\0", 4));
  put16(version, first_child, 0);
  add_version_resource(pe, version);
  const PeInfo info = parse_ok(pe.build());
  ASSERT_TRUE(info.version.has_value());
  EXPECT_EQ(info.version->fixed_file_version, "8.9.4.19");
  EXPECT_EQ(info.version->file_version, "");
  EXPECT_TRUE(contains(info.problems, "version resource: a block is shorter than its header"));

  SyntheticPe not_version;
  add_version_resource(not_version, std::string(40, 'x'));
  const PeInfo junk = parse_ok(not_version.build());
  EXPECT_TRUE(contains(junk.problems, "does not start with a VS_VERSION_INFO block"));
}

TEST(pe, version_resource_cut_by_the_end_of_the_file_is_a_problem) {
  SyntheticPe pe;
  pe.pad_raw_data = false;
  add_version_resource(pe, cudnn_version_info());
  const std::string file = pe.build();
  const PeInfo info = parse_ok(file.substr(0, file.size() - 40));
  EXPECT_TRUE(contains(info.problems, "runs past its section's data")) << info.problems.at(0);
  ASSERT_TRUE(info.version.has_value());
  EXPECT_EQ(info.version->fixed_file_version, "8.9.4.19");
}

TEST(pe, certificate_table_means_a_signature_and_its_loss_a_truncation) {
  std::string file = full_synthetic().build();
  append_certificate(file);
  EXPECT_TRUE(parse_ok(file).has_signature);
  EXPECT_EQ(parse_ok(file).problems, std::vector<std::string>{});

  const PeInfo cut = parse_ok(file.substr(0, file.size() - 1));
  EXPECT_FALSE(cut.has_signature);
  EXPECT_TRUE(contains(cut.problems,
                       fmt::format("certificate table (offset {}, 1008 bytes) ends at {}, past the "
                                   "end of the {}-byte file (truncated?)",
                                   file.size() - 1008,
                                   file.size(),
                                   file.size() - 1)));

  std::string bogus = file;
  put32(bogus, bogus.size() - 1008, 5000); // WIN_CERTIFICATE.dwLength larger than the table
  EXPECT_FALSE(parse_ok(bogus).has_signature);
  EXPECT_TRUE(contains(parse_ok(bogus).problems, "holds no valid WIN_CERTIFICATE"));
}

TEST(pe, long_section_names_come_from_the_coff_string_table) {
  SyntheticPe pe;
  pe.rdata_name = "/4";
  pe.rdata = std::string(16, '\0');
  pe.symbol_table = k_section_offset + 0x200;
  pe.trailer = std::string(4, '\0') + ".debug_info" + std::string(1, '\0');
  EXPECT_EQ(parse_ok(pe.build()).section_names, (std::vector<std::string>{".debug_info", ".bss"}));

  pe.trailer = std::string(4, '\0') + ".debug_info"; // unterminated: the raw name stays
  EXPECT_EQ(parse_ok(pe.build()).section_names, (std::vector<std::string>{"/4", ".bss"}));
}

TEST(pe, absurd_section_counts_are_problems) {
  SyntheticPe pe;
  pe.section_count = 0xffff;
  const PeInfo info = parse_ok(pe.build());
  EXPECT_TRUE(contains(info.problems, "65535 sections (windows loads at most 96)"));
  EXPECT_TRUE(contains(info.problems, "only the first 1024 sections are read"));
  EXPECT_TRUE(contains(info.problems, "section table (65535 entries at offset 392) ends at"));
}

// Every single-byte change to a complete image, at every offset, must parse or fail cleanly; the
// sanitizer builds turn any read outside the input into a failure here.
TEST(pe, survives_every_single_byte_corruption) {
  std::string file = full_synthetic().build();
  append_certificate(file, 64);
  for (std::size_t i = 0; i < file.size(); ++i) {
    for (const char value : {'\0', '\xff', '\x80'}) {
      std::string bad = file;
      bad[i] = value;
      auto info = parse_pe(bad);
      if (info) {
        EXPECT_LE(info->imports.size(), 4096U);
      }
    }
  }
}

#ifndef _WIN32

// ---- Real DLLs, built with mingw-w64 ----

constexpr std::string_view k_mingw_gcc = "x86_64-w64-mingw32-gcc";

bool tool_available(std::string_view tool) {
  const std::string command = std::string(tool) + " --version >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

std::string read_binary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs `command` in `dir`; returns its output (stdout and stderr) or fails the test.
bool run_in(const std::filesystem::path& dir,
            const std::string& command,
            std::string* out = nullptr) {
  const auto log = dir / "command.log";
  const std::string full =
      "cd '" + dir.string() + "' && " + command + " >'" + log.string() + "' 2>&1";
  const int rc = std::system(full.c_str());
  const std::string text = read_binary(log);
  if (out != nullptr) {
    *out = text;
  }
  EXPECT_EQ(rc, 0) << command << "\n" << text;
  return rc == 0;
}

constexpr std::string_view k_version_rc = R"(#include <winver.h>
VS_VERSION_INFO VERSIONINFO
 FILEVERSION 8,9,7,29
 PRODUCTVERSION 8,9,7,0
 FILEOS VOS_NT_WINDOWS32
 FILETYPE VFT_DLL
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904E4"
    BEGIN
      VALUE "CompanyName", "NVIDIA Corporation"
      VALUE "FileDescription", "NVIDIA CUDA Deep Neural Network library"
      VALUE "FileVersion", "8.9.7.29"
      VALUE "InternalName", "cudnn"
      VALUE "OriginalFilename", "cudnn64_8.dll"
      VALUE "ProductName", "NVIDIA CUDA Deep Neural Network library"
      VALUE "ProductVersion", "8.9.7"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1252
  END
END
)";

// Builds, in `dir`: dep.dll (linked normally), lazy.dll (linked through a delay-load import
// library made by dlltool) and cudnn64_8.dll, which imports both and carries a version resource
// compiled by windres. `extra` goes on the final link ("-s" strips it, "-g" adds DWARF sections
// with long names).
bool build_mingw_dlls(const test::TempDir& dir, const std::string& extra) {
  dir.write("dep.c", "__declspec(dllexport) int dep_value(void) { return 7; }\n");
  dir.write("lazy.c", "__declspec(dllexport) int lazy_value(void) { return 9; }\n");
  dir.write("lazy.def", "LIBRARY lazy.dll\nEXPORTS\nlazy_value\n");
  dir.write("main.c",
            "int dep_value(void);\nint lazy_value(void);\n"
            "__declspec(dllexport) int total(void) { return dep_value() + lazy_value(); }\n");
  dir.write("version.rc", k_version_rc);
  const std::string gcc(k_mingw_gcc);
  return run_in(dir.path(), gcc + " -shared -s -o dep.dll dep.c -Wl,--out-implib,libdep.dll.a")
         && run_in(dir.path(), gcc + " -shared -s -o lazy.dll lazy.c")
         && run_in(dir.path(),
                   "x86_64-w64-mingw32-dlltool --input-def lazy.def --dllname lazy.dll "
                   "--output-delaylib liblazy.delay.a")
         && run_in(dir.path(), "x86_64-w64-mingw32-windres version.rc -O coff -o version.o")
         && run_in(dir.path(),
                   gcc + " -shared " + extra
                       + " -o cudnn64_8.dll main.c version.o libdep.dll.a liblazy.delay.a");
}

#  define SKIP_WITHOUT_MINGW()                                                                     \
    do {                                                                                           \
      if (!tool_available(k_mingw_gcc) || !tool_available("x86_64-w64-mingw32-windres")            \
          || !tool_available("x86_64-w64-mingw32-dlltool")) {                                      \
        GTEST_SKIP() << "mingw-w64 (x86_64-w64-mingw32-gcc, windres, dlltool) is not installed";   \
      }                                                                                            \
    } while (false)

TEST(pe, reads_a_dll_built_by_mingw) {
  SKIP_WITHOUT_MINGW();
  const test::TempDir dir;
  ASSERT_TRUE(build_mingw_dlls(dir, "-g"));
  std::string file = read_binary(dir.at("cudnn64_8.dll"));
  const PeInfo info = parse_ok(file);
  EXPECT_EQ(info.machine, 0x8664U);
  EXPECT_EQ(info.machine_name, "x64");
  EXPECT_TRUE(info.pe32_plus);
  EXPECT_TRUE(info.is_dll);
  EXPECT_EQ(info.imports.back(), "dep.dll");
  EXPECT_TRUE(contains(info.imports, "KERNEL32.dll"));
  EXPECT_FALSE(info.has_signature);
  EXPECT_EQ(info.problems, std::vector<std::string>{});
  for (const auto* name : {".text", ".rdata", ".idata", ".rsrc", ".reloc", ".debug_info"}) {
    EXPECT_TRUE(std::find(info.section_names.begin(), info.section_names.end(), name)
                != info.section_names.end())
        << name;
  }
  ASSERT_TRUE(info.version.has_value());
  formats::PeVersionInfo want;
  want.file_version = "8.9.7.29";
  want.product_version = "8.9.7";
  want.product_name = "NVIDIA CUDA Deep Neural Network library";
  want.file_description = "NVIDIA CUDA Deep Neural Network library";
  want.company_name = "NVIDIA Corporation";
  want.original_filename = "cudnn64_8.dll";
  want.fixed_file_version = "8.9.7.29";
  want.fixed_product_version = "8.9.7.0";
  EXPECT_EQ(*info.version, want);

  // GNU ld (binutils 2.40) links dlltool's delay-load descriptors but leaves data directory 13
  // empty, so the reader sees none; MSVC's link.exe fills it. Point it at the descriptor, found
  // through its symbol, to read the descriptor that dlltool wrote.
  EXPECT_EQ(info.delay_imports, std::vector<std::string>{});
  std::string nm;
  ASSERT_TRUE(run_in(dir.path(), "x86_64-w64-mingw32-nm cudnn64_8.dll", &nm));
  const auto at = nm.find(" T __DELAY_IMPORT_DESCRIPTOR_");
  ASSERT_NE(at, std::string::npos) << nm;
  const std::uint64_t va = std::stoull(nm.substr(nm.rfind('\n', at) + 1, 16), nullptr, 16);
  const std::size_t opt = get32(file, 0x3c) + 24;
  const std::uint64_t image_base =
      get32(file, opt + 24) | (std::uint64_t{get32(file, opt + 28)} << 32U);
  const std::size_t delay_dir = opt + 112 + 104; // data directory 13, 8 bytes each
  put32(file, delay_dir, static_cast<std::uint32_t>(va - image_base));
  put32(file, delay_dir + 4, 64);
  put32(file, opt - 20 + 4, 0x5eadbeef); // and the COFF timestamp
  const PeInfo patched = parse_ok(file);
  ASSERT_FALSE(patched.delay_imports.empty());
  EXPECT_EQ(patched.delay_imports.front(), "lazy.dll");
  EXPECT_EQ(patched.timestamp, 0x5eadbeefU);
  // dlltool writes one descriptor per library into .text with no terminating entry after it (the
  // linker builds no table), so what follows reads as damage.
  EXPECT_FALSE(patched.problems.empty());
}

TEST(pe, truncated_mingw_dll_always_reports_damage) {
  SKIP_WITHOUT_MINGW();
  const test::TempDir dir;
  ASSERT_TRUE(build_mingw_dlls(dir, "-s"));
  std::string file = read_binary(dir.at("cudnn64_8.dll"));
  append_certificate(file);
  const PeInfo whole = parse_ok(file);
  EXPECT_TRUE(whole.has_signature);
  EXPECT_EQ(whole.problems, std::vector<std::string>{});
  std::vector<std::size_t> cuts;
  for (std::size_t n = 0; n < 0x600; n += 7) {
    cuts.push_back(n);
  }
  for (std::size_t n = 0x600; n < file.size(); n += file.size() / 97) {
    cuts.push_back(n);
  }
  cuts.push_back(file.size() - 1);
  for (const std::size_t n : cuts) {
    auto info = parse_pe(std::string_view(file).substr(0, n));
    if (info) {
      EXPECT_FALSE(info->problems.empty()) << "cut at " << n;
      EXPECT_FALSE(info->has_signature) << "cut at " << n;
      EXPECT_TRUE(contains(info->problems, "(truncated?)")) << "cut at " << n;
    } else {
      EXPECT_EQ(info.error().code, ErrorCode::parse);
      EXPECT_LT(n, 0x400U) << info.error().message; // the headers fit in the first 1 KiB
    }
  }
}

TEST(pe, reads_a_32_bit_dll_built_by_mingw) {
  if (!tool_available("i686-w64-mingw32-gcc")) {
    GTEST_SKIP() << "i686-w64-mingw32-gcc is not installed";
  }
  const test::TempDir dir;
  dir.write("x.c", "__declspec(dllexport) int x(void) { return 1; }\n");
  ASSERT_TRUE(run_in(dir.path(), "i686-w64-mingw32-gcc -shared -s -o x.dll x.c"));
  const PeInfo info = parse_ok(read_binary(dir.at("x.dll")));
  EXPECT_EQ(info.machine_name, "x86");
  EXPECT_FALSE(info.pe32_plus);
  EXPECT_TRUE(info.is_dll);
  EXPECT_TRUE(contains(info.imports, "KERNEL32.dll"));
  EXPECT_EQ(info.problems, std::vector<std::string>{});
}

#endif // _WIN32

} // namespace
} // namespace doctor
