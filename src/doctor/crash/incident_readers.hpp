// SPDX-License-Identifier: MIT
// Private to crash/: the readers of the observation-kind table (observation_kinds.cpp), one per
// kind (kernel_incidents.cpp, windows_incidents.cpp), the Xid lookups and finding parameters some
// kinds have, and the helpers they share (incident_build.cpp). Each reader fills what only its
// kind knows into an incident that make_incident has started.
#pragma once

#include <doctor/crash/observation_kinds.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::crash::readers {

// Shared by the readers (incident_build.cpp).

// Returns field `name` of `obs`, or "".
std::string get(const Observation& obs, std::string_view name);

// "GPU 0000:41:00 (NVIDIA A100)" when the machine names the GPU, "GPU 0000:41:00", or "a GPU".
std::string gpu_subject(const std::string& pci, const MachineContext& machine);

// Puts the catalogue's fixes for the code (`specific`) first, then `general`, then the finding's
// own fixes that are in `inc` already, up to the incident's limit, without repeats.
void merge_fixes(Incident& inc, const std::vector<std::string>& specific, std::vector<Fix> general);

// Appends `value` as evidence read at `obs`'s origin.
void add_evidence(Incident& inc, const Observation& obs, std::string value);

// True when a severity text says the error was not corrected ("Uncorrected (Fatal)", "Fatal",
// "Uncorrected (Non-Fatal)"); false for "Corrected", "Non-fatal", "Nonfatal".
bool fatal_text(std::string_view text);

// The number of a code written in decimal or "0x…" hexadecimal ("0x116", "79"); nullopt if it is
// none or does not fit 32 bits.
std::optional<std::uint32_t> code_number(std::string_view code);

// Sets the verdict of a hardware error report: fatal ones are faults (error), the others a sign
// of unstable hardware (warning); the subject is the device named, or this machine.
void hardware_verdict(Incident& inc, const Observation& obs, bool fatal);

// The Xid row of an observation: by its code (an Xid line), the row that reports the lost GPU (a
// "fallen off the bus" message without an Xid line), or the row whose Windows form the nvlddmkm
// event is (nvlddmkm 13).
const kb::XidEntry* xid_by_code(const Observation& obs, const kb::CrashCatalog& catalog);
const kb::XidEntry* xid_of_lost_gpu(const Observation& obs, const kb::CrashCatalog& catalog);
const kb::XidEntry* xid_of_nvlddmkm_event(const Observation& obs, const kb::CrashCatalog& catalog);

// driver.nouveau_bound's parameters: the GPU and what happened to it.
void nouveau_params(FindingDraft& draft, const Observation& obs);

// Linux kernel log.
void read_xid(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_sxid(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_gpu_lost(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_gpu_init_failed(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_driver_mismatch(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_driver_conflict(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_gsp_error(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_mce(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_edac(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_pcie_aer(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_oom_kill(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_kernel_oops(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_kernel_panic(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_lockup(Incident& inc, const Observation& obs, const ReadContext& ctx);

// Windows dumps and events (app_crash also from the Linux kernel's segfault lines).
void read_bugcheck(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_tdr(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_nvidia_event(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_power_loss(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_unexpected_shutdown(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_whea(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_app_crash(Incident& inc, const Observation& obs, const ReadContext& ctx);
void read_app_hang(Incident& inc, const Observation& obs, const ReadContext& ctx);

} // namespace doctor::crash::readers
