// SPDX-License-Identifier: MIT
#include "support/test_paths.hpp"

#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

using doctor::crash::Observation;
using doctor::crash::ObservationKind;
using doctor::crash::observe_events;

std::vector<Observation> observe_fixture(const std::string& name) {
  std::ifstream in(doctor::test::test_data_dir() + "/crash/events/" + name, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto records = doctor::formats::parse_event_xml(text, name);
  EXPECT_TRUE(records) << (records ? "" : records.error().message);
  return records ? observe_events(*records) : std::vector<Observation>{};
}

std::string field(const Observation& o, const std::string& name) {
  const auto* v = o.field(name);
  return v != nullptr ? *v : "<absent>";
}

TEST(WindowsEvents, KernelPower41BugcheckCodeIsDecimal) {
  const auto obs = observe_fixture("system_kernel_power_41.xml");
  ASSERT_EQ(obs.size(), 2U);
  const auto& o = obs[0];
  EXPECT_EQ(o.kind, ObservationKind::bugcheck);
  EXPECT_EQ(o.code, "0x116");
  EXPECT_EQ(o.fields[0],
            (std::pair<std::string, std::string>{"provider", "Microsoft-Windows-Kernel-Power"}));
  EXPECT_EQ(o.fields[1], (std::pair<std::string, std::string>{"event_id", "41"}));
  EXPECT_EQ(field(o, "param1"), "0xffffc30f9a1e1010");
  EXPECT_EQ(field(o, "param2"), "0xfffff8044bd9e7d0");
  EXPECT_EQ(field(o, "param3"), "0xffffffffc000009a");
  EXPECT_EQ(field(o, "param4"), "0x4");
  EXPECT_EQ(field(o, "raw_code"), "<absent>");
  EXPECT_EQ(o.when.utc_usec, 1779783322491334LL);
  EXPECT_EQ(o.when.label, "2026-05-26T08:15:22.491334Z");
  EXPECT_EQ(o.origin.source, "system_kernel_power_41.xml");
  EXPECT_EQ(o.origin.locator, "event 1");
  ASSERT_EQ(o.lines.size(), 1U);
  EXPECT_EQ(o.lines[0].rfind("BugcheckCode=278, BugcheckParameter1=0xffffc30f9a1e1010", 0), 0U);
  EXPECT_LE(o.lines[0].size(), 300U + 3U);
}

TEST(WindowsEvents, KernelPower41WithZeroCodeIsPowerLoss) {
  const auto obs = observe_fixture("system_kernel_power_41.xml");
  ASSERT_EQ(obs.size(), 2U);
  const auto& o = obs[1];
  EXPECT_EQ(o.kind, ObservationKind::power_loss);
  EXPECT_EQ(o.code, "41");
  EXPECT_EQ(field(o, "power_button_timestamp"), "0");
  EXPECT_EQ(field(o, "long_power_button_press"), "false");
  EXPECT_EQ(field(o, "sleep_in_progress"), "0");
  EXPECT_EQ(field(o, "param1"), "<absent>");
}

TEST(WindowsEvents, BugCheck1001AndUnexpectedShutdown) {
  const auto obs = observe_fixture("system_bugcheck_1001_6008.xml");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].kind, ObservationKind::unexpected_shutdown);
  EXPECT_EQ(obs[0].code, "6008");
  EXPECT_EQ(field(obs[0], "previous_shutdown"), "5/26/2026 10:02:11 AM");
  EXPECT_EQ(field(obs[0], "event_id"), "6008");
  const auto& b = obs[1];
  EXPECT_EQ(b.kind, ObservationKind::bugcheck);
  EXPECT_EQ(b.code, "0x116");
  EXPECT_EQ(field(b, "provider"), "Microsoft-Windows-WER-SystemErrorReporting");
  EXPECT_EQ(field(b, "event_id"), "1001");
  EXPECT_EQ(field(b, "param1"), "0xffffc30f9a1e1010");
  EXPECT_EQ(field(b, "param2"), "0xfffff8044bd9e7d0");
  EXPECT_EQ(field(b, "param3"), "0xffffffffc000009a");
  EXPECT_EQ(field(b, "param4"), "0x0000000000000004");
  EXPECT_EQ(field(b, "dump"), "C:\\Windows\\Minidump\\052626-8015-01.dmp");
  EXPECT_EQ(field(b, "report_id"), "6a3f4b2e-9c1d-4e57-8a60-2d1f0b9c7e14");
}

TEST(WindowsEvents, GpuDriverEventsTdrsAndWhea) {
  const auto obs = observe_fixture("system_gpu_events.xml");
  // 9 events: volmgr 46 (no kind fits) and User32 1074 are skipped.
  ASSERT_EQ(obs.size(), 7U);

  EXPECT_EQ(obs[0].kind, ObservationKind::tdr);
  EXPECT_EQ(obs[0].code, "4101");
  EXPECT_EQ(field(obs[0], "driver"), "nvlddmkm");

  EXPECT_EQ(obs[1].kind, ObservationKind::nvidia_event);
  EXPECT_EQ(obs[1].code, "13");
  EXPECT_EQ(field(obs[1], "device"), "\\Device\\Video3");
  EXPECT_EQ(field(obs[1], "message"),
            "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 1): MMU NACK Errors");

  EXPECT_EQ(obs[2].kind, ObservationKind::tdr);
  EXPECT_EQ(obs[2].code, "153");
  EXPECT_EQ(field(obs[2], "device"), "\\Device\\Video3");
  EXPECT_EQ(field(obs[2], "message"), "Error occurred on GPUID: 100");

  EXPECT_EQ(obs[3].kind, ObservationKind::tdr);
  EXPECT_EQ(obs[3].code, "0");
  EXPECT_EQ(field(obs[3], "device"), "\\Device\\0000015a");

  const auto& pcie = obs[4];
  EXPECT_EQ(pcie.kind, ObservationKind::whea);
  EXPECT_EQ(pcie.code, "17");
  EXPECT_EQ(field(pcie, "ErrorSource"), "4");
  EXPECT_EQ(field(pcie, "ErrorType"), "4");
  EXPECT_EQ(field(pcie, "SecondaryDeviceName"), "PCI\\VEN_10DE&DEV_2684&SUBSYS_16F310DE&REV_A1");
  EXPECT_EQ(field(pcie, "RawData"), "<absent>");
  EXPECT_EQ(field(pcie, "Length"), "<absent>");
  EXPECT_EQ(field(pcie, "cper_severity"), "corrected");
  EXPECT_EQ(field(pcie, "cper_section"), "pcie");
  ASSERT_EQ(pcie.lines.size(), 1U);
  EXPECT_EQ(pcie.lines[0].find("RawData"), std::string::npos);

  EXPECT_EQ(obs[5].kind, ObservationKind::whea);
  EXPECT_EQ(obs[5].code, "47");
  EXPECT_EQ(field(obs[5], "ErrorSource"), "1");
  EXPECT_EQ(field(obs[5], "cper_section"), "<absent>");

  // The real WHEA-Logger 3 capture: one informational section of a vendor type.
  EXPECT_EQ(obs[6].code, "3");
  EXPECT_EQ(field(obs[6], "cper_severity"), "informational");
  EXPECT_EQ(field(obs[6], "cper_section"), "93a41c2f-a09f-e7c2-ac1f-f2488f03eec3");
}

void expect_cudnn_crash(const Observation& o,
                        const std::string& code,
                        const std::string& offset,
                        const std::string& pid) {
  EXPECT_EQ(o.kind, ObservationKind::app_crash);
  EXPECT_EQ(o.code, code);
  EXPECT_EQ(field(o, "process"), "python.exe");
  EXPECT_EQ(field(o, "module"), "cudnn_cnn_infer64_8.dll");
  EXPECT_EQ(field(o, "offset"), offset);
  EXPECT_EQ(field(o, "pid"), pid);
}

TEST(WindowsEvents, ApplicationErrorNamedWin11) {
  const auto obs = observe_fixture("application_win11_utf16.xml");
  ASSERT_EQ(obs.size(), 2U);
  const auto& o = obs[0];
  expect_cudnn_crash(o, "0xc0000005", "0x000000000045a1f3", "16120");
  EXPECT_EQ(field(o, "process_version"), "3.11.9150.1013");
  EXPECT_EQ(field(o, "module_version"), "6.14.11.9000");
  EXPECT_EQ(field(o, "module_path"),
            "C:\\Users\\ml\\venv\\Lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll");
  EXPECT_EQ(field(o, "app_path"),
            "C:\\Users\\ml\\AppData\\Local\\Programs\\Python\\Python311\\python.exe");
  EXPECT_EQ(field(o, "provider"), "Application Error");
  EXPECT_EQ(field(o, "event_id"), "1000");

  const auto& w = obs[1];
  EXPECT_EQ(w.kind, ObservationKind::tdr);
  EXPECT_EQ(w.code, "0x117");
  EXPECT_EQ(field(w, "event_name"), "LiveKernelEvent");
  EXPECT_EQ(field(w, "report_id"), "661a723d-f1a0-4806-9028-cdaaac87d9e5");
  ASSERT_EQ(w.lines.size(), 1U);
  EXPECT_EQ(w.lines[0].find('\n'), std::string::npos);
}

TEST(WindowsEvents, ApplicationErrorPositionalWin10HangAndOpenGlTdr) {
  const auto obs = observe_fixture("application_win10_positional.xml");
  ASSERT_EQ(obs.size(), 3U);
  const auto& o = obs[0];
  expect_cudnn_crash(o, "0xc0000409", "0x0000000000c0c3d2", "11140");
  EXPECT_EQ(field(o, "process_version"), "3.8.10150.1013");
  EXPECT_EQ(field(o, "module_version"), "6.14.11.8700");
  EXPECT_EQ(field(o, "module_path"),
            "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin\\"
            "cudnn_cnn_infer64_8.dll");
  EXPECT_EQ(field(o, "app_path"), "C:\\Python38\\python.exe");
  ASSERT_EQ(o.lines.size(), 1U);
  EXPECT_EQ(o.lines[0].rfind("python.exe, 3.8.10150.1013, 608fe5b9, cudnn_cnn_infer64_8.dll", 0),
            0U);

  const auto& h = obs[1];
  EXPECT_EQ(h.kind, ObservationKind::app_hang);
  EXPECT_EQ(h.code, "1002");
  EXPECT_EQ(field(h, "process"), "python.exe");
  EXPECT_EQ(field(h, "process_version"), "3.8.10150.1013");
  EXPECT_EQ(field(h, "pid"), "11036");
  EXPECT_EQ(field(h, "app_path"), "C:\\Python38\\python.exe");
  EXPECT_EQ(field(h, "hang_type"), "Top level window is idle");

  const auto& t = obs[2];
  EXPECT_EQ(t.kind, ObservationKind::tdr);
  EXPECT_EQ(t.code, "1");
  EXPECT_EQ(field(t, "side"), "app");
  EXPECT_EQ(field(t, "pid"), "7708");
  EXPECT_EQ(field(t, "process"), "builder.exe");
  EXPECT_EQ(field(t, "message").rfind("A TDR has been detected.", 0), 0U);
}

TEST(WindowsEvents, WerAppCrashAndBexReadPInTheirOrder) {
  doctor::formats::EventRecord r;
  r.provider = "Windows Error Reporting";
  r.event_id = 1001;
  r.data = {{"EventName", "APPCRASH"},
            {"P1", "python.exe"},
            {"P2", "3.11.9150.1013"},
            {"P3", "6644e4c8"},
            {"P4", "cublasLt64_12.dll"},
            {"P5", "12.1.3.1"},
            {"P6", "64d2a3f1"},
            {"P7", "c0000005"},
            {"P8", "00000000001a2b3c"}};
  auto obs = observe_events({r});
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].kind, ObservationKind::app_crash);
  EXPECT_EQ(obs[0].code, "0xc0000005");
  EXPECT_EQ(field(obs[0], "module"), "cublasLt64_12.dll");
  EXPECT_EQ(field(obs[0], "offset"), "0x00000000001a2b3c");
  EXPECT_EQ(field(obs[0], "event_name"), "APPCRASH");

  r.data[0].second = "BEX64";
  r.data[7].second = "00000000001a2b3c";
  r.data[8].second = "c0000409";
  obs = observe_events({r});
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].code, "0xc0000409");
  EXPECT_EQ(field(obs[0], "offset"), "0x00000000001a2b3c");

  r.data[0].second = "AppHangB1";
  EXPECT_TRUE(observe_events({r}).empty());
  r.data[0].second = "LiveKernelEvent";
  r.data[1].second = "1a1"; // not a display live dump
  EXPECT_TRUE(observe_events({r}).empty());
}

TEST(WindowsEvents, MasksTheBugcheckExFlagAndKeepsTheRawCode) {
  doctor::formats::EventRecord r;
  r.provider = "Microsoft-Windows-Kernel-Power";
  r.event_id = 41;
  r.data = {{"BugcheckCode", "268435582"}}; // 0x1000007E
  const auto obs = observe_events({r});
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].code, "0x7e");
  EXPECT_EQ(field(obs[0], "raw_code"), "0x1000007e");
  EXPECT_FALSE(obs[0].when.utc_usec);
}

TEST(WindowsEvents, SkipsUnrelatedEvents) {
  doctor::formats::EventRecord r;
  r.provider = "User32";
  r.event_id = 1074;
  doctor::formats::EventRecord v;
  v.provider = "volmgr";
  v.event_id = 46;
  doctor::formats::EventRecord n;
  n.provider = "NVIDIA OpenGL Driver";
  n.event_id = 1;
  n.data = {{"", "Unable to recover from a kernel exception. Error code: 3 (subcode 2)"}};
  EXPECT_TRUE(observe_events({r, v, n}).empty());
}

} // namespace
