// SPDX-License-Identifier: MIT
#include "support/nvcc.hpp"
#include "support/temp_tree.hpp"

#include <doctor/collect/binary_reader.hpp>
#include <doctor/formats/fatbin.hpp>
#include <doctor/platform/file.hpp>

#include <gtest/gtest.h>

#include <stdio.h> // popen

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace doctor {
namespace {

using formats::FatbinEntry;
using formats::FatbinInfo;
using formats::FatbinKind;
using formats::parse_fatbin;
using Strings = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// Hand-built sections, laid out as fatbin.cpp describes.

void put(std::string& out, std::uint64_t value, unsigned width) {
  for (unsigned i = 0; i < width; ++i) {
    out.push_back(static_cast<char>((value >> (8U * i)) & 0xFFU));
  }
}

struct EntrySpec {
  unsigned kind = 2;
  unsigned arch = 75;
  std::uint64_t flags = 0x11;
  std::uint64_t payload = 16;
  unsigned header_size = 64;
  unsigned major = 1;
  unsigned minor = 8;
};

std::string entry(const EntrySpec& e) {
  std::string out;
  put(out, e.kind, 2);
  put(out, 0x0101, 2);
  put(out, e.header_size, 4);
  put(out, e.payload, 8);
  put(out, 0, 4); // compressed size
  put(out, 0, 4);
  put(out, e.minor, 2);
  put(out, e.major, 2);
  put(out, e.arch, 4);
  put(out, 0, 4); // name offset
  put(out, 0, 4); // name length
  put(out, e.flags, 8);
  put(out, 0, 8);
  put(out, 0, 8); // uncompressed size
  out.resize(e.header_size, '\0');
  out.append(e.payload, '\x5A');
  return out;
}

std::string container(const std::vector<EntrySpec>& entries,
                      std::uint32_t magic = 0xBA55ED50U,
                      std::optional<std::uint64_t> fat_size = std::nullopt) {
  std::string body;
  for (const EntrySpec& e : entries) {
    body += entry(e);
  }
  std::string out;
  put(out, magic, 4);
  put(out, 1, 2);
  put(out, 16, 2);
  put(out, fat_size.value_or(body.size()), 8);
  return out + body;
}

Strings names(const FatbinInfo& info) {
  Strings out;
  for (const FatbinEntry& e : info.entries) {
    out.push_back(e.arch_name());
  }
  return out;
}

TEST(Fatbin, ReadsOneContainerWithTwoEntries) {
  const std::string section = container(
      {{.kind = 2, .arch = 75, .payload = 24},
       {.kind = 1, .arch = 90, .flags = 0x8011, .payload = 40, .header_size = 80, .major = 9}});
  const FatbinInfo info = parse_fatbin(section);
  EXPECT_TRUE(info.problems.empty()) << info.problems.front();
  EXPECT_EQ(info.containers, 1U);
  ASSERT_EQ(info.entries.size(), 2U);
  EXPECT_EQ(info.entries[0].kind, FatbinKind::sass);
  EXPECT_EQ(info.entries[0].arch, 75U);
  EXPECT_FALSE(info.entries[0].compressed);
  EXPECT_EQ(info.entries[0].payload_size, 24U);
  EXPECT_EQ(info.entries[0].offset, 16U);
  EXPECT_EQ(info.entries[1].kind, FatbinKind::ptx);
  EXPECT_TRUE(info.entries[1].compressed);
  EXPECT_EQ(info.entries[1].version_major, 9U);
  EXPECT_EQ(info.entries[1].version_minor, 8U);
  EXPECT_EQ(info.entries[1].offset, 16U + 64 + 24);
  EXPECT_EQ(names(info), (Strings{"sm_75", "compute_90"}));
  EXPECT_EQ(formats::fatbin_archs(info), (Strings{"sm_75", "compute_90"}));
}

TEST(Fatbin, NamesArchSpecificAndFamilySpecificTargets) {
  const std::string section = container({{.arch = 90, .flags = 0x100011},
                                         {.arch = 100, .flags = 0x1200011, .header_size = 112},
                                         {.kind = 1, .arch = 100, .flags = 0x108011},
                                         {.kind = 16, .arch = 80}});
  const FatbinInfo info = parse_fatbin(section);
  EXPECT_TRUE(info.problems.empty());
  EXPECT_EQ(names(info), (Strings{"sm_90a", "sm_100f", "compute_100a", "kind 16 arch 80"}));
  EXPECT_EQ(info.entries[3].kind, FatbinKind::other);
  EXPECT_EQ(formats::fatbin_archs(info), (Strings{"sm_90a", "sm_100f", "compute_100a"}));
}

TEST(Fatbin, SortsArchitecturesNumericallyAndKeepsOnlyCommonOnesAsCommon) {
  // Two containers end to end (the second after 8 bytes of padding): both have sm_75 and sm_120,
  // only one sm_89; the PTX is in the only container that has PTX.
  std::string section = container({{.arch = 120}, {.arch = 75}, {.arch = 89}});
  section.append(8, '\0');
  section += container({{.arch = 75}, {.arch = 120}, {.kind = 1, .arch = 120}});
  const FatbinInfo info = parse_fatbin(section);
  EXPECT_TRUE(info.problems.empty()) << info.problems.front();
  EXPECT_EQ(info.containers, 2U);
  EXPECT_EQ(info.entries.back().container, 1U);
  EXPECT_EQ(formats::fatbin_archs(info), (Strings{"sm_75", "sm_89", "sm_120", "compute_120"}));
  EXPECT_EQ(formats::fatbin_common_archs(info), (Strings{"sm_75", "sm_120", "compute_120"}));
  EXPECT_TRUE(formats::fatbin_common_archs(FatbinInfo{}).empty());
}

TEST(Fatbin, ReportsBadMagicAndKeepsWhatCameBefore) {
  const std::string section = container({{.arch = 80}}) + container({{.arch = 86}}, 0x12345678U);
  const FatbinInfo info = parse_fatbin(section);
  EXPECT_EQ(names(info), (Strings{"sm_80"}));
  ASSERT_EQ(info.problems.size(), 1U);
  EXPECT_NE(info.problems[0].find("magic 0x12345678, not 0xba55ed50"), std::string::npos)
      << info.problems[0];
}

TEST(Fatbin, ReportsTruncatedSections) {
  const std::string whole = container({{.arch = 80, .payload = 32}, {.arch = 86, .payload = 32}});
  // Cut inside the container header, inside the second entry's header, inside its payload.
  for (const std::size_t cut : {std::size_t{10}, std::size_t{16 + 96 + 20}, whole.size() - 1}) {
    const FatbinInfo info = parse_fatbin(std::string_view(whole).substr(0, cut));
    EXPECT_FALSE(info.problems.empty()) << cut;
    if (cut > 16) {
      EXPECT_NE(info.problems[0].find("(truncated?)"), std::string::npos) << info.problems[0];
      EXPECT_EQ(names(info).front(), "sm_80") << cut;
    }
  }
  EXPECT_TRUE(parse_fatbin("").problems.empty());
  EXPECT_TRUE(parse_fatbin("").entries.empty());
}

TEST(Fatbin, ReportsPayloadPastTheContainerEnd) {
  std::string section = container({{.arch = 80, .payload = 16}});
  // Make the entry claim 1 TiB of payload.
  std::string huge;
  put(huge, std::uint64_t{1} << 40U, 8);
  section.replace(16 + 8, 8, huge);
  const FatbinInfo info = parse_fatbin(section);
  EXPECT_EQ(names(info), (Strings{"sm_80"}));
  ASSERT_EQ(info.problems.size(), 1U);
  EXPECT_NE(info.problems[0].find("ends past its container's end"), std::string::npos)
      << info.problems[0];
  // A payload size that would wrap when added to the offset.
  put(huge.assign(""), ~std::uint64_t{0} - 8, 8);
  section.replace(16 + 8, 8, huge);
  EXPECT_EQ(parse_fatbin(section).problems.size(), 1U);
}

TEST(Fatbin, RejectsHeadersSmallerThanTheirFixedPart) {
  std::string section = container({{.arch = 80}});
  section[16 + 4] = 8; // entry header size 8
  EXPECT_NE(parse_fatbin(section).problems.at(0).find("8-byte header, less than 64"),
            std::string::npos);
  section = container({{.arch = 80}});
  section[6] = 4; // container header size 4
  EXPECT_NE(parse_fatbin(section).problems.at(0).find("4-byte header, less than 16"),
            std::string::npos);
}

TEST(Fatbin, BoundsTheNumberOfContainers) {
  // 1M + 1 empty containers (16 bytes each) stop at the cap with a problem.
  const std::string one = container({});
  std::string section;
  const std::size_t count = (std::size_t{1} << 20U) + 1;
  section.reserve(one.size() * count);
  for (std::size_t i = 0; i < count; ++i) {
    section += one;
  }
  const FatbinInfo info = parse_fatbin(section);
  EXPECT_EQ(info.containers, std::uint64_t{1} << 20U);
  ASSERT_EQ(info.problems.size(), 1U);
  EXPECT_NE(info.problems[0].find("more than 1048576 containers"), std::string::npos);
}

TEST(Fatbin, BoundsTheNumberOfEntries) {
  // One container of 1M + 1 empty-payload entries.
  const std::size_t count = (std::size_t{1} << 20U) + 1;
  const std::string one = entry({.arch = 80, .payload = 0});
  std::string body;
  body.reserve(one.size() * count);
  for (std::size_t i = 0; i < count; ++i) {
    body += one;
  }
  std::string section;
  put(section, 0xBA55ED50U, 4);
  put(section, 1, 2);
  put(section, 16, 2);
  put(section, body.size(), 8);
  section += body;
  const FatbinInfo info = parse_fatbin(section);
  EXPECT_EQ(info.entries.size(), std::size_t{1} << 20U);
  ASSERT_EQ(info.problems.size(), 1U);
  EXPECT_NE(info.problems[0].find("more than 1048576 entries"), std::string::npos);
}

TEST(Fatbin, ImageWithoutAFatbinSectionIsNotFound) {
  EXPECT_EQ(formats::read_fatbin_image("plain text").error().code, ErrorCode::parse);
  test::TempDir dir;
  const auto lib = dir.path() / "libplain.so";
  if (!test::make_elf_library(lib, "libplain.so")) {
    GTEST_SKIP() << "gcc cannot build an ELF library here";
  }
  auto result = collect::read_fatbin_file(lib);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::not_found);
}

// ---------------------------------------------------------------------------------------------
// Libraries built with the CUDA toolkit's nvcc, cross-checked with cuobjdump when there is one.

std::string run_capture(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) {
    return out;
  }
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    out.append(buffer, n);
  }
  ::pclose(pipe);
  return out;
}

// The toolkit's cuobjdump, or $DOCTOR_CUOBJDUMP (Triton wheels ship one), or "" if neither runs.
std::string cuobjdump() {
  const char* from_env = std::getenv("DOCTOR_CUOBJDUMP");
  for (const char* candidate : {from_env, "/usr/local/cuda/bin/cuobjdump"}) {
    if (candidate != nullptr
        && std::system((std::string(candidate) + " --version >/dev/null 2>&1").c_str()) == 0) {
      return candidate;
    }
  }
  return "";
}

// Architectures in cuobjdump's listing: "ELF file 1: libk.1.sm_75.cubin" gives sm_75, "PTX file 1:
// libk.1.sm_90.ptx" compute_90.
std::set<std::string> cuobjdump_archs(const std::string& listing) {
  std::set<std::string> out;
  static const std::regex k_line(R"((ELF|PTX) file +\d+: .*\.sm_(\d+[a-z]?)\.(cubin|ptx))");
  for (std::sregex_iterator it(listing.begin(), listing.end(), k_line), end; it != end; ++it) {
    out.insert(((*it)[1] == "ELF" ? "sm_" : "compute_") + (*it)[2].str());
  }
  return out;
}

struct CudaLibrary {
  std::unique_ptr<test::TempDir> dir;
  std::filesystem::path path;
};

// libk.so for sm_75 and sm_90 with compute_90 PTX, built once per run; empty path without nvcc.
const CudaLibrary& cuda_library() {
  static const CudaLibrary k_lib = [] {
    CudaLibrary lib{std::make_unique<test::TempDir>(), {}};
    const auto path = lib.dir->path() / "libk.so";
    if (test::make_cuda_library(path,
                                "-gencode arch=compute_75,code=sm_75 "
                                "-gencode arch=compute_90,code=[sm_90,compute_90]")) {
      lib.path = path;
    }
    return lib;
  }();
  return k_lib;
}

#define REQUIRE_CUDA_LIBRARY()                                                                     \
  if (cuda_library().path.empty()) {                                                               \
    GTEST_SKIP() << "no CUDA toolkit: " << test::k_nvcc << " cannot build a CUDA library here";    \
  }

TEST(FatbinNvcc, ListsExactlyTheTargetsNvccWasGiven) {
  REQUIRE_CUDA_LIBRARY();
  auto file = collect::read_fatbin_file(cuda_library().path);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->format, "elf");
  EXPECT_EQ(file->section_name, ".nv_fatbin");
  EXPECT_GT(file->section_size, 0U);
  EXPECT_TRUE(file->fatbin.problems.empty()) << file->fatbin.problems.front();
  EXPECT_EQ(formats::fatbin_archs(file->fatbin), (Strings{"sm_75", "sm_90", "compute_90"}));
  EXPECT_EQ(formats::fatbin_common_archs(file->fatbin), (Strings{"sm_75", "sm_90", "compute_90"}));
  for (const FatbinEntry& e : file->fatbin.entries) {
    if (e.kind == FatbinKind::ptx) {
      // CUDA 13.0 writes PTX ISA 9.0; any toolkit this doctor meets writes 6.0 or later.
      EXPECT_GE(e.version_major, 6U) << e.arch_name();
    }
  }
}

TEST(FatbinNvcc, ReadsTheSameFromMemoryAndFromFileAndReportsATruncatedCopy) {
  REQUIRE_CUDA_LIBRARY();
  const auto bytes = platform::read_file(cuda_library().path, std::size_t{64} << 20U);
  ASSERT_TRUE(bytes);
  auto from_file = collect::read_fatbin_file(cuda_library().path);
  auto from_memory = formats::read_fatbin_image(*bytes);
  ASSERT_TRUE(from_file && from_memory);
  EXPECT_EQ(from_file->fatbin.entries, from_memory->fatbin.entries);
  // A section header whose size runs past the end of the file (Elf64_Shdr: sh_offset at 24, then
  // sh_size): the entries are still read, with a "(truncated?)" problem first.
  std::string damaged = *bytes;
  std::string range;
  put(range, from_file->section_offset, 8);
  put(range, from_file->section_size, 8);
  const auto at = damaged.rfind(range);
  ASSERT_NE(at, std::string::npos);
  std::string size;
  put(size, damaged.size(), 8);
  damaged.replace(at + 8, 8, size);
  test::TempDir dir;
  const auto path = dir.path() / "libdamaged.so";
  test::write_file(path, damaged);
  for (const auto& result :
       {collect::read_fatbin_file(path), formats::read_fatbin_image(damaged)}) {
    ASSERT_TRUE(result) << result.error().message;
    ASSERT_FALSE(result->fatbin.problems.empty());
    EXPECT_NE(result->fatbin.problems[0].find("ends past the end of the"), std::string::npos)
        << result->fatbin.problems[0];
    EXPECT_EQ(formats::fatbin_archs(result->fatbin), (Strings{"sm_75", "sm_90", "compute_90"}));
  }
  // Cut before its end, the file loses its section headers: no section, and the reason.
  auto cut = formats::read_fatbin_image(std::string_view(*bytes).substr(0, bytes->size() / 2));
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().code, ErrorCode::not_found);
  EXPECT_NE(cut.error().message.find("(truncated?)"), std::string::npos) << cut.error().message;
}

TEST(FatbinNvcc, AgreesWithCuobjdump) {
  REQUIRE_CUDA_LIBRARY();
  const std::string tool = cuobjdump();
  if (tool.empty()) {
    GTEST_SKIP() << "no cuobjdump (/usr/local/cuda/bin/cuobjdump or $DOCTOR_CUOBJDUMP)";
  }
  const auto listing =
      run_capture(tool + " --list-elf --list-ptx '" + cuda_library().path.string() + "'");
  auto file = collect::read_fatbin_file(cuda_library().path);
  ASSERT_TRUE(file);
  const auto archs = formats::fatbin_archs(file->fatbin);
  EXPECT_EQ(std::set<std::string>(archs.begin(), archs.end()), cuobjdump_archs(listing)) << listing;
  // cuobjdump lists every entry once.
  std::size_t listed = 0;
  for (std::size_t at = listing.find(" file "); at != std::string::npos;
       at = listing.find(" file ", at + 1)) {
    ++listed;
  }
  EXPECT_EQ(file->fatbin.entries.size(), listed) << listing;
}

TEST(FatbinNvcc, ReadsArchAndFamilySpecificTargets) {
  REQUIRE_CUDA_LIBRARY();
  test::TempDir dir;
  const auto path = dir.path() / "libs.so";
  if (!test::make_cuda_library(path,
                               "-gencode arch=compute_90a,code=[sm_90a,compute_90a] "
                               "-gencode arch=compute_100f,code=[sm_100f,compute_100f] "
                               "-gencode arch=compute_120,code=sm_120")) {
    GTEST_SKIP() << "this nvcc does not know sm_100f (CUDA 12.9 or later does)";
  }
  auto file = collect::read_fatbin_file(path);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_TRUE(file->fatbin.problems.empty());
  EXPECT_EQ(formats::fatbin_archs(file->fatbin),
            (Strings{"sm_90a", "sm_100f", "sm_120", "compute_90a", "compute_100f"}));
}

} // namespace
} // namespace doctor
