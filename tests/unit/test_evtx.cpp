// SPDX-License-Identifier: MIT
// Expected counts and fields were checked independently with python-evtx 0.8 (walking every
// chunk, since system.evtx is dirty and its header counts only 3 of its 15 chunks).
#include "support/shared_testdata.hpp"
#include "support/test_paths.hpp"

#include <doctor/formats/evtx.hpp>
#include <doctor/formats/evtx_binxml.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace {

using doctor::formats::EventRecord;
using doctor::formats::parse_evtx;

std::string read_shared(const std::string& name) {
  std::ifstream in(doctor::test::shared_testdata_dir() + "/windows-evtx/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::map<std::pair<std::string, std::uint32_t>, int> count(const std::vector<EventRecord>& rs) {
  std::map<std::pair<std::string, std::uint32_t>, int> c;
  for (const auto& r : rs) {
    ++c[{r.provider, r.event_id}];
  }
  return c;
}

const EventRecord* by_id(const std::vector<EventRecord>& rs, std::uint64_t id) {
  for (const auto& r : rs) {
    if (r.record_id == id) {
      return &r;
    }
  }
  return nullptr;
}

TEST(Evtx, ReadsEveryChunkOfADirtySystemLog) {
  const auto bytes = read_shared("system.evtx");
  if (bytes.empty()) {
    DOCTOR_MISSING_TESTDATA("windows-evtx of " + doctor::test::shared_testdata_dir());
  }
  const auto read = parse_evtx(bytes, "system.evtx");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->warnings.empty()) << read->warnings.front();
  ASSERT_EQ(read->records.size(), 1881U);
  auto c = count(read->records);
  EXPECT_EQ(c.size(), 89U);
  EXPECT_EQ((c[{"EventLog", 6005}]), 3);
  EXPECT_EQ((c[{"EventLog", 6006}]), 2);
  EXPECT_EQ((c[{"EventLog", 6009}]), 3);
  EXPECT_EQ((c[{"EventLog", 6013}]), 23);
  EXPECT_EQ((c[{"User32", 1074}]), 2);
  EXPECT_EQ((c[{"Microsoft-Windows-Kernel-Power", 42}]), 2);
  EXPECT_EQ((c[{"Microsoft-Windows-Kernel-Power", 107}]), 2);
  EXPECT_EQ((c[{"Microsoft-Windows-Kernel-Power", 109}]), 2);
  EXPECT_EQ((c[{"Microsoft-Windows-Kernel-Power", 172}]), 3);
  EXPECT_EQ((c[{"Microsoft-Windows-Kernel-General", 12}]), 3);
  EXPECT_EQ((c[{"Microsoft-Windows-Kernel-General", 13}]), 2);
  EXPECT_EQ((c[{"Microsoft-Windows-Kernel-General", 16}]), 394);
  for (const auto& r : read->records) {
    ASSERT_EQ(r.channel, "System");
  }
}

TEST(Evtx, ReadsFieldsOfSpecificSystemRecords) {
  const auto bytes = read_shared("system.evtx");
  if (bytes.empty()) {
    DOCTOR_MISSING_TESTDATA("windows-evtx of " + doctor::test::shared_testdata_dir());
  }
  const auto read = parse_evtx(bytes, "system.evtx");
  ASSERT_TRUE(read) << read.error().message;

  const auto* shutdown = by_id(read->records, 169);
  ASSERT_NE(shutdown, nullptr);
  EXPECT_EQ(shutdown->provider, "User32");
  EXPECT_EQ(shutdown->provider_guid, "{b0aa8734-56f7-41cc-b2f4-de228e98b946}");
  EXPECT_EQ(shutdown->event_source_name, "User32");
  EXPECT_EQ(shutdown->event_id, 1074U);
  EXPECT_EQ(shutdown->qualifiers, 32768U);
  EXPECT_EQ(shutdown->level, 4);
  EXPECT_EQ(shutdown->computer, "WIN-P4SIAA0SQCO");
  EXPECT_EQ(shutdown->time_utc_usec, 1499879864948945LL); // 2017-07-12T17:17:44.9489456Z
  ASSERT_EQ(shutdown->data.size(), 7U);
  EXPECT_EQ(shutdown->data[0].first, "param1");
  EXPECT_EQ(shutdown->data[0].second, "C:\\Windows\\system32\\winlogon.exe (MINWINPC)");
  EXPECT_EQ(shutdown->data[4].second, "restart");
  EXPECT_EQ(shutdown->data[6].second, "NT AUTHORITY\\SYSTEM");
  EXPECT_EQ(shutdown->origin.source, "system.evtx");
  EXPECT_EQ(shutdown->origin.locator, "record 169");

  const auto* boot = by_id(read->records, 3);
  ASSERT_NE(boot, nullptr);
  EXPECT_EQ(boot->provider, "Microsoft-Windows-Kernel-General");
  EXPECT_EQ(boot->event_id, 12U);
  ASSERT_EQ(boot->data.size(), 7U);
  EXPECT_EQ(boot->data[2], (std::pair<std::string, std::string>{"BuildVersion", "15063"}));
  EXPECT_EQ(boot->data[6].second, "2017-07-12T17:16:05.4992599Z"); // a FILETIME value

  const auto* power = by_id(read->records, 537);
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(power->provider, "Microsoft-Windows-Kernel-Power");
  EXPECT_EQ(power->event_id, 42U);
  EXPECT_EQ(power->version, 3);
  EXPECT_EQ(power->data.back(), (std::pair<std::string, std::string>{"TransitionsToOn", "1"}));

  // A classic event with a string-array substitution: one <Data> per item, as wevtutil shows.
  const auto* os = by_id(read->records, 1);
  ASSERT_NE(os, nullptr);
  EXPECT_EQ(os->provider, "EventLog");
  EXPECT_EQ(os->event_id, 6009U);
  ASSERT_EQ(os->data.size(), 5U);
  EXPECT_EQ(os->data[0].second, "10.00.");
  EXPECT_EQ(os->data[1].second, "15063");
  EXPECT_EQ(os->data[3].second, "Multiprocessor Free");

  const auto* start = by_id(read->records, 2);
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->event_id, 6005U);
  EXPECT_EQ(start->binary, "E107070003000C00110010001C00D6000000000000000000");
}

TEST(Evtx, ReadsALogWithZeroedCrcs) {
  const auto bytes = read_shared("application_no_crc32.evtx");
  if (bytes.empty()) {
    DOCTOR_MISSING_TESTDATA("windows-evtx of " + doctor::test::shared_testdata_dir());
  }
  ASSERT_GT(bytes.size(), 4096U + 128U);
  EXPECT_EQ(bytes.substr(4096 + 124, 4), std::string(4, '\0')); // the premise: no header CRC
  const auto read = parse_evtx(bytes, "app.evtx");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->warnings.empty());
  ASSERT_EQ(read->records.size(), 17U);
  EXPECT_EQ(read->records.front().record_id, 426U);
  EXPECT_EQ(read->records.back().record_id, 442U);
  const auto* r = by_id(read->records, 430);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->channel, "Application");
  EXPECT_EQ(r->provider, "Microsoft-Windows-User Profiles Service");
  EXPECT_EQ(r->event_id, 1531U);
  EXPECT_EQ(r->time_utc_usec, 1617234791713645LL);
  const auto* sc = by_id(read->records, 427);
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->provider, "SecurityCenter");
  ASSERT_EQ(sc->data.size(), 2U);
  EXPECT_EQ(sc->data[0].second, "Windows Defender");
  EXPECT_EQ(sc->data[1].second, "SECURITY_PRODUCT_STATE_ON");
}

TEST(Evtx, DamagedChunksBecomeWarnings) {
  const auto bytes = read_shared("malformed_bad_chunk_magic.evtx");
  if (bytes.empty()) {
    DOCTOR_MISSING_TESTDATA("windows-evtx of " + doctor::test::shared_testdata_dir());
  }
  const auto read = parse_evtx(bytes, "bad.evtx");
  ASSERT_TRUE(read) << read.error().message;
  // Same totals as omerbenamram/evtx's test (270 records, 5 errors) and python-evtx (270).
  EXPECT_EQ(read->records.size(), 270U);
  const std::vector<std::string> expected = {
      "chunk 0: no record at offset 8600, rest of the chunk skipped",
      "chunk 6: bad magic, skipped",
      "chunk 7: no record at offset 8288, rest of the chunk skipped",
      "chunk 9: no record at offset 57400, rest of the chunk skipped",
      "chunk 10: bad magic, skipped",
  };
  EXPECT_EQ(read->warnings, expected);
  EXPECT_EQ((count(read->records)[{"Microsoft-Windows-AppXDeployment", 325}]), 269);
  const auto* r = by_id(read->records, 46728);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->channel, "Microsoft-Windows-AppXDeployment/Operational");
  ASSERT_EQ(r->data.size(), 1U);
  EXPECT_EQ(r->data[0],
            (std::pair<std::string, std::string>{"PackageFamilyName",
                                                 "Microsoft.Windows.Cortana_cw5n1h2txyewy"}));
}

TEST(Evtx, RejectsOtherFilesAndSurvivesTruncation) {
  auto r = parse_evtx("MDMP\x93\xa7", "x.dmp");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "x.dmp: not an evtx file: no ElfFile signature");

  const auto bytes = read_shared("system.evtx");
  if (bytes.empty()) {
    DOCTOR_MISSING_TESTDATA("windows-evtx of " + doctor::test::shared_testdata_dir());
  }
  // Cut inside the second chunk: the first chunk's 108 records stay, the rest is a warning.
  const auto cut = parse_evtx(std::string_view(bytes).substr(0, 4096 + 65536 + 30000), "cut");
  ASSERT_TRUE(cut);
  EXPECT_GE(cut->records.size(), 108U);
  EXPECT_LT(cut->records.size(), 210U);
  ASSERT_FALSE(cut->warnings.empty());
  EXPECT_EQ(cut->warnings.front(), "chunk 1: truncated to 30000 bytes");

  // Scrambled record data: every record fails or reads, nothing crashes.
  std::string scrambled = bytes.substr(0, 4096 + 65536);
  for (std::size_t i = 4096 + 600; i < scrambled.size(); i += 97) {
    scrambled[i] = static_cast<char>(scrambled[i] ^ 0x5A);
  }
  const auto s = parse_evtx(scrambled, "scrambled");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->warnings.empty());
}

TEST(Evtx, RendersValueTypesLikeTheEventLog) {
  using doctor::formats::evtx_detail::render_value;
  using namespace std::string_literals;
  EXPECT_EQ(render_value(0x13, "\x01\x01\x00\x00\x00\x00\x00\x05\x12\x00\x00\x00"s), "S-1-5-18");
  EXPECT_EQ(render_value(0x0F, "\x3a\x3b\x1c\x33\x05\x20\xc2\x44\xac\x5e\x77\x22\x0c\x37\xd6\xb4"s),
            "{331c3b3a-2005-44c2-ac5e-77220c37d6b4}");
  EXPECT_EQ(render_value(0x15, "\x00\x00\x00\x00\x00\x00\x80\x00"s), "0x80000000000000");
  EXPECT_EQ(render_value(0x14, "\x16\x01\x00\x00"s), "0x116");
  EXPECT_EQ(render_value(0x07, "\xff\xff\xff\xff"s), "-1");
  EXPECT_EQ(render_value(0x0D, "\x01\x00\x00\x00"s), "true");
  EXPECT_EQ(render_value(0x0E, "\x01\xab"s), "01AB");
  // 2017-07-12T17:17:44.9489456Z as a FILETIME.
  EXPECT_EQ(render_value(0x11, "\x30\xf8\xcd\xc6\x32\xfb\xd2\x01"s),
            "2017-07-12T17:17:44.9489456Z");
  EXPECT_EQ(render_value(0x12, "\xea\x07\x07\x00\x01\x00\x16\x00\x0a\x00\x0b\x00\x0c\x00\x7b\x00"s),
            "2026-07-22T10:11:12.1230000Z");
  EXPECT_EQ(render_value(0x08, "\x01"s), ""); // too short for its type
  EXPECT_EQ(doctor::formats::evtx_detail::utf16_to_utf8("A\0\x3d\xd8\x00\xde\0\0B\0"s),
            "A\xF0\x9F\x98\x80");
}

} // namespace
