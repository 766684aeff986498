// SPDX-License-Identifier: MIT
#include <doctor/platform/process.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

#include <windows.h>

#include <algorithm>
#include <string>
#include <string_view>

namespace doctor::platform {

namespace {

// Quotes one argument the way CommandLineToArgvW splits it back.
std::wstring quote_argument(const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
    return arg;
  }
  std::wstring out = L"\"";
  std::size_t backslashes = 0;
  for (wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    if (c == L'"') {
      out.append(backslashes * 2 + 1, L'\\');
    } else {
      out.append(backslashes, L'\\');
    }
    backslashes = 0;
    out += c;
  }
  out.append(backslashes * 2, L'\\');
  out += L'"';
  return out;
}

// Appends what pipe `from` holds now to `into` without blocking, keeping at most the last
// `max` bytes (plus a cut UTF-8 sequence's worth); false once every writer closed its end.
bool drain_available(HANDLE from, std::string& into, std::size_t max) {
  char buffer[4096];
  for (;;) {
    DWORD available = 0;
    if (PeekNamedPipe(from, nullptr, 0, nullptr, &available, nullptr) == 0) {
      return false;
    }
    if (available == 0) {
      return true;
    }
    DWORD got = 0;
    const DWORD want = std::min<DWORD>(available, static_cast<DWORD>(sizeof buffer));
    if (ReadFile(from, buffer, want, &got, nullptr) == 0 || got == 0) {
      return false;
    }
    into.append(buffer, got);
    if (into.size() > 2 * max + 8) {
      into = tail_of(into, max + 4);
    }
  }
}

} // namespace

// The child's stdout is an anonymous pipe; the parent reads it on this thread with
// PeekNamedPipe polling so that the time limit also covers a child that writes nothing and hangs.
// The child starts suspended inside a job object that kills every process in it when the job's
// last handle closes: once the answer is in (the end-of-answer byte, or the child's exit), on
// the time limit, or when the doctor itself dies, the child and all it started end together.
// Without a console (CREATE_NO_WINDOW) and in a process group of its own, the child cannot reach
// the doctor with GenerateConsoleCtrlEvent, Windows' counterpart of kill(0, …). Its standard
// error, when a tail of it is asked for, is a second pipe polled the same way, so a child that
// fills it cannot block on it.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv,
                                    const ProcessOptions& options) {
  if (argv.empty()) {
    return make_error(ErrorCode::invalid_argument, "run_process: empty argument list");
  }
  SECURITY_ATTRIBUTES sa{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE read_end = nullptr;
  HANDLE write_end = nullptr;
  if (CreatePipe(&read_end, &write_end, &sa, 0) == 0) {
    return make_error(ErrorCode::io, "CreatePipe failed");
  }
  SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
  HANDLE err_read = nullptr;
  HANDLE err_write = nullptr;
  if (options.max_error_tail > 0 && CreatePipe(&err_read, &err_write, &sa, 0) != 0) {
    SetHandleInformation(err_read, HANDLE_FLAG_INHERIT, 0);
  } else {
    err_read = nullptr;
    err_write = nullptr;
  }
  HANDLE nul = CreateFileW(L"NUL",
                           GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE,
                           &sa,
                           OPEN_EXISTING,
                           0,
                           nullptr);
  HANDLE job = CreateJobObjectW(nullptr, nullptr);
  if (job != nullptr) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  }

  std::wstring cmdline;
  for (const std::string& a : argv) {
    if (!cmdline.empty()) {
      cmdline += L' ';
    }
    cmdline += quote_argument(windows::widen(a));
  }
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = nul;
  si.hStdOutput = write_end;
  si.hStdError = err_write != nullptr ? err_write : nul;
  PROCESS_INFORMATION pi{};
  const std::wstring exe = windows::widen(argv[0]);
  const BOOL ok = CreateProcessW(exe.c_str(),
                                 cmdline.data(),
                                 nullptr,
                                 nullptr,
                                 TRUE,
                                 CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP | CREATE_SUSPENDED,
                                 nullptr,
                                 nullptr,
                                 &si,
                                 &pi);
  const DWORD spawn_error = GetLastError();
  CloseHandle(write_end);
  if (err_write != nullptr) {
    CloseHandle(err_write);
  }
  if (nul != INVALID_HANDLE_VALUE) {
    CloseHandle(nul);
  }
  if (ok == 0) {
    CloseHandle(read_end);
    if (err_read != nullptr) {
      CloseHandle(err_read);
    }
    if (job != nullptr) {
      CloseHandle(job);
    }
    return make_error(ErrorCode::not_found,
                      fmt::format("{}: {}", argv[0], windows::last_error_message(spawn_error)));
  }
  if (job != nullptr) {
    AssignProcessToJobObject(job, pi.hProcess);
  }
  ResumeThread(pi.hThread);

  ProcessResult result;
  const ULONGLONG deadline = GetTickCount64() + static_cast<ULONGLONG>(options.timeout.count());
  char buffer[8192];
  bool pipe_open = true;
  bool exited = false;
  std::string err;
  bool err_open = err_read != nullptr;
  while (!exited) {
    if (err_open) {
      err_open = drain_available(err_read, err, options.max_error_tail);
    }
    DWORD available = 0;
    if (pipe_open && !result.answered
        && PeekNamedPipe(read_end, nullptr, 0, nullptr, &available, nullptr) == 0) {
      pipe_open = false; // every writer closed its end
    }
    if (pipe_open && !result.answered && available > 0) {
      DWORD got = 0;
      if (ReadFile(read_end, buffer, sizeof buffer, &got, nullptr) == 0 || got == 0) {
        pipe_open = false;
      } else {
        append_answer(result, std::string_view(buffer, got), options);
      }
      continue;
    }
    if (GetTickCount64() >= deadline) {
      result.timed_out = true;
      break;
    }
    exited = WaitForSingleObject(pi.hProcess, 5) == WAIT_OBJECT_0;
  }
  // What the child wrote before it exited is still in the pipe; descendants may still hold it,
  // so read only what is there, up to the end of the answer.
  while (exited && pipe_open && !result.answered && GetTickCount64() < deadline) {
    DWORD available = 0;
    DWORD got = 0;
    if (PeekNamedPipe(read_end, nullptr, 0, nullptr, &available, nullptr) == 0 || available == 0
        || ReadFile(read_end, buffer, sizeof buffer, &got, nullptr) == 0 || got == 0) {
      break;
    }
    append_answer(result, std::string_view(buffer, got), options);
  }
  if (err_open) {
    drain_available(err_read, err, options.max_error_tail);
  }
  result.err_tail = tail_of(err, options.max_error_tail);
  if (job != nullptr) {
    TerminateJobObject(job, 1);
  }
  if (result.timed_out) {
    TerminateProcess(pi.hProcess, 1);
  }
  WaitForSingleObject(pi.hProcess, 2000);
  DWORD code = 0;
  GetExitCodeProcess(pi.hProcess, &code);
  if (!result.timed_out) {
    // Exit codes with the 0xC0000000 bits set are NTSTATUS exceptions (0xC0000005 access
    // violation): the Windows counterpart of a signal.
    if ((code & 0xC0000000U) == 0xC0000000U) {
      result.signaled = true;
      result.signal = static_cast<int>(code);
    } else {
      result.exited = true;
      result.exit_code = static_cast<int>(code);
    }
  }
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  CloseHandle(read_end);
  if (err_read != nullptr) {
    CloseHandle(err_read);
  }
  if (job != nullptr) {
    CloseHandle(job);
  }
  return result;
}

Expected<std::filesystem::path> current_executable() {
  wchar_t buf[MAX_PATH * 2];
  const DWORD n = GetModuleFileNameW(nullptr, buf, MAX_PATH * 2);
  if (n == 0) {
    return make_error(ErrorCode::unsupported, "GetModuleFileNameW failed");
  }
  return std::filesystem::path(std::wstring(buf, n));
}

} // namespace doctor::platform
