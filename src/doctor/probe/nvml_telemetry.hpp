// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/dynlib.hpp>

#include <nlohmann/json.hpp>

#include <span>
#include <string_view>

namespace doctor::probe {

// One telemetry reading of a GPU: its name in the report and the NVML call that gives it.
struct TelemetryReading {
  std::string_view key;    // "clock_graphics_mhz"
  std::string_view symbol; // "nvmlDeviceGetClockInfo"
  int kind;                // how the call is made (nvml_telemetry.cpp)
  int arg;                 // the call's type argument (clock, temperature sensor, …), if any
  int arg2;                // a second one (the ECC counter type)
};

// Every reading, in report order. The collector range-checks each by key
// (collect/nvml_collector.cpp).
std::span<const TelemetryReading> telemetry_readings();

// Runs in the NVML child after nvmlInit_v2: asks `device` (an nvmlDevice_t) for every reading
// whose entry point `lib` exports and returns {key: value} of those that succeeded, as NVML gave
// them: clocks now, maximum and application clocks with their defaults (MHz), power draw, limit
// and default limit (mW), temperature and its slowdown and shutdown thresholds (C), the current
// clock-event (throttle) reasons, PCIe generation and width now and at most, the replay
// counter, persistence and compute mode, ECC mode and volatile error counts, retired pages
// pending, and the remapped rows (correctable, uncorrectable, pending, failed).
nlohmann::ordered_json nvml_telemetry(const platform::DynamicLibrary& lib, void* device);

} // namespace doctor::probe
