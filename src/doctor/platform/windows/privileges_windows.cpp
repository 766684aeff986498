// SPDX-License-Identifier: MIT
#include <doctor/platform/privileges.hpp>

#include <fmt/format.h>

#include <psapi.h>
#include <windows.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace doctor::platform {

namespace {

// "Bypass traverse checking": every path lookup through a folder the user cannot list relies on
// it, and it grants nothing else. Every other privilege is removed.
constexpr const wchar_t* k_kept_privilege = L"SeChangeNotifyPrivilege";

std::string error_text(const char* what) {
  return fmt::format("{} failed (error {})", what, GetLastError());
}

// The privileges of the process token, or an empty list if they cannot be read.
std::vector<LUID_AND_ATTRIBUTES> token_privileges(HANDLE token) {
  DWORD size = 0;
  GetTokenInformation(token, TokenPrivileges, nullptr, 0, &size);
  if (size < sizeof(TOKEN_PRIVILEGES)) {
    return {};
  }
  std::vector<unsigned char> buffer(size);
  if (GetTokenInformation(token, TokenPrivileges, buffer.data(), size, &size) == 0) {
    return {};
  }
  const auto* list = reinterpret_cast<const TOKEN_PRIVILEGES*>(buffer.data());
  return {list->Privileges, list->Privileges + list->PrivilegeCount};
}

bool same(const LUID& a, const LUID& b) {
  return a.LowPart == b.LowPart && a.HighPart == b.HighPart;
}

// Removes every privilege of the process token except k_kept_privilege. A removed privilege
// (SE_PRIVILEGE_REMOVED) is gone from the token for good: no later AdjustTokenPrivileges in vendor
// code can enable it again. Returns true only if the token, read back, holds no other privilege.
bool remove_privileges(std::vector<std::string>& notes) {
  HANDLE token = nullptr;
  if (OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &token) == 0) {
    notes.push_back("privileges kept: " + error_text("OpenProcessToken"));
    return false;
  }
  LUID kept{};
  const bool know_kept = LookupPrivilegeValueW(nullptr, k_kept_privilege, &kept) != 0;
  std::vector<LUID_AND_ATTRIBUTES> removed;
  for (const LUID_AND_ATTRIBUTES& p : token_privileges(token)) {
    if (!know_kept || !same(p.Luid, kept)) {
      removed.push_back({p.Luid, SE_PRIVILEGE_REMOVED});
    }
  }
  bool ok = true;
  if (!removed.empty()) {
    std::vector<unsigned char> buffer(sizeof(TOKEN_PRIVILEGES)
                                      + removed.size() * sizeof(LUID_AND_ATTRIBUTES));
    auto* request = reinterpret_cast<TOKEN_PRIVILEGES*>(buffer.data());
    request->PrivilegeCount = static_cast<DWORD>(removed.size());
    std::copy(removed.begin(), removed.end(), request->Privileges);
    // AdjustTokenPrivileges succeeds with ERROR_NOT_ALL_ASSIGNED when it did only part.
    SetLastError(ERROR_SUCCESS);
    if (AdjustTokenPrivileges(token, FALSE, request, 0, nullptr, nullptr) == 0
        || GetLastError() != ERROR_SUCCESS) {
      notes.push_back(error_text("removing the token's privileges"));
      ok = false;
    }
  }
  std::size_t left = 0;
  for (const LUID_AND_ATTRIBUTES& p : token_privileges(token)) {
    if (!know_kept || !same(p.Luid, kept)) {
      ++left;
    }
  }
  CloseHandle(token);
  if (left != 0) {
    notes.push_back(fmt::format("{} privilege(s) left in the token", left));
  }
  return ok && left == 0;
}

// Puts the process into a job of its own, nested in the one the parent started it in (Windows 8
// and later): a commit limit of what the process has committed now plus `budget` (the nearest
// thing to RLIMIT_AS: the private memory it can allocate), one process at most (vendor code
// cannot start programs), death instead of the error-reporting dialog on an unhandled exception,
// and no access to the clipboard, the desktops, the display settings, global atoms, other
// processes' windows or ExitWindows. Returns the commit limit read back from the job, 0 if none.
std::uint64_t enter_own_job(std::uint64_t budget, std::vector<std::string>& notes) {
  HANDLE job = CreateJobObjectW(nullptr, nullptr);
  if (job == nullptr) {
    notes.push_back("no job of its own: " + error_text("CreateJobObject"));
    return 0;
  }
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags =
      JOB_OBJECT_LIMIT_ACTIVE_PROCESS | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  limits.BasicLimitInformation.ActiveProcessLimit = 1;
  if (budget != 0) {
    PROCESS_MEMORY_COUNTERS counters{};
    counters.cb = sizeof counters;
    const std::uint64_t committed =
        K32GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof counters) != 0
            ? counters.PagefileUsage
            : 0;
    limits.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_MEMORY;
    limits.ProcessMemoryLimit = static_cast<SIZE_T>(committed + budget);
  }
  if (SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits)
      == 0) {
    notes.push_back("no limits on its job: " + error_text("SetInformationJobObject"));
  }
  JOBOBJECT_BASIC_UI_RESTRICTIONS ui{};
  ui.UIRestrictionsClass = JOB_OBJECT_UILIMIT_DESKTOP | JOB_OBJECT_UILIMIT_DISPLAYSETTINGS
                           | JOB_OBJECT_UILIMIT_EXITWINDOWS | JOB_OBJECT_UILIMIT_GLOBALATOMS
                           | JOB_OBJECT_UILIMIT_HANDLES | JOB_OBJECT_UILIMIT_READCLIPBOARD
                           | JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS
                           | JOB_OBJECT_UILIMIT_WRITECLIPBOARD;
  SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof ui);
  if (AssignProcessToJobObject(job, GetCurrentProcess()) == 0) {
    notes.push_back("not in a job of its own (no memory or process limit): "
                    + error_text("AssignProcessToJobObject"));
    CloseHandle(job);
    return 0;
  }
  // The job's handle stays open for the life of the process: the job holds the limits.
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION now{};
  if (QueryInformationJobObject(job, JobObjectExtendedLimitInformation, &now, sizeof now, nullptr)
      == 0) {
    notes.push_back("its job's limits cannot be read back: "
                    + error_text("QueryInformationJobObject"));
    return 0;
  }
  const DWORD flags = now.BasicLimitInformation.LimitFlags;
  if ((flags & JOB_OBJECT_LIMIT_ACTIVE_PROCESS) == 0
      || now.BasicLimitInformation.ActiveProcessLimit != 1) {
    notes.emplace_back("may start processes (the job's process limit did not hold)");
  }
  if ((flags & JOB_OBJECT_LIMIT_PROCESS_MEMORY) == 0) {
    if (budget != 0) {
      notes.emplace_back("no memory limit (the job's commit limit did not hold)");
    }
    return 0;
  }
  return now.ProcessMemoryLimit;
}

} // namespace

// The Windows counterpart of the Linux confinement, in the order that matters: error dialogs off
// first (a vendor library that fails to load a dependency or crashes must end the child, not wait
// for a click until the time limit), then the DLL search narrowed to System32 (a planted nvml.dll
// next to cudnn-doctor.exe, in the current folder or on PATH is never loaded), then the job, then
// the privileges. The parent needs no check here: the job the parent started the child in is
// killed when the parent's handle closes, which includes the parent's death.
//
// Not done, and said in the notes: the user, its groups and the integrity level stay the doctor's
// (an elevated doctor's child can still write where administrators may). NVML opens the driver's
// device objects, and whether it still can with a restricted token or at low integrity has not
// been measured on a machine with an NVIDIA driver.
Expected<Confinement> confine_child(const ConfinementRequest& request) {
  Confinement c;
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
  if (SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_SYSTEM32) == 0) {
    c.notes.push_back("DLL search not narrowed to System32: "
                      + error_text("SetDefaultDllDirectories"));
  }
  c.address_space_limit = enter_own_job(request.address_space_budget, c.notes);
  c.capabilities_dropped = remove_privileges(c.notes);
  c.notes.emplace_back(
      "Windows: the memory limit is a commit limit (job object); the user, groups and integrity "
      "level stay the doctor's");
  return c;
}

} // namespace doctor::platform
