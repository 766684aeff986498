// SPDX-License-Identifier: MIT
#include <doctor/platform/linux/fd.hpp>
#include <doctor/platform/process.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

} // namespace

// The child gets /dev/null as stdin and stderr and a pipe as stdout. The parent reads the pipe
// with poll() until EOF or the deadline; on the deadline it kills the child with SIGKILL (a hung
// vendor call ignores anything gentler) and reaps it, so no zombie outlives the call.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv,
                                    std::chrono::milliseconds timeout,
                                    std::size_t max_output) {
  if (argv.empty()) {
    return make_error(ErrorCode::invalid_argument, "run_process: empty argument list");
  }
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
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str())); // NOLINT: posix_spawn's signature
  }
  args.push_back(nullptr);

  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  write_end.reset();
  if (rc != 0) {
    return make_error(ErrorCode::not_found, fmt::format("{}: {}", argv[0], std::strerror(rc)));
  }

  ProcessResult result;
  const std::int64_t deadline = now_ms() + timeout.count();
  char buffer[8192];
  while (true) {
    const std::int64_t left = deadline - now_ms();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    struct pollfd pfd {
      read_end.get(), POLLIN, 0
    };
    const int ready = ::poll(&pfd, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      result.timed_out = ready == 0;
      break;
    }
    const ssize_t got = ::read(read_end.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;
    }
    const auto n = static_cast<std::size_t>(got);
    if (result.out.size() < max_output) {
      result.out.append(buffer, std::min(n, max_output - result.out.size()));
    }
  }
  if (result.timed_out) {
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exited = true;
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signaled = true;
      result.signal = WTERMSIG(status);
    }
  }
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
