// SPDX-License-Identifier: MIT
#include "support/shared_testdata.hpp"
#include "support/test_paths.hpp"

#include <doctor/crash/dump_observations.hpp>
#include <doctor/formats/kernel_dump.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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

void put32(std::string& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFFU);
  }
}

void put64(std::string& b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    b[at + i] = static_cast<char>((v >> (8 * i)) & 0xFFU);
  }
}

class TriageDump : public ::testing::Test {
protected:
  void SetUp() override {
    const std::string path = shared_file("triage_x64.dmp");
    if (!std::filesystem::exists(path)) {
      DOCTOR_MISSING_TESTDATA(path);
    }
    bytes = read_all(path);
  }
  std::string bytes;
};

const DumpModule* find_module(const KernelDump& d, std::string_view name) {
  const auto it = std::find_if(
      d.modules.begin(), d.modules.end(), [&](const DumpModule& m) { return m.name == name; });
  return it == d.modules.end() ? nullptr : &*it;
}

TEST_F(TriageDump, ReadsTheHeaderAsTheResearchVerified) {
  auto d = parse_kernel_dump(bytes);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->bits, 64U);
  EXPECT_EQ(d->major_version, 0xFU);
  EXPECT_EQ(d->os_build, 19041U);
  EXPECT_EQ(d->machine, 0x8664U);
  EXPECT_EQ(d->processors, 16U);
  EXPECT_EQ(d->bugcheck_code, 0x1000007EU);
  EXPECT_EQ(masked_code(d->bugcheck_code), 0x7EU);
  EXPECT_EQ(d->params[0] & 0xFFFFFFFFU, 0xC0000005U);
  EXPECT_EQ(d->params[1], 0xfffff8048b58334cULL);
  EXPECT_EQ(d->dump_type, 4U);
  EXPECT_EQ(d->context_ip, 0xfffff8048b58334cULL);
  ASSERT_TRUE(d->uptime_usec);
  EXPECT_NEAR(static_cast<double>(*d->uptime_usec), 3.747e6, 1e4);
  // 2021-02-21 01:38:22 UTC
  ASSERT_TRUE(d->crash_time_utc_usec);
  EXPECT_EQ(*d->crash_time_utc_usec / 1000000, 1613871502);
  EXPECT_TRUE(d->warnings.empty()) << d->warnings.front();
}

TEST_F(TriageDump, ReadsTheDriverListFromTheStringPool) {
  auto d = parse_kernel_dump(bytes);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->modules.size(), 151U);
  EXPECT_EQ(d->modules[0].name, "ntoskrnl.exe");
  EXPECT_EQ(d->modules[0].path, "\\SystemRoot\\system32\\ntoskrnl.exe");
  EXPECT_EQ(d->modules[0].base, 0xfffff8047ba00000ULL);
  EXPECT_EQ(d->modules[1].name, "hal.dll");
  const DumpModule* nv = find_module(*d, "nvlddmkm.sys");
  ASSERT_NE(nv, nullptr);
  EXPECT_EQ(nv->timestamp, 0x5FED9856U);
  EXPECT_EQ(nv->base, 0xfffff8048b6b0000ULL);
  EXPECT_NE(nv->path.find("nvlddmkm.sys"), std::string::npos);
  EXPECT_FALSE(d->broken_driver);
}

TEST_F(TriageDump, ParameterTwoPointsAtAmdppm) {
  auto d = parse_kernel_dump(bytes);
  ASSERT_TRUE(d);
  const Blame b = blame(*d, 2U);
  ASSERT_TRUE(b.hit);
  EXPECT_EQ(b.hit->module->name, "amdppm.sys");
  EXPECT_EQ(b.hit->offset, 0x334cU);
  EXPECT_EQ(b.how, "parameter 2");
}

TEST_F(TriageDump, StackScanFindsTheDriversBlueScreenViewShows) {
  auto d = parse_kernel_dump(bytes);
  ASSERT_TRUE(d);
  ASSERT_GE(d->stack_modules.size(), 2U);
  EXPECT_EQ(d->modules[d->stack_modules[0]].name, "amdppm.sys");
  EXPECT_EQ(d->modules[d->stack_modules[1]].name, "ACPI.sys");
  const Blame b = blame(*d, std::nullopt);
  ASSERT_TRUE(b.hit);
  EXPECT_EQ(b.how, "stack scan");
  EXPECT_EQ(b.hit->module->name, "amdppm.sys");
}

TEST_F(TriageDump, ObservationCarriesCodeParamsAndBlame) {
  auto d = parse_kernel_dump(bytes);
  ASSERT_TRUE(d);
  const crash::Observation o = crash::observe_kernel_dump(*d, Origin{"triage_x64.dmp", ""}, 2U);
  EXPECT_EQ(o.kind, crash::ObservationKind::bugcheck);
  EXPECT_EQ(o.code, "0x7e");
  EXPECT_EQ(o.origin.locator, "header");
  EXPECT_EQ(o.when.uptime_usec, d->uptime_usec);
  EXPECT_EQ(o.when.utc_usec, d->crash_time_utc_usec);
  auto field = [&](std::string_view name) {
    const std::string* v = o.field(name);
    return v == nullptr ? std::string("<none>") : *v;
  };
  EXPECT_EQ(field("raw_code"), "0x1000007e");
  EXPECT_EQ(field("param1"), "0xffffffffc0000005");
  EXPECT_EQ(field("param2"), "0xfffff8048b58334c");
  EXPECT_EQ(field("exception_code"), "0xc0000005");
  EXPECT_EQ(field("os_build"), "19041");
  EXPECT_EQ(field("arch"), "x64");
  EXPECT_EQ(field("dump_type"), "triage");
  EXPECT_EQ(field("module"), "amdppm.sys");
  EXPECT_EQ(field("module_offset"), "0x334c");
  EXPECT_EQ(field("blamed_by"), "parameter 2");
  EXPECT_EQ(field("module_timestamp"), "<none>"); // 0xc9c03000 is a build hash (year 2077)
  EXPECT_EQ(field("module_timestamp_raw"), "0xc9c03000");
  EXPECT_EQ(field("stack_drivers").rfind("amdppm.sys, ACPI.sys", 0), 0U);
  ASSERT_EQ(o.lines.size(), 1U);
  EXPECT_EQ(o.lines[0],
            "BugCheck 0x1000007E (0xc0000005, 0xfffff8048b58334c, 0xffff850429891ee8, "
            "0xffff850429891720) at amdppm.sys+0x334c");
}

// The derived GPU fixture: the real dump with the stop code turned into VIDEO_TDR_FAILURE and
// P2 pointed into nvlddmkm.sys, as a 0x116 dump would be.
TEST_F(TriageDump, DerivedTdrFailureBlamesNvlddmkm) {
  auto original = parse_kernel_dump(bytes);
  ASSERT_TRUE(original);
  const DumpModule* nv = find_module(*original, "nvlddmkm.sys");
  ASSERT_NE(nv, nullptr);
  std::string patched = bytes;
  put32(patched, 0x38, 0x116);
  put64(patched, 0x48, nv->base + 0x1234);
  auto d = parse_kernel_dump(patched);
  ASSERT_TRUE(d);
  const Blame b = blame(*d, 2U);
  ASSERT_TRUE(b.hit);
  EXPECT_EQ(b.hit->module->name, "nvlddmkm.sys");
  EXPECT_EQ(b.hit->offset, 0x1234U);
  const crash::Observation o = crash::observe_kernel_dump(*d, Origin{"derived.dmp", ""}, 2U);
  EXPECT_EQ(o.code, "0x116");
  EXPECT_EQ(*o.field("raw_code"), "0x116");
  EXPECT_EQ(*o.field("module"), "nvlddmkm.sys");
  EXPECT_EQ(*o.field("module_offset"), "0x1234");
  EXPECT_EQ(*o.field("module_timestamp"), "2020-12-31");
  EXPECT_NE(o.field("module_path")->find("nvlddmkm.sys"), std::string::npos);
  EXPECT_EQ(o.field("exception_code"), nullptr);
  EXPECT_NE(o.lines[0].find("BugCheck 0x116 ("), std::string::npos);
  EXPECT_NE(o.lines[0].find(") at nvlddmkm.sys+0x1234"), std::string::npos);
}

TEST_F(TriageDump, BrokenDriverEntryIsTheSecondChoice) {
  auto original = parse_kernel_dump(bytes);
  ASSERT_TRUE(original);
  std::string patched = bytes;
  // BrokenDriverOffset -> driver entry 5 (list at 0x10828, stride 0x90).
  put32(patched, 0x2000 + 0x40, 0x10828 + 5 * 0x90);
  auto d = parse_kernel_dump(patched);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->broken_driver, 5U);
  const Blame b = blame(*d, 4U); // P4 points at the stack, not into a module
  ASSERT_TRUE(b.hit);
  EXPECT_EQ(b.how, "broken driver entry");
  EXPECT_EQ(b.hit->module, &d->modules[5]);
}

TEST_F(TriageDump, OverflowFlagAndBadOffsetsBecomeWarnings) {
  std::string patched = bytes;
  put32(patched, 0x2000 + 0x44, 0x100);      // TRIAGE_OPTION_OVERFLOWED
  put32(patched, 0x2000 + 0x40, 0x10829);    // not an entry boundary
  put32(patched, 0x2000 + 0x38, 0x7FFFFFF0); // string pool far outside the file
  auto d = parse_kernel_dump(patched);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->broken_driver);
  EXPECT_EQ(d->modules.size(), 151U);
  EXPECT_TRUE(d->modules[0].name.empty());
  const auto has = [&](std::string_view text) {
    return std::any_of(d->warnings.begin(), d->warnings.end(), [&](const std::string& w) {
      return w.find(text) != std::string::npos;
    });
  };
  EXPECT_TRUE(has("overflow flag"));
  EXPECT_TRUE(has("is not a driver entry"));
  EXPECT_TRUE(has("151 driver names outside the string pool"));
}

TEST_F(TriageDump, TruncatedAndDamagedCopiesNeverCrash) {
  for (std::size_t len : {std::size_t{0},
                          std::size_t{7},
                          std::size_t{8},
                          std::size_t{0x1FFF},
                          std::size_t{0x2000},
                          std::size_t{0x2040},
                          std::size_t{0x10828 + 0x90 * 10},
                          std::size_t{0x15d18 + 0x100},
                          bytes.size() - 1}) {
    auto d = parse_kernel_dump(std::string_view(bytes).substr(0, len));
    if (len < 0x2000) {
      EXPECT_FALSE(d) << len;
    } else {
      ASSERT_TRUE(d) << len;
      EXPECT_LE(d->modules.size(), 151U);
    }
  }
  auto cut = parse_kernel_dump(std::string_view(bytes).substr(0, 0x10828 + 0x90 * 10));
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->modules.size(), 10U);
  EXPECT_FALSE(cut->warnings.empty());

  std::string zeroed = bytes;
  std::fill(zeroed.begin() + 8, zeroed.end(), '\0');
  auto z = parse_kernel_dump(zeroed);
  ASSERT_TRUE(z);
  EXPECT_TRUE(z->modules.empty());
  EXPECT_FALSE(blame(*z, 2U).hit);

  std::string garbled = bytes;
  for (std::size_t i = 0x2000; i < 0x2080; i += 3) {
    garbled[i] = static_cast<char>(garbled[i] ^ 0xA5);
  }
  for (std::size_t i = 0x10828; i < garbled.size(); i += 7) {
    garbled[i] = static_cast<char>(~garbled[i]);
  }
  auto g = parse_kernel_dump(garbled);
  ASSERT_TRUE(g);
  EXPECT_FALSE(g->warnings.empty());
  (void)crash::observe_kernel_dump(*g, Origin{}, 2U);
}

TEST(KernelDump, RefusesUserModeMinidumps) {
  for (const char* name : {"calc_usermode.dmp", "test_app_usermode.dmp"}) {
    const std::string path = shared_file(name);
    if (!std::filesystem::exists(path)) {
      DOCTOR_MISSING_TESTDATA(path);
    }
    auto d = parse_kernel_dump(read_all(path));
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().code, ErrorCode::parse);
    EXPECT_EQ(d.error().message, "not a kernel dump: a user-mode minidump (MDMP)");
  }
  auto junk = parse_kernel_dump("PAGEDU6");
  ASSERT_FALSE(junk);
  EXPECT_EQ(junk.error().message, "not a kernel dump: no PAGEDU64 or PAGEDUMP signature");
}

TEST(KernelDump, ReadsASyntheticThirtyTwoBitHeader) {
  std::string b(0x1000, '\0');
  for (std::size_t i = 0; i < b.size(); i += 4) {
    std::memcpy(&b[i], "PAGE", 4);
  }
  std::memcpy(b.data(), "PAGEDUMP", 8);
  put32(b, 0x0C, 7601);
  put32(b, 0x20, 0x14C);
  put32(b, 0x28, 0xD1);
  put32(b, 0x2C, 0x10);
  put32(b, 0x38, 0x8a4b5c6d);
  put32(b, 0xF88, 2);
  auto d = parse_kernel_dump(b);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->bits, 32U);
  EXPECT_EQ(d->bugcheck_code, 0xD1U);
  EXPECT_EQ(d->params[0], 0x10U);
  EXPECT_EQ(d->params[3], 0x8a4b5c6dU);
  EXPECT_EQ(d->dump_type, 2U);
  EXPECT_FALSE(d->crash_time_utc_usec); // 'PAGE' fill means unset
  EXPECT_FALSE(d->uptime_usec);
  EXPECT_FALSE(d->context_ip);
  const crash::Observation o = crash::observe_kernel_dump(*d, Origin{"x.dmp", ""}, 4U);
  EXPECT_EQ(o.code, "0xd1");
  EXPECT_EQ(*o.field("arch"), "x86");
  EXPECT_EQ(*o.field("dump_type"), "kernel");
  EXPECT_EQ(o.field("module"), nullptr);
  EXPECT_EQ(o.lines[0], "BugCheck 0xD1 (0x10, 0x45474150, 0x45474150, 0x8a4b5c6d)");
  EXPECT_FALSE(parse_kernel_dump(std::string_view(b).substr(0, 0xFFF)));
}

TEST(KernelDump, MaskedCodeStripsTheExtendedFlag) {
  EXPECT_EQ(masked_code(0x1000007E), 0x7EU);
  EXPECT_EQ(masked_code(0x116), 0x116U);
  EXPECT_EQ(masked_code(0xDEADDEAD), 0xDEADDEADU); // MANUALLY_INITIATED_CRASH1
  EXPECT_EQ(masked_code(0x1000008E), 0x8EU);
  EXPECT_EQ(dump_type_name(4), "triage");
  EXPECT_EQ(dump_type_name(7), "type 7");
}

} // namespace
} // namespace doctor::formats
