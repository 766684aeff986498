"""Crash evidence of several machines handed over at once, as a support engineer gets it.

- dmesg-xid.log: a Linux dmesg with the GPU's UUID line, Xid 31 (an MMU fault in the
  application), Xid 62 (a PMU halt: a firmware-category Xid, crash.gpu_driver_error) and the
  Xid 45 that follows it (a consequence, not a cause) — madMAx43v3r/chia-gigahorse#301.
- sxid.log: NVSwitch SXids 12028 (leptonai/gpud PR #338) and 22013 Non-fatal (NVIDIA/nvtrust#124).
- dmesg-oops.log: a NULL-pointer Oops in nvidia.ko at load — NVIDIA/open-gpu-kernel-modules#276.
- System-kernel-power.xml, System-bugcheck.xml: one 0x116 VIDEO_TDR_FAILURE seen as Kernel-Power
  41, BugCheck 1001 and EventLog 6008 (one incident), and a power loss (Kernel-Power 41, code 0).
- System-gpu.xml: Display 4101, nvlddmkm 13 (the Windows form of Xid 13), 153 and 0, WHEA 17/47.
- Application.xml: python.exe failing fast in cudnn_cnn_infer64_8.dll (Application Error 1000,
  positional), Application Hang 1002, NVIDIA OpenGL Driver 1 (an application-side TDR).
- triage_x64.dmp: the real Windows 10 kernel triage dump of ../shared/testdata (0x1000007E in
  amdppm.sys).

The text and XML files are copies of tests/unit/data/crash (kernel/dmesg_xid_uuid.log,
kernel/sxid.log, kernel/dmesg_oops_nvidia.log, events/*.xml); the README.md files there name
the source of every line and event shape.
"""

INPUTS = [
    "{scenario}/dmesg-xid.log",
    "{scenario}/sxid.log",
    "{scenario}/dmesg-oops.log",
    "{scenario}/System-kernel-power.xml",
    "{scenario}/System-bugcheck.xml",
    "{scenario}/System-gpu.xml",
    "{scenario}/Application.xml",
    "{testdata}/windows-dumps/triage_x64.dmp",
]
EXIT = 1
