// SPDX-License-Identifier: MIT
#include "support/test_paths.hpp"

#include <doctor/formats/event_xml.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

namespace {

using doctor::formats::EventRecord;
using doctor::formats::parse_event_xml;

std::string read_fixture(const std::string& name) {
  std::ifstream in(doctor::test::test_data_dir() + "/crash/events/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string* data(const EventRecord& r, const std::string& name) {
  for (const auto& [k, v] : r.data) {
    if (k == name) {
      return &v;
    }
  }
  return nullptr;
}

constexpr const char* k_ns = "xmlns='http://schemas.microsoft.com/win/2004/08/events/event'";

TEST(EventXml, ReadsWevtutilRunOfEventsWithAllSystemFields) {
  const auto text = read_fixture("system_kernel_power_41.xml");
  ASSERT_FALSE(text.empty());
  const auto records = parse_event_xml(text, "system.xml");
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 2U);
  const auto& r = records->front();
  EXPECT_EQ(r.channel, "System");
  EXPECT_EQ(r.provider, "Microsoft-Windows-Kernel-Power");
  EXPECT_EQ(r.provider_guid, "{331c3b3a-2005-44c2-ac5e-77220c37d6b4}");
  EXPECT_EQ(r.event_id, 41U);
  EXPECT_EQ(r.qualifiers, 0U);
  EXPECT_EQ(r.level, 1);
  EXPECT_EQ(r.version, 10);
  EXPECT_EQ(r.record_id, 48211U);
  EXPECT_EQ(r.computer, "DESKTOP-CUDA01");
  // 2026-05-26T08:15:22.4913345Z
  ASSERT_TRUE(r.time_utc_usec);
  EXPECT_EQ(*r.time_utc_usec, 1779783322491334LL);
  EXPECT_EQ(r.data.size(), 21U);
  ASSERT_NE(data(r, "BugcheckCode"), nullptr);
  EXPECT_EQ(*data(r, "BugcheckCode"), "278");
  EXPECT_EQ(*data(r, "BugcheckParameter3"), "0xffffffffc000009a");
  EXPECT_EQ(r.origin.source, "system.xml");
  EXPECT_EQ(r.origin.locator, "event 1");
  EXPECT_EQ((*records)[1].origin.locator, "event 2");
}

TEST(EventXml, ReadsPositionalDataQualifiersBinaryAndUtf8) {
  const auto records = parse_event_xml(read_fixture("system_bugcheck_1001_6008.xml"), "s");
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 2U);
  const auto& r = (*records)[0];
  EXPECT_EQ(r.provider, "EventLog");
  EXPECT_EQ(r.event_id, 6008U);
  EXPECT_EQ(r.qualifiers, 32768U);
  ASSERT_EQ(r.data.size(), 7U);
  EXPECT_EQ(r.data[0].first, "");
  EXPECT_EQ(r.data[0].second, "10:02:11 AM");
  EXPECT_EQ(r.data[1].second,
            "\xE2\x80\x8E"
            "5/\xE2\x80\x8E"
            "26/\xE2\x80\x8E"
            "2026");
  EXPECT_EQ(r.binary, "EA07050002001A000A0002000B00A601EA07050002001A0008000200");
  const auto& b = (*records)[1];
  EXPECT_EQ(b.event_source_name, "BugCheck");
  EXPECT_EQ(b.qualifiers, 16384U);
  EXPECT_EQ(*data(b, "param2"), "C:\\Windows\\Minidump\\052626-8015-01.dmp");
}

TEST(EventXml, ReadsUtf16WithBomAsPowerShellWritesIt) {
  const auto text = read_fixture("application_win11_utf16.xml");
  ASSERT_GE(text.size(), 2U);
  ASSERT_EQ(text.substr(0, 2), std::string("\xFF\xFE"));
  const auto records = parse_event_xml(text, "app.xml");
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 2U);
  EXPECT_EQ((*records)[0].provider, "Application Error");
  EXPECT_EQ((*records)[0].channel, "Application");
  EXPECT_EQ(*data((*records)[0], "ModuleName"), "cudnn_cnn_infer64_8.dll");
  EXPECT_EQ((*records)[1].provider, "Windows Error Reporting");
  EXPECT_EQ(*data((*records)[1], "P1"), "117");
}

TEST(EventXml, ReadsEventsWrapperSkipsRenderingInfoAndDecodesEntities) {
  const auto records = parse_event_xml(read_fixture("system_gpu_events.xml"), "gpu.xml");
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 9U);
  const auto& display = (*records)[0];
  EXPECT_EQ(display.provider, "Display");
  ASSERT_EQ(display.data.size(), 2U);
  EXPECT_EQ(display.data[0].second, "nvlddmkm");
  for (const auto& [k, v] : display.data) {
    EXPECT_EQ(v.find("stopped responding"), std::string::npos);
  }
  const auto& whea = (*records)[4];
  EXPECT_EQ(*data(whea, "PrimaryDeviceName"), "PCI\\VEN_8086&DEV_A343&SUBSYS_7D171462&REV_F0");
}

TEST(EventXml, ReadsUserDataLeavesByElementName) {
  const std::string text = std::string("<Event ") + k_ns +
                           "><System><Provider Name=\"X\"/><EventID>7</EventID></System>"
                           "<UserData><Info xmlns=\"urn:x\"><A>1</A><B><C>&#x41;&#66;</C></B>"
                           "</Info></UserData></Event>";
  const auto records = parse_event_xml(text, "u");
  ASSERT_TRUE(records) << records.error().message;
  ASSERT_EQ(records->size(), 1U);
  const auto& r = records->front();
  ASSERT_EQ(r.data.size(), 2U);
  EXPECT_EQ(r.data[0], (std::pair<std::string, std::string>{"A", "1"}));
  EXPECT_EQ(r.data[1], (std::pair<std::string, std::string>{"C", "AB"}));
  EXPECT_EQ(r.event_id, 7U);
  EXPECT_EQ(r.level, -1);
  EXPECT_FALSE(r.time_utc_usec);
}

TEST(EventXml, AcceptsCdataCommentsAndDeclarations) {
  const std::string text = std::string("<?xml version='1.0'?><!-- x --><Event ") + k_ns +
                           "><EventData><Data Name='m'><![CDATA[a<b & c]]></Data>"
                           "</EventData></Event>";
  const auto records = parse_event_xml(text, "c");
  ASSERT_TRUE(records) << records.error().message;
  EXPECT_EQ(records->front().data.at(0).second, "a<b & c");
}

TEST(EventXml, RejectsMalformedInputWithLineNumbers) {
  auto r = parse_event_xml("<Event>\n<System></Event>", "bad.xml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "bad.xml: line 2: expected </System>, found </Event>");

  r = parse_event_xml("<Event><System>", "t.xml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "t.xml: line 1: unexpected end of input: <System> is not closed");

  r = parse_event_xml("<Events></Events>", "e.xml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "e.xml: no <Event> element found");

  r = parse_event_xml("<!DOCTYPE x [<!ENTITY a 'b'>]><Event/>", "d");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("DOCTYPE"), std::string::npos);

  r = parse_event_xml("<Event><Data>&bogus;</Data></Event>", "d");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("unknown entity &bogus;"), std::string::npos);

  r = parse_event_xml("<Event a=b/>", "d");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not quoted"), std::string::npos);

  r = parse_event_xml("plain text, no xml", "d");
  ASSERT_FALSE(r);
}

TEST(EventXml, CapsNestingDepth) {
  std::string deep;
  for (int i = 0; i < 100; ++i) {
    deep += "<a>";
  }
  const auto r = parse_event_xml("<Event>" + deep, "deep");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nested deeper than 64"), std::string::npos);
}

TEST(EventXml, ParsesSystemTimeForms) {
  using doctor::formats::parse_system_time;
  EXPECT_EQ(parse_system_time("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_system_time("2024-07-22T10:11:12.1234567Z"), 1721643072123456LL);
  EXPECT_EQ(parse_system_time("2017-07-12 17:16:28.214161+00:00"), 1499879788214161LL);
  EXPECT_EQ(parse_system_time("2024-07-22T10:11:12"), 1721643072000000LL);
  EXPECT_FALSE(parse_system_time("2024-13-22T10:11:12Z"));
  EXPECT_FALSE(parse_system_time("yesterday"));
  EXPECT_FALSE(parse_system_time("2024-07-22T10:11:12+02:00"));
  EXPECT_EQ(doctor::formats::format_utc_usec(1721643072123456LL), "2024-07-22T10:11:12.123456Z");
}

} // namespace
