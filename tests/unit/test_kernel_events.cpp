// SPDX-License-Identifier: MIT
// Platform-neutral: kernel-log text in, Observations out.
#include "support/shared_testdata.hpp"
#include "support/test_paths.hpp"

#include <doctor/crash/kernel_events.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace doctor::crash {
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

std::vector<Observation> observe_text(std::string_view text) {
  return observe_kernel_lines(formats::read_kernel_log(text, "test"));
}

// Observations of a fixture in tests/unit/data/crash/kernel (real lines; README.md there).
std::vector<Observation> fixture(const std::string& name) {
  const std::string text = read_all(test::test_data_dir() + "/crash/kernel/" + name);
  EXPECT_FALSE(text.empty()) << name;
  return observe_text(text);
}

using Fields = std::map<std::string, std::string>;

// All fields of `o`, to compare whole: a field that should not be there fails the test too.
Fields fields(const Observation& o) {
  Fields out;
  for (const auto& [k, v] : o.fields) {
    EXPECT_TRUE(out.emplace(k, v).second) << "field twice: " << k;
  }
  return out;
}

TEST(KernelEvents, RealDmesgXid119) {
  const std::string text =
      read_all(test::shared_testdata_dir() + "/linux-logs/dmesg-with-xid-119.log");
  if (text.empty()) {
    DOCTOR_MISSING_TESTDATA("linux-logs of " + test::shared_testdata_dir());
  }
  const auto obs = observe_text(text);
  ASSERT_EQ(obs.size(), 5U); // the RPC history table and the stack make no events
  const Observation& o = obs[0];
  EXPECT_EQ(o.kind, ObservationKind::xid);
  EXPECT_EQ(o.code, "119");
  EXPECT_EQ(fields(o),
            (Fields{{"pci", "0000:9b:00"},
                    {"pid", "2024380"},
                    {"process", "nvidia-smi"},
                    {"message",
                     "Timeout after 6s of waiting for RPC response from GPU4 GSP! "
                     "Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4)."},
                    {"uuid", "GPU-509665ad-b600-ac93-3616-d754b23d636d"}}));
  EXPECT_EQ(o.origin.locator, "line 3");
  EXPECT_EQ(o.when.label, "Sun Feb 23 16:24:18 2025");
  ASSERT_EQ(o.lines.size(), 1U);
  EXPECT_EQ(o.lines[0].substr(0, 33), "NVRM: Xid (PCI:0000:9b:00): 119, ");
  EXPECT_EQ(*obs[3].field("process"), "cache_mgr_main");
  EXPECT_EQ(*obs[4].field("pid"), "1240590");
}

TEST(KernelEvents, RealDmesgDecodeIso) {
  const std::string text =
      read_all(test::shared_testdata_dir() + "/linux-logs/dmesg.decode.iso.log");
  if (text.empty()) {
    DOCTOR_MISSING_TESTDATA("linux-logs of " + test::shared_testdata_dir());
  }
  const auto obs = observe_text(text);
  ASSERT_EQ(obs.size(), 22U); // 16 Xid 13, 1 Xid 43, 5 OOM kills
  const Observation& o = obs[2];
  EXPECT_EQ(o.code, "13");
  EXPECT_EQ(fields(o),
            (Fields{{"pci", "0000:38:00"},
                    {"pid", "unknown"},
                    {"process", "unknown"},
                    {"message",
                     "Graphics SM Warp Exception on (GPC 9, TPC 1, SM 1): "
                     "Out Of Range Address"}}));
  EXPECT_EQ(o.when.utc_usec, 1737434504LL * 1000000 + 283575);
  EXPECT_EQ(obs[16].code, "43");
  EXPECT_EQ(*obs[16].field("process"), "pt_main_thread");
  // "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null)," then "Killed process 123 … (httpd)".
  EXPECT_EQ(obs[17].kind, ObservationKind::oom_kill);
  EXPECT_EQ(fields(obs[17]),
            (Fields{{"constraint", "CONSTRAINT_MEMCG"}, {"pid", "123"}, {"process", "httpd"}}));
  EXPECT_EQ(obs[17].lines.size(), 2U);
  EXPECT_EQ(fields(obs[18]), (Fields{{"pid", "456"}, {"process", "python"}}));
  const Fields memcg = fields(obs[20]);
  EXPECT_EQ(memcg.at("pid"), "863987");
  EXPECT_EQ(memcg.at("process"), "node");
  EXPECT_EQ(memcg.at("constraint"), "CONSTRAINT_MEMCG");
  EXPECT_EQ(memcg.at("oom_memcg").substr(0, 30), "/lxc.payload.ny2g2r5hh3-lxc/ku");
  EXPECT_EQ(memcg.count("task_memcg"), 1U);
  EXPECT_EQ(fields(obs[21]), (Fields{{"constraint", "OTHER_CONSTRAINT"}}));
}

TEST(KernelEvents, RealPstoreOops) {
  const std::string text =
      read_all(test::shared_testdata_dir() + "/linux-logs/pstore-dmesg-erst.txt");
  if (text.empty()) {
    DOCTOR_MISSING_TESTDATA("linux-logs of " + test::shared_testdata_dir());
  }
  const auto obs = observe_text(text);
  ASSERT_EQ(obs.size(), 1U); // no "Kernel panic" line in this record
  const Observation& o = obs[0];
  EXPECT_EQ(o.kind, ObservationKind::kernel_oops);
  EXPECT_EQ(fields(o),
            (Fields{{"type", "null_pointer"},
                    {"message",
                     "unable to handle kernel NULL pointer dereference at  "
                     "         (null)"},
                    {"oops", "0002 [#1] SMP"},
                    {"pid", "1899"},
                    {"process", "bash"},
                    {"tainted", "no"},
                    {"kernel", "4.7.0-coreos"},
                    {"rip", "sysrq_handle_crash+0x16/0x20"}}));
  EXPECT_EQ(o.when.uptime_usec, 201654822);
  ASSERT_EQ(o.lines.size(), 6U);
  EXPECT_EQ(o.lines[5], "---[ end trace 8794939ba0598b91 ]---");
}

TEST(KernelEvents, RealKmsgHasNoEvents) {
  const std::string text = read_all(test::shared_testdata_dir() + "/linux-logs/kmsg.1.log");
  if (text.empty()) {
    DOCTOR_MISSING_TESTDATA("linux-logs of " + test::shared_testdata_dir());
  }
  EXPECT_TRUE(observe_text(text).empty()); // nvswitch opens and network noise
}

TEST(KernelEvents, XidPidForms) {
  const auto obs = fixture("dmesg_ctime_xid.log");
  ASSERT_EQ(obs.size(), 4U);
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0000:cb:00"},
                    {"pid", "unknown"},
                    {"process", "unknown"},
                    {"message",
                     "Graphics SM Warp Exception on (GPC 7, TPC 7, SM "
                     "0): Illegal Instruction Parameter"}}));
  EXPECT_EQ(obs[0].when.utc_usec, 1725018189LL * 1000000);
  EXPECT_EQ(obs[1].code, "109");
  EXPECT_EQ(fields(obs[1]),
            (Fields{{"pci", "0000:cb:00"},
                    {"pid", "1797828"},
                    {"process", "pt_main_thread"},
                    {"message", "Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005"}}));
  EXPECT_EQ(obs[2].code, "43");
  EXPECT_EQ(fields(obs[2]),
            (Fields{{"pci", "0000:3d:00"}, {"pid", "35521"}, {"message", "Ch 00000008"}}));
  EXPECT_EQ(obs[3].code, "31");
  EXPECT_EQ(*obs[3].field("pid"), "13641");
  EXPECT_EQ(obs[3].field("process"), nullptr);
  EXPECT_EQ(obs[3].field("message")->substr(0, 40), "Ch 00000008, intr 00000000. MMU Fault: E");
}

TEST(KernelEvents, XidUuidFromGpuAtLine) {
  const auto obs = fixture("dmesg_xid_uuid.log");
  ASSERT_EQ(obs.size(), 3U);
  EXPECT_EQ(obs[0].code, "31");
  EXPECT_EQ(*obs[0].field("uuid"), "GPU-760d0170-b7c5-6817-9414-6cc7112645de");
  EXPECT_EQ(*obs[0].field("process"), "cuda_plot_k32_v");
  EXPECT_EQ(obs[1].code, "62");
  EXPECT_EQ(*obs[1].field("message"),
            "2023b230 20238a3a 2023e8b6 2023eac4 2023ec3c 2023ea86 00000000 00000000");
  EXPECT_EQ(obs[2].code, "45");
  EXPECT_EQ(fields(obs[2]),
            (Fields{{"pci", "0000:0a:00"},
                    {"pid", "unknown"},
                    {"process", "unknown"},
                    {"message", "Ch 00000008"},
                    {"uuid", "GPU-760d0170-b7c5-6817-9414-6cc7112645de"}}));
  EXPECT_EQ(obs[2].when.uptime_usec, 14370688139);
}

TEST(KernelEvents, XidCausedBy) {
  const auto obs = fixture("xid_caused_by.log");
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].code, "45");
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0000:dc:00"},
                    {"pid", "1818990"},
                    {"process", "python3"},
                    {"message", "Ch 00000001"},
                    {"caused_by", "149"}}));
}

TEST(KernelEvents, XidOldFormats) {
  const auto obs = fixture("xid_old_formats.log");
  ASSERT_EQ(obs.size(), 4U);
  EXPECT_EQ(obs[0].code, "13");
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0000:41:00"},
                    {"message",
                     "Graphics SM Warp Exception on (GPC 1, TPC 0, SM "
                     "0): Illegal Instruction Encoding"}}));
  EXPECT_EQ(obs[0].when.label, "Feb 15 17:37:45");
  EXPECT_EQ(obs[0].when.uptime_usec, 82659755933);
  EXPECT_EQ(obs[1].code, "32");
  EXPECT_EQ(fields(obs[1]),
            (Fields{{"pci", "0000:01:00"}, {"message", "Channel ID 00000000 intr 00004000"}}));
  EXPECT_EQ(obs[2].code, "31");
  EXPECT_EQ(*obs[2].field("message"), "Ch 00000003, engmask 00000101, intr 10000000");
  EXPECT_EQ(obs[3].code, "13"); // no "PCI:" before the address
  EXPECT_EQ(fields(obs[3]),
            (Fields{{"pci", "0000:01:00"},
                    {"message", "0005 00000000 0000502d 00000104 00000000 00000100"}}));
}

TEST(KernelEvents, Xid79And154AndSingleLineBusLoss) {
  const auto obs = fixture("xid_79_154.log");
  ASSERT_EQ(obs.size(), 3U);
  EXPECT_EQ(obs[0].kind, ObservationKind::xid);
  EXPECT_EQ(obs[0].code, "79");
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0000:44:00"}, {"message", "GPU has fallen off the bus"}}));
  EXPECT_EQ(obs[1].kind, ObservationKind::gpu_lost);
  EXPECT_EQ(fields(obs[1]), (Fields{{"pci", "0000:29:00"}, {"bdf", "0000:29:00.0"}}));
  EXPECT_EQ(obs[2].code, "154");
  EXPECT_EQ(fields(obs[2]),
            (Fields{{"pci", "0009:01:00"},
                    {"message",
                     "GPU recovery action changed from 0x0 (None) to 0x4 (Drain and "
                     "Reset)"},
                    {"recovery_action", "Drain and Reset"},
                    {"recovery_action_code", "0x4"}}));
}

TEST(KernelEvents, NvLink5) {
  const auto obs = fixture("xid_nvlink5.log");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].code, "145");
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0018:01:00"},
                    {"message",
                     "RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 "
                     "0x00000001 0x00000000 0x00100000 0x00000004)"},
                    {"unit", "RLW_RXPIPE"},
                    {"severity", "Nonfatal"},
                    {"containment", "XC0"},
                    {"link", "13"},
                    {"info",
                     "0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 "
                     "0x00000004"}}));
  EXPECT_EQ(obs[1].code, "149");
  EXPECT_EQ(*obs[1].field("unit"), "NETIR_LINK_EVT");
  EXPECT_EQ(*obs[1].field("severity"), "Fatal");
  EXPECT_EQ(*obs[1].field("link"), "00");
  EXPECT_EQ(*obs[1].field("pci"), "0000:00:00");
}

TEST(KernelEvents, MigInstancesConstructed) {
  // Constructed from the krcReportXid formats (research 6.3); no public MIG sample.
  const auto obs = observe_text(
      "NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:00): 31, pid=4242, "
      "name=python, Ch 00000008\n"
      "NVRM: Xid (PCI:0000:3b:00 GPU-I:02): 13, x\n");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0000:3b:00"},
                    {"gpu_instance", "01"},
                    {"compute_instance", "00"},
                    {"pid", "4242"},
                    {"process", "python"},
                    {"message", "Ch 00000008"}}));
  EXPECT_EQ(fields(obs[1]),
            (Fields{{"pci", "0000:3b:00"}, {"gpu_instance", "02"}, {"message", "x"}}));
}

TEST(KernelEvents, SXid) {
  const auto obs = fixture("sxid.log");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].kind, ObservationKind::sxid);
  EXPECT_EQ(obs[0].code, "12028");
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0000:84:00.0"}, {"message", "Data {0x000001c0, 0x00bd5c8a, …}"}}));
  EXPECT_EQ(obs[0].when.utc_usec, 1737801294LL * 1000000 + 859532);
  EXPECT_EQ(obs[1].code, "22013");
  EXPECT_EQ(fields(obs[1]),
            (Fields{{"pci", "0000:04:00.0"},
                    {"severity", "Non-fatal"},
                    {"message", "Link 44 Minion Link DLREQ interrupt"}}));
}

TEST(KernelEvents, FallenOffTheBusMultiLine) {
  const auto obs = fixture("dmesg_fallen_off_bus.log");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].kind, ObservationKind::gpu_lost);
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"pci", "0000:b3:00"}, {"bdf", "0000:b3:00.0"}, {"pci_id", "10de:26b5"}}));
  EXPECT_EQ(obs[0].when.uptime_usec, 1843308145);
  EXPECT_EQ(
      obs[0].lines,
      (std::vector<std::string>{"NVRM: The NVIDIA GPU 0000:b3:00.0",
                                "NVRM: (PCI ID: 10de:26b5) installed in this system has",
                                "NVRM: fallen off the bus and is not responding to commands."}));
  EXPECT_EQ(obs[1].kind, ObservationKind::gpu_init_failed);
  EXPECT_EQ(fields(obs[1]), (Fields{{"type", "probe_failed"}}));
  EXPECT_EQ(obs[1].origin.locator, "line 4");
}

TEST(KernelEvents, ApiMismatch) {
  const auto syslog = fixture("syslog_api_mismatch.log");
  ASSERT_EQ(syslog.size(), 1U);
  EXPECT_EQ(syslog[0].kind, ObservationKind::driver_mismatch);
  EXPECT_EQ(fields(syslog[0]),
            (Fields{{"client_version", "535.54.03"}, {"kernel_version", "530.30.02"}}));
  EXPECT_EQ(syslog[0].lines.size(), 4U);
  EXPECT_EQ(syslog[0].when.label, "Jun 30 11:07:05");

  const auto dmesg = fixture("dmesg_api_mismatch.log");
  ASSERT_EQ(dmesg.size(), 2U);
  EXPECT_EQ(fields(dmesg[0]),
            (Fields{{"client_version", "570.153.02"}, {"kernel_version", "570.144"}}));
  EXPECT_EQ(fields(dmesg[1]),
            (Fields{{"client_version", "595.84"},
                    {"kernel_version", "595.80"},
                    {"client", "kwin_wayland"},
                    {"client_pid", "1005"}}));
  EXPECT_EQ(dmesg[1].origin.locator, "line 5");
}

TEST(KernelEvents, InitAndGspFailures) {
  const auto obs = fixture("gpu_init.log");
  ASSERT_EQ(obs.size(), 10U);
  EXPECT_EQ(obs[0].kind, ObservationKind::gsp_error);
  EXPECT_EQ(fields(obs[0]), (Fields{{"type", "gsp_init"}}));
  EXPECT_EQ(obs[1].kind, ObservationKind::gpu_init_failed); // and its rm_init_adapter line
  EXPECT_EQ(fields(obs[1]),
            (Fields{{"type", "rm_init_adapter"},
                    {"pci", "0000:01:00"},
                    {"bdf", "0000:01:00.0"},
                    {"status", "0x63:0x56:1689"},
                    {"minor", "0"}}));
  EXPECT_EQ(obs[1].lines.size(), 2U);
  EXPECT_EQ(fields(obs[2]), (Fields{{"type", "wpr2_up"}}));
  EXPECT_EQ(fields(obs[3]),
            (Fields{{"type", "rm_init_adapter"},
                    {"pci", "0000:a1:00"},
                    {"bdf", "0000:a1:00.0"},
                    {"status", "0x62:0x40:2168"}}));
  EXPECT_EQ(obs[4].kind, ObservationKind::gsp_error);
  EXPECT_EQ(fields(obs[4]),
            (Fields{{"type", "firmware_load"},
                    {"firmware", "nvidia/570.144/gsp_ga10x.bin"},
                    {"error", "-2"},
                    {"pci", "0000:07:00"},
                    {"bdf", "0000:07:00.0"}}));
  EXPECT_EQ(fields(obs[5]), (Fields{{"type", "firmware_missing"}}));
  // Quoted without "NVRM: GPU …:" in its source: no address.
  EXPECT_EQ(fields(obs[6]), (Fields{{"type", "rm_init_adapter"}, {"status", "0x61:0x56:1770"}}));
  EXPECT_EQ(obs[7].kind, ObservationKind::gsp_error);
  EXPECT_EQ(fields(obs[7]), (Fields{{"type", "gfw_boot_timeout"}}));
  EXPECT_EQ(fields(obs[8]), (Fields{{"type", "rm_init_adapter"}, {"minor", "0"}}));
  EXPECT_EQ(fields(obs[9]), (Fields{{"type", "no_adapter"}}));
}

TEST(KernelEvents, ProbeNotCalledAndNouveauConstructed) {
  // The driver's fixed text (research 6.3) and a nouveau line of the form shown there.
  const auto obs = observe_text(
      "NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
      "NVRM: This can occur when a driver such as:\n"
      "NVRM: nouveau, rivafb, nvidiafb or rivatv\n"
      "NVRM: was loaded and obtained ownership of the NVIDIA device(s).\n"
      "NVRM: No NVIDIA graphics adapter probed!\n"
      "nouveau 0000:08:00.0: gr: PGRAPH TLB flush idle timeout fail\n"
      "nouveau 0000:08:00.0: gr: again\n");
  ASSERT_EQ(obs.size(), 3U);
  EXPECT_EQ(obs[0].kind, ObservationKind::driver_conflict);
  EXPECT_EQ(fields(obs[0]), (Fields{{"type", "probe_not_called"}, {"count", "1"}}));
  EXPECT_EQ(obs[0].lines.size(), 4U);
  EXPECT_EQ(fields(obs[1]), (Fields{{"type", "no_adapter"}}));
  EXPECT_EQ(obs[2].kind, ObservationKind::driver_conflict);
  EXPECT_EQ(fields(obs[2]),
            (Fields{{"type", "nouveau_bound"}, {"pci", "0000:08:00"}, {"bdf", "0000:08:00.0"}}));
}

TEST(KernelEvents, OopsInNvidia) {
  const auto dmesg = fixture("dmesg_oops_nvidia.log");
  ASSERT_EQ(dmesg.size(), 1U);
  EXPECT_EQ(dmesg[0].kind, ObservationKind::kernel_oops);
  EXPECT_EQ(fields(dmesg[0]),
            (Fields{{"type", "null_pointer"},
                    {"message", "kernel NULL pointer dereference, address: 0000000000000fa8"},
                    {"oops", "0002 [#1] PREEMPT SMP NOPTI"},
                    {"pid", "689"},
                    {"process", "systemd-udevd"},
                    {"tainted", "G O"},
                    {"kernel", "5.15.41-gentoo"},
                    {"rip", "nvlogInit+0x6/0xd0 [nvidia]"}}));
  EXPECT_EQ(dmesg[0].origin.locator, "line 3");

  const auto syslog = fixture("syslog_oops_nvidia.log");
  ASSERT_EQ(syslog.size(), 1U);
  EXPECT_EQ(fields(syslog[0]),
            (Fields{{"type", "null_pointer"},
                    {"message", "kernel NULL pointer dereference, address: 0000000000000030"},
                    {"oops", "0000 [#1] SMP NOPTI"},
                    {"pid", "28651"},
                    {"process", "python3.14"},
                    {"tainted", "G O"},
                    {"kernel", "6.18.24"},
                    {"rip", "nvidia_vma_access+0x1b/0x350 [nvidia]"}}));
}

TEST(KernelEvents, OopsModulesFrameAndPanicConstructed) {
  // Lines of the forms in research 6.3 (Modules linked in, Tainted: P, Kernel panic).
  const auto obs = observe_text(
      "<1>[ 10.000001] BUG: unable to handle page fault for address: ffffc90000000000\n"
      "<4>[ 10.000002] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
      "<4>[ 10.000003] Modules linked in: nvidia_uvm(POE) nvidia_drm(POE) ext4 nvidia(POE)\n"
      "<4>[ 10.000004] CPU: 3 PID: 77 Comm: python Tainted: P           OE     6.5.0-1 #1\n"
      "<4>[ 10.000005]  ? _nv012454rm+0x437/0x4b0 [nvidia]\n"
      "<0>[ 10.000006] Kernel panic - not syncing: Fatal exception\n"
      "<0>[ 10.000007] ---[ end Kernel panic - not syncing: Fatal exception ]---\n");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"type", "page_fault"},
                    {"message", "unable to handle page fault for address: ffffc90000000000"},
                    {"oops", "0000 [#1] PREEMPT SMP NOPTI"},
                    {"nvidia_modules", "nvidia_uvm nvidia_drm nvidia"},
                    {"pid", "77"},
                    {"process", "python"},
                    {"tainted", "P OE"},
                    {"kernel", "6.5.0-1"},
                    {"nvidia_frame", "_nv012454rm+0x437/0x4b0 [nvidia]"}}));
  EXPECT_EQ(obs[0].when.uptime_usec, 10000001);
  EXPECT_EQ(obs[1].kind, ObservationKind::kernel_panic);
  EXPECT_EQ(fields(obs[1]), (Fields{{"reason", "Fatal exception"}}));
  EXPECT_EQ(obs[1].lines.size(), 1U);
}

TEST(KernelEvents, PcieAer) {
  const auto obs = fixture("syslog_aer.log");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].kind, ObservationKind::pcie_aer);
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"severity", "Corrected"},
                    {"port", "0000:00:03.1"},
                    {"device", "0000:00:00.0"},
                    {"type", "Data Link Layer"},
                    {"agent", "Transmitter ID"},
                    {"errors", "BadTLP, BadDLLP, Rollover, Timeout"}}));
  EXPECT_EQ(obs[0].lines.size(), 7U);
  EXPECT_EQ(fields(obs[1]),
            (Fields{{"severity", "Corrected"},
                    {"port", "0000:00:03.1"},
                    {"type", "Data Link Layer"},
                    {"agent", "Transmitter ID"},
                    {"device", "0000:07:00.0"},
                    {"errors", "Timeout"}}));
  EXPECT_EQ(obs[1].origin.locator, "line 8");

  const auto fatal = fixture("dmesg_reltime_aer.log");
  ASSERT_EQ(fatal.size(), 1U);
  EXPECT_EQ(fields(fatal[0]),
            (Fields{{"severity", "Uncorrected (Fatal)"},
                    {"port", "0000:00:03.0"},
                    {"device", "0000:00:03.0"},
                    {"type", "Transaction Layer"},
                    {"agent", "Requester ID"},
                    {"errors", "SDES, CmpltTO"}}));
  EXPECT_EQ(fatal[0].when.label, "+0.000001");
  EXPECT_FALSE(fatal[0].when.uptime_usec.has_value());
}

TEST(KernelEvents, MachineCheckAndEdac) {
  const auto obs = fixture("syslog_mce_edac.log");
  ASSERT_EQ(obs.size(), 5U);
  EXPECT_EQ(obs[0].kind, ObservationKind::mce);
  EXPECT_EQ(fields(obs[0]), (Fields{{"type", "events_logged"}}));
  EXPECT_EQ(obs[1].kind, ObservationKind::edac);
  EXPECT_EQ(fields(obs[1]),
            (Fields{{"mc", "0"},
                    {"count", "4"},
                    {"type", "CE"},
                    {"error", "error"},
                    {"location", "CPU#0Channel#2_DIMM#0"},
                    {"detail", "channel:2 slot:0 page:0x0 offset:0x0 grain:8 syndrome:0x0"}}));
  EXPECT_EQ(obs[1].when.uptime_usec, 21584690529877);
  EXPECT_EQ(fields(obs[2]), (Fields{{"type", "events_logged"}}));
  EXPECT_EQ(
      fields(obs[3]),
      (Fields{
          {"type", "machine_check"}, {"cpu", "0"}, {"bank", "4"}, {"status", "a600000000020408"}}));
  EXPECT_EQ(obs[3].lines.size(), 3U); // with its TSC/ADDR and PROCESSOR lines
  EXPECT_EQ(obs[4].kind, ObservationKind::edac);
  const Fields edac = fields(obs[4]);
  EXPECT_EQ(edac.at("mc"), "1");
  EXPECT_EQ(edac.at("count"), "1");
  EXPECT_EQ(edac.at("error"), "memory scrubbing error");
  EXPECT_EQ(edac.at("location"), "CPU_SrcID#1_Ha#0_Chan#0_DIMM#0");
  EXPECT_EQ(edac.at("detail").substr(0, 25), "channel:0 slot:0 page:0xe");
}

TEST(KernelEvents, Lockups) {
  const auto obs = fixture("lockup.log");
  ASSERT_EQ(obs.size(), 4U);
  EXPECT_EQ(obs[0].kind, ObservationKind::lockup);
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"type", "soft_lockup"},
                    {"cpu", "7"},
                    {"seconds", "23"},
                    {"process", "pytest"},
                    {"pid", "25222"}}));
  EXPECT_EQ(obs[0].when.utc_usec, 1617427422LL * 1000000);
  EXPECT_EQ(fields(obs[1]), (Fields{{"type", "hard_lockup"}, {"cpu", "3"}}));
  EXPECT_EQ(fields(obs[2]),
            (Fields{{"type", "soft_lockup"},
                    {"cpu", "0"},
                    {"seconds", "27"},
                    {"process", "cuda-EvtHandlr"},
                    {"pid", "2255424"}}));
  EXPECT_EQ(
      fields(obs[3]),
      (Fields{{"type", "hung_task"}, {"process", "python3"}, {"pid", "1234"}, {"seconds", "120"}}));
}

TEST(KernelEvents, OomKills) {
  const auto obs = fixture("oom.log");
  ASSERT_EQ(obs.size(), 2U);
  EXPECT_EQ(obs[0].kind, ObservationKind::oom_kill);
  EXPECT_EQ(fields(obs[0]), (Fields{{"pid", "123"}, {"process", "python"}}));
  EXPECT_EQ(obs[0].origin.locator, "line 2");
  EXPECT_EQ(fields(obs[1]), (Fields{{"pid", "456"}, {"process", "python"}}));
}

TEST(KernelEvents, UserSpaceCrashConstructed) {
  // The kernel's report of a user-space SIGSEGV (show_signal_msg format).
  const auto obs = observe_text(
      "[ 5.000000] python3[4242]: segfault at 0 ip 00007f12 sp 00007ffd "
      "error 4 in libcudnn_cnn_infer.so.8[7f0000000000+1000]\n");
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(obs[0].kind, ObservationKind::app_crash);
  EXPECT_EQ(obs[0].code, "SIGSEGV");
  EXPECT_EQ(fields(obs[0]),
            (Fields{{"process", "python3"},
                    {"pid", "4242"},
                    {"module", "libcudnn_cnn_infer.so.8"},
                    {"address", "0"}}));
}

TEST(KernelEvents, ScannerStreamsLikeTheVector) {
  const std::string text =
      "[1.000000] NVRM: GPU at PCI:0000:0a:00: GPU-1\n"
      "[1.000001] NVRM: Xid (PCI:0000:0A:00): 48, x\n";
  KernelEventScanner scanner;
  formats::read_kernel_log(
      text, "s", [&scanner](formats::KernelLine&& line) { scanner.add(line); });
  const auto obs = scanner.take();
  ASSERT_EQ(obs.size(), 1U);
  EXPECT_EQ(*obs[0].field("uuid"), "GPU-1"); // PCI addresses compare without case
  EXPECT_TRUE(scanner.take().empty());
}

} // namespace
} // namespace doctor::crash
