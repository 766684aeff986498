"""A training server whose H100 was overclocked and now slows down for heat.

The H100 server of scenario_lib's h100_server(). NVML (the stand-in tests/support/fake_nvml.c in
its "overclock,throttle" mode, whose facts go into the snapshot) reports graphics application
clocks of 2100 MHz against a default of 1755 MHz, an enforced power limit of 800 W against the
default 700 W, and the clock-event reasons hardware and software thermal slowdown at 92 C (slowdown
at 87 C).

Expected: hardware.gpu_overclocked (the clock and the power limit, with the nvidia-smi resets) and
hardware.gpu_throttling (both thermal reasons and the temperature), nothing else about the GPU."""

NVML_MODE = "overclock,throttle"
EXIT = 0


def build(t):
    t.h100_server()
