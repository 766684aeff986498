"""A server whose H100 has a row remap pending after uncorrectable memory errors.

The H100 server of scenario_lib's h100_server(). NVML (the stand-in tests/support/fake_nvml.c in
its "rowremap" mode, whose facts go into the snapshot) reports 3 volatile uncorrectable ECC errors,
2 rows remapped for uncorrectable errors and a remap pending (it takes effect at the next GPU
reset); no remap failed.

Expected: hardware.gpu_memory_errors as an error (not critical: no remap failed), with every
counter as evidence and the reset and RMA advice."""

NVML_MODE = "rowremap"
EXIT = 1


def build(t):
    t.h100_server()
