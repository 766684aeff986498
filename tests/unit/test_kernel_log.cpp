// SPDX-License-Identifier: MIT
// Platform-neutral: pure text parsing (and zlib, where the build has it; the gzip tests skip
// otherwise).
#include "support/shared_testdata.hpp"
#include "support/test_paths.hpp"

#include <doctor/formats/gzip.hpp>
#include <doctor/formats/kernel_log.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#if __has_include(<zlib.h>)
#  include <zlib.h>
#  define DOCTOR_TEST_ZLIB 1
#else
#  define DOCTOR_TEST_ZLIB 0
#endif

namespace doctor::formats {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return {};
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string shared_file(const std::string& name) {
  return test::shared_testdata_dir() + "/linux-logs/" + name;
}

#if DOCTOR_TEST_ZLIB
// gzip-compresses `data` with zlib (a gzip header and trailer: windowBits 16 + MAX_WBITS).
std::string gzip(const std::string& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
#endif

// The real file's text, directly or (second pass) through a gzip round trip, as a rotated
// kern.log.2.gz would be read.
std::string load(const std::string& name, bool through_gzip) {
  std::string text = read_all(shared_file(name));
  if (!through_gzip || text.empty()) {
    return text;
  }
#if DOCTOR_TEST_ZLIB
  auto back = gunzip(gzip(text), text.size());
  EXPECT_TRUE(back.has_value());
  return back ? *back : std::string();
#else
  return {};
#endif
}

class RealKernelLog : public ::testing::TestWithParam<bool> {
protected:
  std::string text(const std::string& name) {
    std::string t = load(name, GetParam());
    if (t.empty()) {
      return t;
    }
    EXPECT_TRUE(looks_like_kernel_log(std::string_view(t).substr(0, 1024)));
    return t;
  }
};

TEST_P(RealKernelLog, DmesgCtimeWithXid119) {
  const std::string t = text("dmesg-with-xid-119.log");
  if (t.empty()) {
    if (!std::filesystem::exists(shared_file("dmesg-with-xid-119.log"))) {
      DOCTOR_MISSING_TESTDATA(shared_file("dmesg-with-xid-119.log"));
    }
    GTEST_SKIP() << "no zlib in this build";
  }
  const auto lines = read_kernel_log(t, "dmesg.log");
  ASSERT_EQ(lines.size(), 43U); // every line one message: the RPC table is not joined
  const KernelLine& xid = lines[2];
  EXPECT_EQ(xid.text.substr(0, 46), "NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, ");
  EXPECT_EQ(xid.when.label, "Sun Feb 23 16:24:18 2025");
  ASSERT_TRUE(xid.when.utc_usec.has_value());
  EXPECT_EQ(*xid.when.utc_usec, 1740327858LL * 1000000); // dmesg -T local time taken as UTC
  EXPECT_FALSE(xid.when.uptime_usec.has_value());
  EXPECT_EQ(xid.level, -1);
  EXPECT_EQ(xid.origin.source, "dmesg.log");
  EXPECT_EQ(xid.origin.locator, "line 3");
  EXPECT_EQ(lines[28].text, " show_stack+0x52/0x5c"); // stack lines keep their indentation
}

TEST_P(RealKernelLog, DmesgDecodeIso) {
  const std::string t = text("dmesg.decode.iso.log");
  if (t.empty()) {
    if (!std::filesystem::exists(shared_file("dmesg.decode.iso.log"))) {
      DOCTOR_MISSING_TESTDATA(shared_file("dmesg.decode.iso.log"));
    }
    GTEST_SKIP() << "no zlib in this build";
  }
  const auto lines = read_kernel_log(t, "iso.log");
  ASSERT_EQ(lines.size(), 24U);
  EXPECT_EQ(lines[0].level, 4); // warn
  EXPECT_EQ(lines[0].when.label, "2025-01-21T04:41:44,283302+00:00");
  ASSERT_TRUE(lines[0].when.utc_usec.has_value());
  EXPECT_EQ(*lines[0].when.utc_usec, 1737434504LL * 1000000 + 283302);
  EXPECT_EQ(lines[0].text.substr(0, 35), "NVRM: Xid (PCI:0000:38:00): 13, pid");
  EXPECT_EQ(lines[23].text, "oom-kill:constraint=OTHER_CONSTRAINT");
}

TEST_P(RealKernelLog, KmsgRecords) {
  const std::string t = text("kmsg.1.log");
  if (t.empty()) {
    if (!std::filesystem::exists(shared_file("kmsg.1.log"))) {
      DOCTOR_MISSING_TESTDATA(shared_file("kmsg.1.log"));
    }
    GTEST_SKIP() << "no zlib in this build";
  }
  const auto lines = read_kernel_log(t, "/dev/kmsg");
  ASSERT_EQ(lines.size(), 47U);
  EXPECT_EQ(lines[0].level, 6);
  EXPECT_EQ(lines[0].when.uptime_usec, 206764307);
  EXPECT_EQ(lines[0].when.label, "206764307");
  EXPECT_EQ(lines[0].when.boot, "");
  EXPECT_FALSE(lines[0].when.utc_usec.has_value());
  EXPECT_EQ(lines[0].text, "nvidia-nvswitch2: open (major=510)");
  EXPECT_EQ(lines[46].when.uptime_usec, 57631398464);
  EXPECT_EQ(lines[46].text, "IPv6: ADDRCONF(NETDEV_CHANGE): calic24dd7712a6: link becomes ready");
  EXPECT_EQ(lines[46].origin.locator, "line 47");
}

TEST_P(RealKernelLog, PstoreRecord) {
  const std::string t = text("pstore-dmesg-erst.txt");
  if (t.empty()) {
    if (!std::filesystem::exists(shared_file("pstore-dmesg-erst.txt"))) {
      DOCTOR_MISSING_TESTDATA(shared_file("pstore-dmesg-erst.txt"));
    }
    GTEST_SKIP() << "no zlib in this build";
  }
  const auto lines = read_kernel_log(t, "dmesg-erst-1");
  ASSERT_EQ(lines.size(), 39U);
  EXPECT_EQ(lines[0].level, 6);
  EXPECT_EQ(lines[0].when.uptime_usec, 201650687);
  EXPECT_EQ(lines[0].text, "sysrq: SysRq : Trigger a crash");
  EXPECT_EQ(lines[1].level, 1);
  EXPECT_EQ(lines[1].text.substr(0, 49), "BUG: unable to handle kernel NULL pointer derefer");
  EXPECT_EQ(lines[38].text, "---[ end trace 8794939ba0598b91 ]---");
}

INSTANTIATE_TEST_SUITE_P(PlainAndGzip, RealKernelLog, ::testing::Values(false, true));

// Constructed lines from here on: the prefixes of section 6.4 around real messages.

TEST(KernelLog, PstoreHeaderAndLevelPrefix) {
  const auto lines = read_kernel_log("Panic#1 Part1\n<4>[  201.670809] Oops: 0002 [#1] SMP\n", "p");
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0].level, 4);
  EXPECT_EQ(lines[0].when.uptime_usec, 201670809);
  EXPECT_EQ(lines[0].when.label, "201.670809");
  EXPECT_EQ(lines[0].text, "Oops: 0002 [#1] SMP");
  EXPECT_EQ(lines[0].origin.locator, "line 2");
  EXPECT_TRUE(looks_like_kernel_log("Panic#1 Part1\n"));
}

TEST(KernelLog, SyslogKeepsKernelLinesOnly) {
  const auto lines = read_kernel_log(
      "Feb 15 17:37:44 Gipfeli systemd[1]: Started Session 4.\n"
      "Feb 15 17:37:45 Gipfeli kernel: [82659.755933] NVRM: Xid (PCI:0000:41:00): 13, x\n"
      "Feb  5 07:00:01 Gipfeli kernel: plain\n",
      "kern.log");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].when.label, "Feb 15 17:37:45");
  EXPECT_EQ(lines[0].when.uptime_usec, 82659755933);
  EXPECT_FALSE(lines[0].when.utc_usec.has_value()); // no year
  EXPECT_EQ(lines[0].text, "NVRM: Xid (PCI:0000:41:00): 13, x");
  EXPECT_EQ(lines[0].origin.locator, "line 2");
  EXPECT_EQ(lines[1].when.label, "Feb  5 07:00:01");
  EXPECT_EQ(lines[1].text, "plain");
  EXPECT_TRUE(looks_like_kernel_log("Feb 15 17:37:44 Gipfeli systemd[1]: Started Session 4.\n"));
}

TEST(KernelLog, IsoSyslogAndJournal) {
  const auto lines = read_kernel_log(
      "-- Journal begins at Mon 2025-01-20 10:00:00 UTC. --\n"
      "-- Boot 3f7e2b0c9a1d4e5f8a6b7c8d9e0f1a2b --\n"
      "2025-01-21T04:41:44.283575+02:00 gpu-0 kernel: first\n"
      "2025-01-21T04:41:44+0000 gpu-0 kernel: second\n"
      "2025-01-21T04:41:45Z gpu-0 sshd[77]: not kernel\n"
      "[  123.456789] gpu-0 kernel: monotonic\n",
      "journal");
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0].text, "first");
  EXPECT_EQ(lines[0].when.boot, "3f7e2b0c9a1d4e5f8a6b7c8d9e0f1a2b");
  EXPECT_EQ(lines[0].when.label, "2025-01-21T04:41:44.283575+02:00");
  EXPECT_EQ(lines[0].when.utc_usec, (1737434504LL - 7200) * 1000000 + 283575);
  EXPECT_EQ(lines[1].text, "second");
  EXPECT_EQ(lines[1].when.utc_usec, 1737434504LL * 1000000);
  EXPECT_EQ(lines[2].text, "monotonic");
  EXPECT_EQ(lines[2].when.uptime_usec, 123456789);
  EXPECT_TRUE(looks_like_kernel_log("-- Boot 3f7e2b0c9a1d4e5f8a6b7c8d9e0f1a2b --\n"));
}

TEST(KernelLog, RsyslogEscapesAndNvrmJoin) {
  const auto lines = read_kernel_log(
      "Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 1.2, but#012"
      "NVRM: this kernel module has the version 1.3.  Please#012NVRM: components have the same "
      "version.#012NVRM: Xid (PCI:0000:01:00): 13, a#011b\n",
      "kern.log");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].text,
            "NVRM: API mismatch: the client has the version 1.2, but\n"
            "NVRM: this kernel module has the version 1.3.  Please\n"
            "NVRM: components have the same version.");
  EXPECT_EQ(lines[1].text, "NVRM: Xid (PCI:0000:01:00): 13, a\tb");
  EXPECT_EQ(lines[1].origin.locator, "line 1");
  EXPECT_EQ(lines[1].when.label, "Jun 30 11:07:05");
}

TEST(KernelLog, JoinStopsAtTheNextMessage) {
  const auto lines = read_kernel_log(
      "[    1.000000] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "[    1.000001] NVRM: Xid (PCI:0000:b3:00): 79, x\n",
      "d");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].text, "NVRM: The NVIDIA GPU 0000:b3:00.0");
}

TEST(KernelLog, KmsgContinuationAndEscapes) {
  const auto lines = read_kernel_log(
      "3,812,5503541,-;nvidia 0000:3b:00.0: a\\x0aNVRM: b\n SUBSYSTEM=pci\n "
      "DEVICE=+pci:0000:3b:00.0\n"
      "4,813,5503600,-,caller=T12;next\n",
      "/dev/kmsg");
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0].level, 3);
  EXPECT_EQ(lines[0].text, "nvidia 0000:3b:00.0: a");
  EXPECT_EQ(lines[1].text, "NVRM: b");
  EXPECT_EQ(lines[1].when.uptime_usec, 5503541);
  EXPECT_EQ(lines[2].level, 4);
  EXPECT_EQ(lines[2].text, "next");
  EXPECT_EQ(lines[2].origin.locator, "line 4");
}

TEST(KernelLog, DecodeWithoutIsoAndCallerId) {
  const auto lines = read_kernel_log(
      "kern  :err   : [   38.178720] x\n"
      "[  201.654822][ T1899] BUG: y\n"
      "[  201.654822] [    C3] z\n",
      "d");
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0].level, 3);
  EXPECT_EQ(lines[0].when.uptime_usec, 38178720);
  EXPECT_EQ(lines[0].text, "x");
  EXPECT_EQ(lines[1].text, "BUG: y");
  EXPECT_EQ(lines[2].text, "z");
}

TEST(KernelLog, UnknownTextIsKeptWithoutTime) {
  const auto lines =
      read_kernel_log("\r\nhello world\r\n\n[not a time] x\n[99999999999999.1] y", "f");
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0].text, "hello world");
  EXPECT_EQ(lines[0].when.label, "");
  EXPECT_EQ(lines[0].origin.locator, "line 2");
  EXPECT_EQ(lines[1].text, "[not a time] x");
  EXPECT_EQ(lines[2].text, "[99999999999999.1] y"); // more than 12 digits of seconds
}

TEST(KernelLog, LongLinesAreCut) {
  const std::string text = "[    1.000000] " + std::string(3 * k_max_kernel_text, 'a') + "\nnext\n";
  const auto lines = read_kernel_log(text, "f");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].text.size(), k_max_kernel_text);
  EXPECT_EQ(lines[1].text, "next");
}

TEST(KernelLog, LooksLikeKernelLog) {
  EXPECT_TRUE(looks_like_kernel_log("6,3964,206764307,-;nvidia-nvswitch2: open (major=510)\n"));
  EXPECT_TRUE(looks_like_kernel_log("[    0.000000] Linux version 6.5.0\n"));
  EXPECT_TRUE(looks_like_kernel_log("[Fri Aug 30 11:43:09 2024] x\n"));
  EXPECT_TRUE(looks_like_kernel_log("kern  :warn  : 2025-01-21T04:41:44,283302+00:00 x\n"));
  EXPECT_TRUE(looks_like_kernel_log("2025-01-21T04:41:44,283302+00:00 x\n"));
  EXPECT_TRUE(looks_like_kernel_log("some header\nNVRM: Xid (PCI:0000:44:00): 79, x\n"));
  EXPECT_FALSE(looks_like_kernel_log("Traceback (most recent call last):\n  File \"x.py\"\n"));
  EXPECT_FALSE(looks_like_kernel_log("{\"a\": 1}\n"));
  EXPECT_FALSE(looks_like_kernel_log("2025-01-21T04:41:44.283302Z INFO app started\n"));
  EXPECT_FALSE(looks_like_kernel_log(""));
}

TEST(Gzip, RoundTripMultiMemberAndErrors) {
#if DOCTOR_TEST_ZLIB
  const std::string a = "first member\n";
  const std::string b(200000, 'x');
  const std::string both = gzip(a) + gzip(b) + std::string(8, '\0');
  EXPECT_TRUE(looks_like_gzip(both));
  auto out = gunzip(both, 1 << 20);
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_EQ(*out, a + b);

  auto big = gunzip(both, 1000);
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().code, ErrorCode::too_large);

  const std::string packed = gzip(b);
  auto cut = gunzip(std::string_view(packed).substr(0, packed.size() / 2), 1 << 20);
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().code, ErrorCode::parse);
  EXPECT_EQ(cut.error().message, "truncated gzip data");

  std::string corrupt = packed;
  corrupt[12] = static_cast<char>(corrupt[12] ^ 0x55);
  corrupt[13] = static_cast<char>(corrupt[13] ^ 0x55);
  auto bad = gunzip(corrupt, 1 << 20);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::parse);

  auto junk = gunzip(gzip(a) + "junk", 1 << 20);
  ASSERT_FALSE(junk.has_value());
  EXPECT_EQ(junk.error().code, ErrorCode::parse);

  // A prefix is kept at the cap and said to be cut; exactly the cap is whole; damage before the
  // cap is still an error.
  auto prefix = gunzip_prefix(both, 1000);
  ASSERT_TRUE(prefix.has_value()) << prefix.error().message;
  EXPECT_TRUE(prefix->truncated);
  EXPECT_EQ(prefix->data, (a + b).substr(0, 1000));
  auto exact = gunzip_prefix(both, a.size() + b.size());
  ASSERT_TRUE(exact.has_value());
  EXPECT_FALSE(exact->truncated);
  EXPECT_EQ(exact->data, a + b);
  auto across = gunzip_prefix(both, a.size() + 10);
  ASSERT_TRUE(across.has_value());
  EXPECT_TRUE(across->truncated);
  EXPECT_EQ(across->data, a + b.substr(0, 10));
  auto damaged = gunzip_prefix(corrupt, 1 << 20);
  ASSERT_FALSE(damaged.has_value());
  EXPECT_EQ(damaged.error().code, ErrorCode::parse);
#else
  auto out = gunzip("\x1f\x8b", 100);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().code, ErrorCode::unsupported);
  GTEST_SKIP() << "no zlib in this build";
#endif
  auto not_gzip = gunzip("plain text", 100);
  ASSERT_FALSE(not_gzip.has_value());
  EXPECT_EQ(not_gzip.error().code, ErrorCode::parse);
  EXPECT_FALSE(looks_like_gzip("\x1f"));
}

} // namespace
} // namespace doctor::formats
