// SPDX-License-Identifier: MIT
// From kernel-log lines to Observations: NVIDIA driver messages (Xid, SXid, GPU lost, init and
// GSP failures, version mismatch, nouveau), machine checks, EDAC, PCIe AER, the OOM killer,
// oopses, panics and lockups. Facts only: what the line says, by field name; what it means is
// the analysis' business.
#pragma once

#include <doctor/crash/observation.hpp>
#include <doctor/formats/kernel_log.hpp>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace doctor::crash {

// Reads kernel lines in log order and keeps the Observations they make. Some events span lines
// and are merged into one Observation: an oops collects its "Oops:", "RIP:", "Modules linked in:"
// and "CPU: … Tainted:" lines, a PCIe AER report its "error received" and "PCIe Bus Error" lines,
// an OOM kill its "oom-kill:constraint=" and "Killed process" lines. The "NVRM: GPU at PCI:…"
// line gives the UUID of later Xids on that PCI address.
class KernelEventScanner {
public:
  // Examines one line; lines that mean nothing for crashes are skipped.
  void add(const formats::KernelLine& line);

  // Returns the Observations made so far, in log order, and forgets them.
  std::vector<Observation> take();

private:
  enum class Open { none, oops, aer, mce, oom };

  bool scan_nvidia(const formats::KernelLine& line);
  bool scan_hardware(const formats::KernelLine& line);
  bool scan_system(const formats::KernelLine& line);
  bool scan_oops(const formats::KernelLine& line);
  bool continue_open(const formats::KernelLine& line);
  void continue_oops(const formats::KernelLine& line);
  Observation& emit(ObservationKind kind, const formats::KernelLine& line, Open open = Open::none);

  std::vector<Observation> m_out;
  std::map<std::string, std::string> m_uuid_by_pci; // "0000:9b:00" → "GPU-5096…"
  std::set<std::string> m_nouveau_seen;             // PCI addresses already reported
  Open m_open = Open::none;                         // the last Observation may take more lines
  std::size_t m_open_age = 0;                       // lines since it was opened
};

// Turns kernel lines into Observations (observation.hpp), one per event (see
// KernelEventScanner). Fields by kind:
// - xid: code "13"; pci ("0000:41:00"), gpu_instance, compute_instance (MIG), pid ("unknown" for
//   pid='<unknown>'; absent when the line has none), process, message (the rest), caused_by
//   ("149"), uuid (from an earlier "NVRM: GPU at PCI:…" line), recovery_action and
//   recovery_action_code (Xid 154), unit, severity, containment, link, info (NVLink5 144–150);
// - sxid: code, pci (as written, with function), severity ("Fatal"/"Non-fatal"), message;
// - gpu_lost, gpu_init_failed (type, status "0x62:0x65:1792", minor), gsp_error (type, firmware),
//   driver_conflict (type, count): pci ("0000:b3:00") and bdf ("0000:b3:00.0") when named;
// - driver_mismatch: client_version, kernel_version, client, client_pid;
// - mce: type, cpu, bank, status; edac: mc, count, type (CE/UE), error, location, detail;
// - pcie_aer: severity ("Corrected", "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)"), type
//   ("Data Link Layer"), agent, port (the reporting port), device, errors;
// - oom_kill: pid, process, constraint, oom_memcg, task_memcg;
// - kernel_oops: type (null_pointer, page_fault, general_protection, bug, oops), message, oops,
//   rip, tainted ("P OE", "no"), pid, process, kernel, nvidia_modules, nvidia_frame;
// - kernel_panic: reason; lockup: type (soft_lockup, hard_lockup, hung_task, rcu_stall,
//   workqueue), cpu, seconds, process, pid;
// - app_crash (the kernel's "comm[pid]: segfault at …" / "traps: comm[pid] …" report of a
//   user-space crash): code "SIGSEGV" or the trap, process, pid, module, address.
// Each Observation's when and origin are those of its first line; lines hold the verbatim
// message lines (bounded).
std::vector<Observation> observe_kernel_lines(const std::vector<formats::KernelLine>& lines);

} // namespace doctor::crash
