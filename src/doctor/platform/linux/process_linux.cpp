// SPDX-License-Identifier: MIT
#include <doctor/platform/linux/fd.hpp>
#include <doctor/platform/process.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

extern char** environ; // NOLINT(readability-identifier-naming): POSIX name

namespace doctor::platform {

namespace {

std::int64_t now_ms() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// The environment of the child: ours, with k_parent_pid_variable naming this process.
std::vector<std::string> child_environment() {
  std::vector<std::string> env;
  const std::string prefix = std::string(k_parent_pid_variable) + "=";
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with(prefix)) {
      env.emplace_back(*e);
    }
  }
  env.push_back(prefix + std::to_string(::getpid()));
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// A descriptor that becomes readable when `pid` exits (pidfd_open, Linux 5.3), or -1 where the
// kernel or a seccomp filter refuses it; the caller then polls in short slices instead.
Fd open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
#else
  (void)pid;
  return Fd();
#endif
}

// True once `pid` has exited; leaves it unreaped (WNOWAIT), so its pid, and the process group
// it leads, cannot be reused before killpg() below.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0
         && info.si_pid == pid;
}

// Reaps `pid` and then every process left in its process group (orphans the doctor, a child
// subreaper, inherited), waiting at most a short grace after SIGKILL: a process stuck in an
// uninterruptible driver call cannot die until the call returns, and the doctor must not hang
// on it. Returns false if `pid` itself could not be reaped in that time.
bool reap(pid_t pid, int& status) {
  constexpr std::int64_t k_grace_ms = 2000;
  const std::int64_t until = now_ms() + k_grace_ms;
  bool reaped = false;
  while (!reaped) {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    reaped = got == pid;
    if (got < 0 && errno != EINTR) {
      break;
    }
    if (!reaped && now_ms() >= until) {
      return false;
    }
    if (got == 0) {
      ::poll(nullptr, 0, 2);
    }
  }
  while (now_ms() < until) {
    const pid_t got = ::waitpid(-pid, nullptr, WNOHANG);
    if (got < 0 && errno != EINTR) {
      break; // ECHILD: nothing of the group is left
    }
    if (got == 0) {
      ::poll(nullptr, 0, 2); // members still dying
    }
  }
  return reaped;
}

// The file the child's standard error goes to when its tail is wanted: an anonymous memory file,
// read after the child is gone, so that a child that floods standard error never blocks on a full
// pipe and the parent has only one pipe to watch. -1 when it cannot be made (then /dev/null).
Fd error_file(const ProcessOptions& options) {
  if (options.max_error_tail == 0) {
    return Fd();
  }
  return Fd(::memfd_create("cudnn-doctor-child-stderr", MFD_CLOEXEC));
}

// The last options.max_error_tail bytes written to `file`.
std::string read_error_tail(const Fd& file, const ProcessOptions& options) {
  if (!file) {
    return {};
  }
  const off_t size = ::lseek(file.get(), 0, SEEK_END);
  if (size <= 0) {
    return {};
  }
  const auto want = static_cast<off_t>(std::min<std::size_t>(
      static_cast<std::size_t>(size), options.max_error_tail + 4)); // +4: a cut UTF-8 sequence
  std::string text(static_cast<std::size_t>(want), '\0');
  const ssize_t got = ::pread(file.get(), text.data(), text.size(), size - want);
  text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return tail_of(text, options.max_error_tail);
}

} // namespace

// The child gets /dev/null as stdin, stderr (or an anonymous memory file when its tail is
// wanted), a pipe as stdout, and a session of its own
// (POSIX_SPAWN_SETSID), so that neither kill(0, …) in vendor code reaches the doctor nor a
// grandchild it forks escapes the final kill; it has no controlling terminal either. The parent
// reads the pipe until the end-of-answer byte, EOF or the deadline, and waits for the child
// itself through a pidfd, never for EOF alone: a grandchild holding a copy of the pipe would
// otherwise keep it waiting until the deadline. Then it kills the whole session's process group
// with SIGKILL (a hung vendor call ignores anything gentler) and reaps everything in it: the
// doctor is a child subreaper, so grandchildren orphaned by the child's exit are its own
// children and are reaped here, not left running or as zombies.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv,
                                    const ProcessOptions& options) {
  if (argv.empty()) {
    return make_error(ErrorCode::invalid_argument, "run_process: empty argument list");
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); // idempotent; failure only leaves zombies to init
  int fds[2] = {-1, -1};
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return make_error(ErrorCode::io, fmt::format("pipe: {}", std::strerror(errno)));
  }
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
  const Fd err_file = error_file(options);
  if (err_file) {
    posix_spawn_file_actions_adddup2(&actions, err_file.get(), STDERR_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> arg_strings(argv);
  std::vector<std::string> env_strings = child_environment();
  const std::vector<char*> args = pointers(arg_strings);
  const std::vector<char*> env = pointers(env_strings);

  pid_t pid = 0;
  const int rc =
      ::posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  write_end.reset();
  if (rc != 0) {
    return make_error(ErrorCode::not_found, fmt::format("{}: {}", argv[0], std::strerror(rc)));
  }

  const Fd pidfd = open_pidfd(pid);
  constexpr int k_slice_ms = 50; // without a pidfd: how often to look whether the child exited
  ProcessResult result;
  const std::int64_t deadline = now_ms() + options.timeout.count();
  char buffer[8192];
  bool exited = false;
  while (!exited) {
    const std::int64_t left = deadline - now_ms();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    struct pollfd pfd[2] = {{-1, POLLIN, 0}, {pidfd.get(), POLLIN, 0}};
    if (read_end && !result.answered) {
      pfd[0].fd = read_end.get();
    }
    const int wait =
        pidfd ? static_cast<int>(left) : static_cast<int>(std::min<std::int64_t>(left, k_slice_ms));
    const int ready = ::poll(pfd, 2, wait);
    if (ready < 0 && errno != EINTR) {
      result.timed_out = true; // cannot wait any more: treat as out of time, kill below
      break;
    }
    if (ready > 0 && pfd[0].revents != 0) {
      const ssize_t got = ::read(read_end.get(), buffer, sizeof buffer);
      if (got > 0) {
        append_answer(result, std::string_view(buffer, static_cast<std::size_t>(got)), options);
      } else if (got == 0 || errno != EINTR) {
        read_end.reset(); // EOF: only the child's exit is left to wait for
      }
    }
    exited = has_exited(pid);
  }
  // What the child wrote just before it exited is still in the pipe; grandchildren may still
  // hold it, so read only what is there (non-blocking), up to the end of the answer.
  if (exited && read_end && !result.answered) {
    ::fcntl(read_end.get(), F_SETFL, O_NONBLOCK);
    ssize_t got = 0;
    while (now_ms() < deadline && (got = ::read(read_end.get(), buffer, sizeof buffer)) > 0
           && !append_answer(
               result, std::string_view(buffer, static_cast<std::size_t>(got)), options)) {
    }
  }
  ::kill(-pid, SIGKILL); // the child's session: the child (if alive) and every descendant in it
  int status = 0;
  const bool reaped = reap(pid, status);
  if (!result.timed_out && reaped) {
    if (WIFEXITED(status)) {
      result.exited = true;
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signaled = true;
      result.signal = WTERMSIG(status);
    }
  }
  result.err_tail = read_error_tail(err_file, options);
  return result;
}

Expected<std::filesystem::path> current_executable() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) {
    return make_error(ErrorCode::unsupported, "cannot read /proc/self/exe");
  }
  return std::filesystem::path(std::string(buf, static_cast<std::size_t>(n)));
}

} // namespace doctor::platform
