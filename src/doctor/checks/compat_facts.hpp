// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/compat.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/model/finding.hpp>

#include <optional>
#include <string>
#include <vector>

// What the compatibility checks need to know about the machine, read once from the facts: the
// driver version, the GPUs with their compute capability, the platform.
namespace doctor::checks {

kb::Os os_of(const facts::Facts& facts);

// The installed NVIDIA driver: the loaded kernel module's version, else NVML's, else the
// user-space libcuda's (the driver that will load after a reboot). nullopt if none is known.
struct DriverVersion {
  Version version;
  Evidence evidence;
};
std::optional<DriverVersion> installed_driver(const facts::Facts& facts);

// One GPU with its compute capability: NVML's answer when it has one, else the knowledge base's
// row for its PCI id. `cc` is nullopt when neither knows.
struct GpuCc {
  std::string description; // "NVIDIA GeForce GTX 1080 (10de:1b80 at 0000:01:00.0)"
  std::optional<Version> cc;
  std::string cc_source; // "nvml", "kb:pci 10de:1b80"
  std::vector<Evidence> evidence;
};
std::vector<GpuCc> gpus_with_cc(const facts::Facts& facts, const kb::CompatTables& compat);

// The same, with GPUs of one compute capability merged into one entry ("… and 3 more"), so that
// an eight-GPU server gets one finding per kind of GPU, not eight.
std::vector<GpuCc> gpu_kinds(const facts::Facts& facts, const kb::CompatTables& compat);

// The CUDA major a cuDNN package was built for, from its record: pip "nvidia-cudnn-cu12", dpkg
// "libcudnn9-cuda-12", "libcudnn8" with a "+cuda12.2" version. 0 if the record does not say.
unsigned cudnn_cuda_major(const facts::CudnnInstall& inst);

// A framework's version without its local tag ("2.1.2+cu121" -> 2.1.2); nullopt if unknown.
std::optional<Version> framework_version(const facts::Framework& fw);

// The environment's own interpreter running pip ("/venv/bin/python -m pip"), so that a fix
// installs into that environment; the prefix is a value, quoted when the command is rendered.
util::Command pip_command(const facts::PythonEnv& env, kb::Os os);

// The shell of the fix commands for a system: cmd.exe on Windows, sh elsewhere.
util::Shell shell_for(kb::Os os);

// The command that installs `row`'s build into `env`: for torch with `same_release` (the row
// covers the installed release) that exact release from the variant's package index, else the
// row's own command run by the environment's pip.
util::Command install_command(const kb::FrameworkBuildRow& row,
                              const facts::Framework& fw,
                              const facts::PythonEnv& env,
                              kb::Os os,
                              bool same_release);

// One entry of a build's architecture list, in any of the spellings met: "sm_86", "compute_90",
// "sm_90a" (fatbinary, TensorFlow), "8.6", "9.0+PTX" (torch's TORCH_CUDA_ARCH_LIST).
struct BuildArch {
  Version cc;
  bool ptx = false;           // PTX (JIT-compiled by the driver for this and newer GPUs)
  bool arch_specific = false; // sm_90a / sm_100f: only that exact capability (family: same major)
};
std::vector<BuildArch> parse_build_archs(const std::vector<std::string>& archs);

// True if a build with `archs` has code that runs on a GPU of capability `cc`: SASS of the same
// major and a minor not above the GPU's, or PTX not newer than the GPU.
bool build_runs_on(const std::vector<BuildArch>& archs, const Version& cc);

} // namespace doctor::checks
