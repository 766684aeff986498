// SPDX-License-Identifier: MIT
#include <doctor/model/cause_class.hpp>

#include <array>
#include <utility>

namespace doctor {

namespace {

// The public names, in enum order. The enum cannot carry dots, so this table is the one mapping.
constexpr std::array<std::pair<CauseClass, std::string_view>, 24> k_names = {{
    {CauseClass::library_missing_cudnn, "library_missing.cudnn"},
    {CauseClass::library_missing_cudnn_sublibrary, "library_missing.cudnn_sublibrary"},
    {CauseClass::library_missing_zlib, "library_missing.zlib"},
    {CauseClass::library_missing_cuda_runtime, "library_missing.cuda_runtime"},
    {CauseClass::library_missing_msvc_runtime, "library_missing.msvc_runtime"},
    {CauseClass::version_mismatch_cudnn, "version_mismatch.cudnn"},
    {CauseClass::version_mismatch_cuda, "version_mismatch.cuda"},
    {CauseClass::driver_too_old, "driver.too_old"},
    {CauseClass::driver_not_loaded, "driver.not_loaded"},
    {CauseClass::driver_conflict, "driver.conflict"},
    {CauseClass::gpu_arch_unsupported, "gpu.arch_unsupported"},
    {CauseClass::gpu_out_of_memory, "gpu.out_of_memory"},
    {CauseClass::host_out_of_memory, "host.out_of_memory"},
    {CauseClass::framework_no_gpu_support, "framework.no_gpu_support"},
    {CauseClass::environment_conflict, "environment.conflict"},
    {CauseClass::file_corrupt, "file.corrupt"},
    {CauseClass::permission_denied, "permission.denied"},
    {CauseClass::security_risk, "security.risk"},
    {CauseClass::hardware_fault, "hardware.fault"},
    {CauseClass::hardware_unstable, "hardware.unstable"},
    {CauseClass::os_tdr_or_bugcheck, "os.tdr_or_bugcheck"},
    {CauseClass::os_update, "os.update"},
    {CauseClass::application_error, "application.error"},
    {CauseClass::other, "other"},
}};

constexpr std::array<CauseClass, k_names.size()> make_all() {
  std::array<CauseClass, k_names.size()> out{};
  for (std::size_t i = 0; i < k_names.size(); ++i) {
    out[i] = k_names[i].first;
  }
  return out;
}

constexpr std::array<CauseClass, k_names.size()> k_all = make_all();

} // namespace

std::string_view to_string(CauseClass c) {
  for (const auto& [cls, name] : k_names) {
    if (cls == c) {
      return name;
    }
  }
  return "other";
}

std::optional<CauseClass> parse_cause_class(std::string_view text) {
  for (const auto& [cls, name] : k_names) {
    if (name == text) {
      return cls;
    }
  }
  return std::nullopt;
}

std::span<const CauseClass> all_cause_classes() {
  return k_all;
}

} // namespace doctor
