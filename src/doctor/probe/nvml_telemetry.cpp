// SPDX-License-Identifier: MIT
#include <doctor/probe/nvml_telemetry.hpp>

namespace doctor::probe {

namespace {

// How a reading's entry point is called (nvml.h, NVML_API_VERSION 11+). Every one returns
// nvmlReturn_t (0: success); enumerations and nvmlEnableState_t are C enums, read as unsigned.
enum Kind : int {
  k_uint,         // (nvmlDevice_t, unsigned int*)
  k_typed_uint,   // (nvmlDevice_t, type, unsigned int*)
  k_ulonglong,    // (nvmlDevice_t, unsigned long long*)
  k_first_of_two, // (nvmlDevice_t, unsigned int* current, unsigned int* pending): the first
  k_ecc_total,    // (nvmlDevice_t, errorType, counterType, unsigned long long*)
  k_remapped,     // (nvmlDevice_t, unsigned* corr, * unc, * pending, * failed)
};

constexpr int k_clock_graphics = 0; // NVML_CLOCK_GRAPHICS
constexpr int k_clock_memory = 2;   // NVML_CLOCK_MEM
constexpr int k_sensor_gpu = 0;     // NVML_TEMPERATURE_GPU
constexpr int k_threshold_shutdown = 0;
constexpr int k_threshold_slowdown = 1;
constexpr int k_corrected = 0;   // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int k_uncorrected = 1; // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int k_volatile = 0;    // NVML_VOLATILE_ECC

// The one list of readings. "remapped_rows" stands for its four values.
constexpr TelemetryReading k_readings[] = {
    {"clock_graphics_mhz", "nvmlDeviceGetClockInfo", k_typed_uint, k_clock_graphics, 0},
    {"clock_memory_mhz", "nvmlDeviceGetClockInfo", k_typed_uint, k_clock_memory, 0},
    {"clock_graphics_max_mhz", "nvmlDeviceGetMaxClockInfo", k_typed_uint, k_clock_graphics, 0},
    {"clock_memory_max_mhz", "nvmlDeviceGetMaxClockInfo", k_typed_uint, k_clock_memory, 0},
    {"app_clock_graphics_mhz", "nvmlDeviceGetApplicationsClock", k_typed_uint, k_clock_graphics, 0},
    {"app_clock_memory_mhz", "nvmlDeviceGetApplicationsClock", k_typed_uint, k_clock_memory, 0},
    {"app_clock_graphics_default_mhz",
     "nvmlDeviceGetDefaultApplicationsClock",
     k_typed_uint,
     k_clock_graphics,
     0},
    {"app_clock_memory_default_mhz",
     "nvmlDeviceGetDefaultApplicationsClock",
     k_typed_uint,
     k_clock_memory,
     0},
    {"power_draw_mw", "nvmlDeviceGetPowerUsage", k_uint, 0, 0},
    {"power_limit_mw", "nvmlDeviceGetEnforcedPowerLimit", k_uint, 0, 0},
    {"power_limit_default_mw", "nvmlDeviceGetPowerManagementDefaultLimit", k_uint, 0, 0},
    {"temperature_c", "nvmlDeviceGetTemperature", k_typed_uint, k_sensor_gpu, 0},
    {"temperature_slowdown_c",
     "nvmlDeviceGetTemperatureThreshold",
     k_typed_uint,
     k_threshold_slowdown,
     0},
    {"temperature_shutdown_c",
     "nvmlDeviceGetTemperatureThreshold",
     k_typed_uint,
     k_threshold_shutdown,
     0},
    {"clock_event_reasons", "nvmlDeviceGetCurrentClocksThrottleReasons", k_ulonglong, 0, 0},
    {"pcie_generation", "nvmlDeviceGetCurrPcieLinkGeneration", k_uint, 0, 0},
    {"pcie_generation_max", "nvmlDeviceGetMaxPcieLinkGeneration", k_uint, 0, 0},
    {"pcie_width", "nvmlDeviceGetCurrPcieLinkWidth", k_uint, 0, 0},
    {"pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth", k_uint, 0, 0},
    {"pcie_replay_count", "nvmlDeviceGetPcieReplayCounter", k_uint, 0, 0},
    {"memory_bus_width_bits", "nvmlDeviceGetMemoryBusWidth", k_uint, 0, 0}, // stress's peak
    {"persistence_mode", "nvmlDeviceGetPersistenceMode", k_uint, 0, 0},
    {"compute_mode", "nvmlDeviceGetComputeMode", k_uint, 0, 0},
    {"ecc_mode", "nvmlDeviceGetEccMode", k_first_of_two, 0, 0},
    {"ecc_corrected_volatile", "nvmlDeviceGetTotalEccErrors", k_ecc_total, k_corrected, k_volatile},
    {"ecc_uncorrected_volatile",
     "nvmlDeviceGetTotalEccErrors",
     k_ecc_total,
     k_uncorrected,
     k_volatile},
    {"retired_pages_pending", "nvmlDeviceGetRetiredPagesPendingStatus", k_uint, 0, 0},
    {"remapped_rows", "nvmlDeviceGetRemappedRows", k_remapped, 0, 0},
};

using Dev = void*;
constexpr int k_ok = 0;

} // namespace

std::span<const TelemetryReading> telemetry_readings() {
  return k_readings;
}

nlohmann::ordered_json nvml_telemetry(const platform::DynamicLibrary& lib, void* device) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const TelemetryReading& r : k_readings) {
    void* p = lib.symbol(std::string(r.symbol).c_str());
    if (p == nullptr) {
      continue;
    }
    unsigned u = 0;
    unsigned u2 = 0;
    unsigned long long ull = 0;
    switch (r.kind) {
    case k_uint:
      if (reinterpret_cast<int (*)(Dev, unsigned*)>(p)(device, &u) == k_ok) {
        out[std::string(r.key)] = u;
      }
      break;
    case k_typed_uint:
      if (reinterpret_cast<int (*)(Dev, int, unsigned*)>(p)(device, r.arg, &u) == k_ok) {
        out[std::string(r.key)] = u;
      }
      break;
    case k_ulonglong:
      if (reinterpret_cast<int (*)(Dev, unsigned long long*)>(p)(device, &ull) == k_ok) {
        out[std::string(r.key)] = ull;
      }
      break;
    case k_first_of_two:
      if (reinterpret_cast<int (*)(Dev, unsigned*, unsigned*)>(p)(device, &u, &u2) == k_ok) {
        out[std::string(r.key)] = u;
      }
      break;
    case k_ecc_total:
      if (reinterpret_cast<int (*)(Dev, int, int, unsigned long long*)>(p)(
              device, r.arg, r.arg2, &ull)
          == k_ok) {
        out[std::string(r.key)] = ull;
      }
      break;
    case k_remapped: {
      unsigned v[4] = {0, 0, 0, 0};
      if (reinterpret_cast<int (*)(Dev, unsigned*, unsigned*, unsigned*, unsigned*)>(p)(
              device, &v[0], &v[1], &v[2], &v[3])
          == k_ok) {
        out["remapped_rows_correctable"] = v[0];
        out["remapped_rows_uncorrectable"] = v[1];
        out["remapped_rows_pending"] = v[2];
        out["remapped_rows_failure"] = v[3];
      }
      break;
    }
    default:
      break;
    }
  }
  return out;
}

} // namespace doctor::probe
