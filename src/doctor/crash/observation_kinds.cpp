// SPDX-License-Identifier: MIT
#include <doctor/crash/incident_readers.hpp>
#include <doctor/crash/observation_kinds.hpp>
#include <doctor/kb/finding_ids.hpp>

#include <array>
#include <cstdlib>

namespace doctor::crash {

namespace {

using namespace readers; // the table names its readers

constexpr std::int64_t k_crash_records = k_one_second * 60 * 30; // a dump, 1001 and 41 of one crash
constexpr std::int64_t k_tdr_records = 60 * k_one_second; // 4101, nvlddmkm 153, LiveKernelEvent

// One row per ObservationKind, in its order. The names and findings are append-only interfaces
// (the JSON "kind", findings.json ids).
constexpr std::array k_kinds = {
    KindInfo{.kind = ObservationKind::xid,
             .name = "xid",
             .finding = kb::ids::k_crash_gpu_driver_error,
             .seen = Seen::linux,
             .xid = xid_by_code,
             .read = read_xid},
    KindInfo{.kind = ObservationKind::sxid,
             .name = "sxid",
             .finding = kb::ids::k_crash_nvswitch_error,
             .seen = Seen::linux,
             .read = read_sxid},
    KindInfo{.kind = ObservationKind::gpu_lost,
             .name = "gpu_lost",
             .finding = kb::ids::k_log_gpu_fallen_off_bus,
             .seen = Seen::linux,
             .follows_xid = true,
             .xid = xid_of_lost_gpu,
             .read = read_gpu_lost},
    KindInfo{.kind = ObservationKind::gpu_init_failed,
             .name = "gpu_init_failed",
             .finding = kb::ids::k_log_gpu_init_failed,
             .seen = Seen::linux,
             .read = read_gpu_init_failed},
    KindInfo{.kind = ObservationKind::driver_mismatch,
             .name = "driver_mismatch",
             .finding = kb::ids::k_log_driver_library_mismatch,
             .seen = Seen::linux,
             .read = read_driver_mismatch},
    KindInfo{.kind = ObservationKind::driver_conflict,
             .name = "driver_conflict",
             .finding = kb::ids::k_driver_nouveau_bound,
             .seen = Seen::linux,
             .params = nouveau_params,
             .read = read_driver_conflict},
    KindInfo{.kind = ObservationKind::gsp_error,
             .name = "gsp_error",
             .finding = kb::ids::k_log_gsp_error,
             .seen = Seen::linux,
             .read = read_gsp_error},
    KindInfo{.kind = ObservationKind::mce,
             .name = "mce",
             .finding = kb::ids::k_log_hardware_error,
             .seen = Seen::linux,
             .read = read_mce},
    KindInfo{.kind = ObservationKind::edac,
             .name = "edac",
             .finding = kb::ids::k_log_hardware_error,
             .seen = Seen::linux,
             .read = read_edac},
    KindInfo{.kind = ObservationKind::pcie_aer,
             .name = "pcie_aer",
             .finding = kb::ids::k_log_hardware_error,
             .seen = Seen::linux,
             .read = read_pcie_aer},
    KindInfo{.kind = ObservationKind::oom_kill,
             .name = "oom_kill",
             .finding = kb::ids::k_log_host_out_of_memory,
             .seen = Seen::linux,
             .one_per_event = true,
             .read = read_oom_kill},
    KindInfo{.kind = ObservationKind::kernel_oops,
             .name = "kernel_oops",
             .finding = kb::ids::k_crash_kernel_crash,
             .seen = Seen::linux,
             .one_per_event = true,
             .read = read_kernel_oops},
    KindInfo{.kind = ObservationKind::kernel_panic,
             .name = "kernel_panic",
             .finding = kb::ids::k_crash_kernel_crash,
             .seen = Seen::linux,
             .one_per_event = true,
             .read = read_kernel_panic},
    KindInfo{.kind = ObservationKind::lockup,
             .name = "lockup",
             .finding = kb::ids::k_crash_kernel_crash,
             .seen = Seen::linux,
             .read = read_lockup},
    KindInfo{.kind = ObservationKind::bugcheck,
             .name = "bugcheck",
             .finding = kb::ids::k_log_bugcheck,
             .seen = Seen::windows,
             .one_per_event = true,
             .restart = true,
             .record_window_usec = k_crash_records,
             .records_share_code = true,
             .read = read_bugcheck},
    KindInfo{.kind = ObservationKind::tdr,
             .name = "tdr",
             .finding = kb::ids::k_log_display_tdr,
             .seen = Seen::windows,
             .record_window_usec = k_tdr_records,
             .gpu_timeout = true,
             .read = read_tdr},
    KindInfo{.kind = ObservationKind::nvidia_event,
             .name = "nvidia_event",
             .finding = kb::ids::k_crash_gpu_driver_error,
             .seen = Seen::windows,
             .xid = xid_of_nvlddmkm_event,
             .read = read_nvidia_event},
    KindInfo{.kind = ObservationKind::power_loss,
             .name = "power_loss",
             .finding = kb::ids::k_log_unexpected_power_loss,
             .seen = Seen::windows,
             .one_per_event = true,
             .restart = true,
             .read = read_power_loss},
    KindInfo{.kind = ObservationKind::unexpected_shutdown,
             .name = "unexpected_shutdown",
             .finding = kb::ids::k_log_unexpected_power_loss,
             .seen = Seen::windows,
             .one_per_event = true,
             .joins_restart = true,
             .read = read_unexpected_shutdown},
    KindInfo{.kind = ObservationKind::whea,
             .name = "whea",
             .finding = kb::ids::k_log_hardware_error,
             .seen = Seen::windows,
             .read = read_whea},
    KindInfo{.kind = ObservationKind::app_crash,
             .name = "app_crash",
             .finding = kb::ids::k_crash_app_crash,
             .seen = Seen::both,
             .one_per_event = true,
             .read = read_app_crash},
    KindInfo{.kind = ObservationKind::app_hang,
             .name = "app_hang",
             .finding = kb::ids::k_crash_app_hang,
             .seen = Seen::windows,
             .one_per_event = true,
             .read = read_app_hang},
};

// The rows are in the order of the enum, so a kind is its own index.
constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < k_kinds.size(); ++i) {
    if (static_cast<std::size_t>(k_kinds[i].kind) != i) {
      return false;
    }
  }
  return true;
}
static_assert(in_enum_order(), "k_kinds must list every ObservationKind in enum order");
static_assert(static_cast<std::size_t>(ObservationKind::app_hang) + 1 == k_kinds.size(),
              "every ObservationKind needs a row in k_kinds");

} // namespace

const KindInfo& kind_info(ObservationKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  if (i >= k_kinds.size()) {
    std::abort(); // not a value of the enum: memory corruption
  }
  return k_kinds[i];
}

std::span<const KindInfo> observation_kinds() {
  return k_kinds;
}

std::string_view to_string(ObservationKind kind) {
  return kind_info(kind).name;
}

} // namespace doctor::crash
