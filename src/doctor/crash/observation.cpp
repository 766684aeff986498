// SPDX-License-Identifier: MIT
#include <doctor/crash/observation.hpp>

namespace doctor::crash {

std::string_view to_string(ObservationKind kind) {
  switch (kind) {
  case ObservationKind::xid:
    return "xid";
  case ObservationKind::sxid:
    return "sxid";
  case ObservationKind::gpu_lost:
    return "gpu_lost";
  case ObservationKind::gpu_init_failed:
    return "gpu_init_failed";
  case ObservationKind::driver_mismatch:
    return "driver_mismatch";
  case ObservationKind::driver_conflict:
    return "driver_conflict";
  case ObservationKind::gsp_error:
    return "gsp_error";
  case ObservationKind::mce:
    return "mce";
  case ObservationKind::edac:
    return "edac";
  case ObservationKind::pcie_aer:
    return "pcie_aer";
  case ObservationKind::oom_kill:
    return "oom_kill";
  case ObservationKind::kernel_oops:
    return "kernel_oops";
  case ObservationKind::kernel_panic:
    return "kernel_panic";
  case ObservationKind::lockup:
    return "lockup";
  case ObservationKind::bugcheck:
    return "bugcheck";
  case ObservationKind::tdr:
    return "tdr";
  case ObservationKind::nvidia_event:
    return "nvidia_event";
  case ObservationKind::power_loss:
    return "power_loss";
  case ObservationKind::unexpected_shutdown:
    return "unexpected_shutdown";
  case ObservationKind::whea:
    return "whea";
  case ObservationKind::app_crash:
    return "app_crash";
  case ObservationKind::app_hang:
    return "app_hang";
  }
  return "unknown";
}

} // namespace doctor::crash
