// SPDX-License-Identifier: MIT
// The crash catalogues (data/kb/xid.json, data/kb/bugchecks.json): what an NVIDIA Xid, a Windows
// stop code, a user-mode exception code or a crashing module's name means, and what to do about
// it. Parsed and validated here; the crash analysis looks codes up, it keeps no texts of its own.
#pragma once

#include <doctor/model/cause_class.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::kb {

// One NVIDIA Xid code, with both of NVIDIA's classifications: the Xid Catalog's resolution buckets
// (R565+, data-centre GPUs) and the legacy listing's possible causes (r555, every GPU).
struct XidEntry {
  unsigned code = 0;
  std::string name;        // catalogue mnemonic ("GR_EXCEPTION"); LEGACY_… for legacy-only codes
  std::string description; // NVIDIA's legacy description ("Graphics Engine Exception")
  std::string category; // application, driver, memory, bus_power, thermal, nvlink, gsp, firmware,
                        // informational, video
  CauseClass cause_class = CauseClass::other;
  bool secondary = false;           // 43, 45: a consequence of another Xid when one is near
  std::string immediate_action;     // catalogue bucket ("RESTART_APP"); empty if not catalogued
  std::string investigatory_action; // catalogue bucket ("WORKFLOW_XID_13"); may be empty
  std::vector<std::string> legacy_causes; // HW, DRV, APP, SYSMEM, BUS, THERM, FB
  std::string meaning;                    // one or two sentences for the user
  std::vector<std::string> fixes;         // ordered next steps, commands in backticks
  std::string source;
  // The findings.json row whose message and fixes an incident of this Xid takes: the row's own
  // "finding" (79: log.gpu_fallen_off_bus), else its category's (xid.json "category_findings").
  std::string finding;
  unsigned nvlddmkm_event = 0; // the nvlddmkm System event id that is this Xid on Windows; 0 none

  bool operator==(const XidEntry&) const = default;
};

// The finding an Xid category stands for (xid.json "category_findings").
struct XidCategoryFinding {
  std::string category; // application, memory, …
  std::string finding;  // log.gpu_app_fault
  std::string source;

  bool operator==(const XidCategoryFinding&) const = default;
};

// One Windows stop code, as written in a dump header or a BugCheck event.
struct BugCheckEntry {
  std::uint32_t code = 0; // without the 0x10000000 extended-parameter flag
  std::string name;       // "VIDEO_TDR_FAILURE"
  std::string meaning;
  std::vector<std::string> params; // what parameters 1.. hold (at most 4)
  unsigned address_param = 0;      // 1..4: the parameter to resolve against the driver list; 0 none
  std::string points_at;           // gpu_driver, driver, hardware, power, live_dump, manual, other
  CauseClass cause_class = CauseClass::os_tdr_or_bugcheck;
  std::vector<std::string> fixes;
  std::string source;

  bool operator==(const BugCheckEntry&) const = default;
};

// One user-mode exception code (an NTSTATUS or a language runtime's code).
struct ExceptionCodeEntry {
  std::uint32_t code = 0; // 0xC0000005
  std::string name;       // "STATUS_ACCESS_VIOLATION"
  std::string meaning;
  CauseClass cause_class = CauseClass::application_error;
  std::vector<std::string> fixes;
  std::string source;

  bool operator==(const ExceptionCodeEntry&) const = default;
};

// The component a crashing module's file belongs to.
struct CrashModuleEntry {
  std::string pattern;   // lower-case wildcard over a file name: "cudnn*64_*.dll", "nvlddmkm.sys"
  std::string component; // "cuDNN", "NVIDIA display driver (kernel)"
  std::string kind;      // "user" or "kernel"
  bool gpu = false;      // part of a GPU stack (driver, CUDA library, framework's CUDA module)
  std::string note;      // may be empty
  std::string source;

  bool operator==(const CrashModuleEntry&) const = default;
};

// Returns `code` without the 0x10000000 flag that marks a stop code with extended parameters
// (0x1000007E -> 0x7E). Codes whose top nibble is not 1 (0xDEADDEAD) are returned unchanged.
std::uint32_t mask_bugcheck_code(std::uint32_t code);

// The loaded catalogues. Empty when their files are absent from an override set.
class CrashCatalog {
public:
  bool operator==(const CrashCatalog&) const = default;

  CrashCatalog() = default;
  CrashCatalog(std::vector<XidEntry> xids,
               std::vector<BugCheckEntry> bugchecks,
               std::vector<ExceptionCodeEntry> exceptions,
               std::vector<CrashModuleEntry> modules,
               std::vector<XidCategoryFinding> xid_categories = {});

  // Returns the row of Xid `code`, or nullptr.
  const XidEntry* xid(unsigned code) const;

  // Returns the first Xid row whose finding is `finding` (log.gpu_fallen_off_bus: Xid 79), or
  // nullptr.
  const XidEntry* xid_with_finding(std::string_view finding) const;

  // Returns the Xid row whose Windows form is nvlddmkm event `event_id` (13: Xid 13), or nullptr.
  const XidEntry* xid_for_nvlddmkm_event(std::uint32_t event_id) const;

  // Returns the row of stop code `code`, or nullptr. An unknown code with the extended-parameter
  // flag (0x1000007E) is looked up masked (0x7E).
  const BugCheckEntry* bugcheck(std::uint32_t code) const;

  // Returns the row of exception code `code`, or nullptr.
  const ExceptionCodeEntry* exception(std::uint32_t code) const;

  // Returns the first module row whose pattern matches `file_name` (a bare file name; any
  // directory part is ignored), case-insensitively, or nullptr.
  const CrashModuleEntry* module(std::string_view file_name) const;

  const std::vector<XidEntry>& xids() const { return m_xids; }
  const std::vector<XidCategoryFinding>& xid_categories() const { return m_xid_categories; }
  const std::vector<BugCheckEntry>& bugchecks() const { return m_bugchecks; }
  const std::vector<ExceptionCodeEntry>& exceptions() const { return m_exceptions; }
  const std::vector<CrashModuleEntry>& modules() const { return m_modules; }

  bool empty() const {
    return m_xids.empty() && m_bugchecks.empty() && m_exceptions.empty() && m_modules.empty();
  }

private:
  std::vector<XidEntry> m_xids;
  std::vector<BugCheckEntry> m_bugchecks;
  std::vector<ExceptionCodeEntry> m_exceptions;
  std::vector<CrashModuleEntry> m_modules;
  std::vector<XidCategoryFinding> m_xid_categories;
};

// Parses xid.json (kind "xid") and bugchecks.json (kind "bugchecks"); an empty text stands for an
// absent file and contributes no rows. Unknown fields, duplicate codes, unknown cause classes,
// categories, legacy causes or points_at values, an address_param above 4 or beyond the listed
// params, more than 4 params, empty patterns and rows without "source" or "fixes" are errors
// naming the file, the row and the field ("xid.json: xids[12] (13): missing field \"source\"").
// So are a category that "category_findings" lists twice or not at all, and an nvlddmkm_event
// two Xid rows claim. Whether the findings named exist is the knowledge base's check.
Expected<CrashCatalog> parse_crash_catalog(std::string_view xid_json,
                                           std::string_view bugchecks_json,
                                           const std::string& xid_file = "xid.json",
                                           const std::string& bugchecks_file = "bugchecks.json");

} // namespace doctor::kb
