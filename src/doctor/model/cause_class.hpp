// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace doctor {

// The fixed list of root-cause classes every finding and every incident names. Users and programs
// rely on these names: append only, never rename or reuse.
enum class CauseClass {
  library_missing_cudnn,
  library_missing_cudnn_sublibrary,
  library_missing_zlib,
  library_missing_cuda_runtime,
  library_missing_msvc_runtime,
  version_mismatch_cudnn,
  version_mismatch_cuda,
  driver_too_old,
  driver_not_loaded,
  driver_conflict,
  gpu_arch_unsupported,
  gpu_out_of_memory,
  host_out_of_memory,
  framework_no_gpu_support,
  environment_conflict,
  file_corrupt,
  permission_denied,
  security_risk,
  hardware_fault,
  hardware_unstable,
  os_tdr_or_bugcheck,
  os_update,
  application_error,
  other,
};

// Returns the dotted public name ("library_missing.cudnn").
std::string_view to_string(CauseClass c);

// Parses a dotted public name; nullopt for anything not in the list.
std::optional<CauseClass> parse_cause_class(std::string_view text);

// Every cause class, in declaration order.
std::span<const CauseClass> all_cause_classes();

} // namespace doctor
