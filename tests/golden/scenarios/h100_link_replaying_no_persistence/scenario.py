"""A server whose H100's PCIe link replays transfers while the probe watches, with persistence mode
off.

The H100 server of scenario_lib's h100_server(). NVML (the stand-in tests/support/fake_nvml.c in
its "replays,persistoff" mode, whose facts go into the snapshot) reports 40 PCIe replays, then 47
when the NVML child reads the counter again 100 ms later, and persistence mode disabled.

Expected: hardware.pcie_replays_rising (40 to 47 within 100 ms) and, because an H100 makes this a
Linux server, hardware.persistence_mode_off (info) with nvidia-persistenced as the fix."""

NVML_MODE = "replays,persistoff"
EXIT = 0


def build(t):
    t.h100_server()
