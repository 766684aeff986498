// SPDX-License-Identifier: MIT
#include "support/shared_testdata.hpp"
#include "support/test_paths.hpp"

#include <doctor/crash/dump_observations.hpp>
#include <doctor/formats/minidump.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace doctor::formats {
namespace {

std::string shared_file(const std::string& name) {
  return test::shared_testdata_dir() + "/windows-dumps/" + name;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Reads a shared sample or skips the test.
#define READ_OR_SKIP(var, name)                                                                    \
  const std::string var##_path = shared_file(name);                                                \
  if (!std::filesystem::exists(var##_path)) {                                                      \
    DOCTOR_MISSING_TESTDATA(var##_path);                                                           \
  }                                                                                                \
  const std::string var = read_all(var##_path)

std::string field(const crash::Observation& o, std::string_view name) {
  const std::string* v = o.field(name);
  return v == nullptr ? std::string("<none>") : *v;
}

void put32(std::string& b, std::size_t at, std::uint32_t v) {
  if (b.size() < at + 4) {
    b.resize(at + 4, '\0');
  }
  for (int i = 0; i < 4; ++i) {
    b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFFU);
  }
}

void put64(std::string& b, std::size_t at, std::uint64_t v) {
  put32(b, at, static_cast<std::uint32_t>(v));
  put32(b, at + 4, static_cast<std::uint32_t>(v >> 32U));
}

void put_name(std::string& b, std::size_t at, std::string_view ascii) {
  put32(b, at, static_cast<std::uint32_t>(ascii.size() * 2));
  for (std::size_t i = 0; i < ascii.size(); ++i) {
    b.resize(std::max(b.size(), at + 4 + 2 * i + 2), '\0');
    b[at + 4 + 2 * i] = ascii[i];
    b[at + 4 + 2 * i + 1] = '\0';
  }
}

// A python.exe crash inside cuDNN: header, a directory of three streams, an access-violation
// exception, x64 system info and a module list of python.exe and cudnn_cnn_infer64_8.dll.
std::string synthetic_cudnn_crash() {
  constexpr std::uint64_t k_cudnn_base = 0x7ffb12340000;
  std::string b;
  put32(b, 0x00, 0x504D444D); // "MDMP"
  put32(b, 0x04, 0xA793);
  put32(b, 0x08, 3);
  put32(b, 0x0C, 0x20);
  put32(b, 0x14, 1700000000);
  // directory at 0x20: exception @0x44 (168), system info @0xEC (56), module list @0x124
  put32(b, 0x20, 6);
  put32(b, 0x24, 168);
  put32(b, 0x28, 0x44);
  put32(b, 0x2C, 7);
  put32(b, 0x30, 56);
  put32(b, 0x34, 0xEC);
  put32(b, 0x38, 4);
  put32(b, 0x3C, 4 + 2 * 108);
  put32(b, 0x40, 0x124);
  put32(b, 0x44, 4242);                          // thread id
  put32(b, 0x44 + 0x08, 0xC0000005);             // code
  put64(b, 0x44 + 0x18, k_cudnn_base + 0x1a2b3); // address
  put32(b, 0x44 + 0x20, 2);                      // parameters
  put64(b, 0x44 + 0x28, 0);                      // read
  put64(b, 0x44 + 0x30, 0x10);                   // from 0x10
  b.resize(0xEC, '\0');
  put32(b, 0xEC, 9); // AMD64
  put32(b, 0xEC + 0x08, 10);
  put32(b, 0xEC + 0x10, 19045);
  put32(b, 0xEC + 0x14, 2);
  put32(b, 0x124, 2);
  const std::size_t m0 = 0x128;
  const std::size_t m1 = m0 + 108;
  const std::size_t names = m1 + 108;
  put64(b, m0, 0x7ff700000000);
  put32(b, m0 + 8, 0x10000);
  put32(b, m0 + 0x14, static_cast<std::uint32_t>(names));
  put64(b, m1, k_cudnn_base);
  put32(b, m1 + 8, 0x20000000);
  put32(b, m1 + 0x10, 0x5F000000);
  put32(b, m1 + 0x14, static_cast<std::uint32_t>(names + 0x40));
  put32(b, m1 + 0x18, 0xFEEF04BD);
  put32(b, m1 + 0x18 + 8, (8U << 16U) | 9U);
  put32(b, m1 + 0x18 + 12, (2U << 16U) | 26U);
  put_name(b, names, "C:\\Python310\\python.exe");
  put_name(b, names + 0x40, "C:\\venv\\torch\\lib\\cudnn_cnn_infer64_8.dll");
  return b;
}

TEST(MiniDump, TestAppAccessViolation) {
  READ_OR_SKIP(bytes, "test_app_usermode.dmp");
  auto d = parse_minidump(bytes);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->exception_code, 0xC0000005U);
  EXPECT_EQ(d->exception_address, 0x40429eU);
  EXPECT_EQ(d->thread_id, 3060U);
  EXPECT_EQ(d->modules.size(), 13U);
  ASSERT_EQ(d->faulting_module, 0U);
  EXPECT_EQ(d->modules[0].name, "test_app.exe");
  EXPECT_EQ(d->modules[1].version, "5.1.2600.2180");
  EXPECT_EQ(d->os_build, 2600U);
  EXPECT_EQ(d->arch, 0U);
  const crash::Observation o = crash::observe_minidump(*d, Origin{"test.dmp", ""});
  EXPECT_EQ(o.kind, crash::ObservationKind::app_crash);
  EXPECT_EQ(o.code, "0xc0000005");
  EXPECT_EQ(field(o, "process"), "test_app.exe");
  EXPECT_EQ(field(o, "module"), "test_app.exe");
  EXPECT_EQ(field(o, "module_offset"), "0x429e");
  EXPECT_EQ(field(o, "module_path"), "c:\\test_app.exe");
  EXPECT_EQ(field(o, "access"), "write at 0x45");
  EXPECT_EQ(field(o, "arch"), "x86");
  EXPECT_EQ(o.when.utc_usec, std::int64_t{1171480435} * 1000000);
  EXPECT_EQ(o.lines.at(0), "test_app.exe: exception 0xC0000005 at test_app.exe+0x429e");
}

TEST(MiniDump, InvalidParameterCrash) {
  READ_OR_SKIP(bytes, "invalid_parameter_usermode.dmp");
  auto d = parse_minidump(bytes);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->exception_code, 0xC000000DU);
  EXPECT_EQ(d->exception_info.size(), 3U);
  EXPECT_EQ(d->modules.size(), 31U);
  EXPECT_EQ(d->modules[0].name, "CrashTest.exe");
  EXPECT_EQ(d->modules[1].version, "6.2.17134.254"); // the file version; product 10.0
  EXPECT_EQ(d->os_build, 17134U);
  EXPECT_EQ(d->arch, 9U);
  EXPECT_FALSE(d->faulting_module); // address 0
  const crash::Observation o = crash::observe_minidump(*d, Origin{"x.dmp", ""});
  EXPECT_EQ(o.code, "0xc000000d");
  EXPECT_EQ(field(o, "module"), "<none>");
  EXPECT_EQ(field(o, "os_build"), "17134");
  EXPECT_EQ(o.lines.at(0), "CrashTest.exe: exception 0xC000000D at 0x0");
}

TEST(MiniDump, CalcBreakpoint) {
  READ_OR_SKIP(bytes, "calc_usermode.dmp");
  auto d = parse_minidump(bytes);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->exception_code, 0x80000003U);
  EXPECT_EQ(d->modules.size(), 28U);
  EXPECT_EQ(d->modules[0].name, "calc.exe");
  EXPECT_EQ(d->modules[0].version, "6.1.7600.16385");
  EXPECT_EQ(d->os_build, 7601U);
  ASSERT_TRUE(d->faulting_module);
  EXPECT_EQ(d->modules[*d->faulting_module].name, "ntdll.dll");
  const crash::Observation o = crash::observe_minidump(*d, Origin{"calc.dmp", ""});
  EXPECT_EQ(o.code, "0x80000003");
  EXPECT_EQ(field(o, "process"), "calc.exe");
  EXPECT_EQ(field(o, "module"), "ntdll.dll");
  EXPECT_EQ(field(o, "module_version"), "6.1.7601.23543");
  EXPECT_EQ(o.lines.at(0), "calc.exe: exception 0x80000003 at ntdll.dll+0x4ae10");
}

TEST(MiniDump, MalformedFilesGiveAnErrorOrWarnings) {
  int seen = 0;
  for (const char* name : {"malformed_invalid_range.dmp",
                           "malformed_invalid_record_count.dmp",
                           "fuzzed_1.mdmp",
                           "fuzzed_2.mdmp"}) {
    const std::string path = shared_file(name);
    if (!std::filesystem::exists(path)) {
      continue;
    }
    ++seen;
    auto d = parse_minidump(read_all(path));
    if (d) {
      EXPECT_FALSE(d->warnings.empty()) << name;
      (void)crash::observe_minidump(*d, Origin{name, ""});
    } else {
      EXPECT_FALSE(d.error().message.empty()) << name;
    }
  }
  if (seen == 0) {
    DOCTOR_MISSING_TESTDATA("the malformed and fuzzed samples of windows-dumps");
  }
  auto f1 = parse_minidump(read_all(shared_file("fuzzed_1.mdmp")));
  ASSERT_FALSE(f1);
  EXPECT_EQ(f1.error().message,
            "truncated minidump: stream directory at 0xffff00 outside the file");
}

TEST(MiniDump, RefusesKernelDumpsAndJunk) {
  READ_OR_SKIP(bytes, "triage_x64.dmp");
  auto d = parse_minidump(bytes);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, ErrorCode::parse);
  EXPECT_EQ(d.error().message, "a kernel dump (PAGEDU64), not a user-mode minidump");
  EXPECT_EQ(parse_minidump("MZ\x90").error().message,
            "not a user-mode minidump: no MDMP signature");
  EXPECT_FALSE(parse_minidump("MDMP\x93\xa7"));
}

TEST(MiniDump, SyntheticCudnnCrashNamesTheCudnnModule) {
  const std::string bytes = synthetic_cudnn_crash();
  auto d = parse_minidump(bytes);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->warnings.empty());
  ASSERT_EQ(d->modules.size(), 2U);
  ASSERT_EQ(d->faulting_module, 1U);
  const crash::Observation o = crash::observe_minidump(*d, Origin{"python.exe.4242.dmp", ""});
  EXPECT_EQ(o.code, "0xc0000005");
  EXPECT_EQ(field(o, "process"), "python.exe");
  EXPECT_EQ(field(o, "module"), "cudnn_cnn_infer64_8.dll");
  EXPECT_EQ(field(o, "module_offset"), "0x1a2b3");
  EXPECT_EQ(field(o, "module_version"), "8.9.2.26");
  EXPECT_EQ(field(o, "module_path"), "C:\\venv\\torch\\lib\\cudnn_cnn_infer64_8.dll");
  EXPECT_EQ(field(o, "exception_address"), "0x7ffb1235a2b3");
  EXPECT_EQ(field(o, "access"), "read at 0x10");
  EXPECT_EQ(field(o, "os_build"), "19045");
  EXPECT_EQ(field(o, "arch"), "x64");
  EXPECT_EQ(o.lines.at(0), "python.exe: exception 0xC0000005 at cudnn_cnn_infer64_8.dll+0x1a2b3");
}

TEST(MiniDump, TruncatedCopiesNeverCrash) {
  const std::string bytes = synthetic_cudnn_crash();
  for (std::size_t len = 0; len <= bytes.size(); ++len) {
    auto d = parse_minidump(std::string_view(bytes).substr(0, len));
    if (len < 0x2C) { // header plus the first directory entry
      EXPECT_FALSE(d) << len;
      continue;
    }
    ASSERT_TRUE(d) << len << ": " << d.error().message;
    if (len < bytes.size()) {
      EXPECT_FALSE(d->warnings.empty()) << len;
    }
    (void)crash::observe_minidump(*d, Origin{});
  }
  std::string flipped = bytes;
  for (std::size_t i = 0x20; i < flipped.size(); i += 5) {
    flipped[i] = static_cast<char>(~flipped[i]);
    auto d = parse_minidump(flipped);
    ASSERT_TRUE(d) << i;
    (void)crash::observe_minidump(*d, Origin{});
  }
}

} // namespace
} // namespace doctor::formats
