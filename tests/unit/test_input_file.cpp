// SPDX-License-Identifier: MIT
// The one open of the platform layer (platform/input_file.hpp) and the primitives built on it:
// what each says of a FIFO, a socket, a device and a directory, and that a resource limit of the
// doctor's own process is ErrorCode::resource, never "absent" or "not a regular file". Linux only
// (mkfifo, fork, setrlimit).
#include "support/temp_tree.hpp"

#include <doctor/platform/file.hpp>
#include <doctor/platform/hash.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/platform/positioned_file.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>

namespace doctor {
namespace {

namespace fs = std::filesystem;

// Every primitive that opens a file for reading, as the error it returns (or none).
std::vector<std::pair<std::string, std::optional<Error>>> open_all(const fs::path& path) {
  auto err = [](const auto& result) -> std::optional<Error> {
    if (result) {
      return std::nullopt;
    }
    return result.error();
  };
  return {{"InputFile", err(platform::InputFile::open(path))},
          {"read_file", err(platform::read_file(path, 1024))},
          {"MappedFile", err(platform::MappedFile::open(path))},
          {"PositionedFile", err(platform::PositionedFile::open(path))},
          {"hash_file", err(platform::hash_file(path, platform::HashAlgorithm::sha256))}};
}

void expect_refused(const fs::path& path, const std::string& says) {
  for (const auto& [name, error] : open_all(path)) {
    ASSERT_TRUE(error.has_value()) << name << " opened " << path;
    EXPECT_EQ(error->code, ErrorCode::not_regular) << name << ": " << error->message;
    EXPECT_EQ(error->message, path.string() + ": " + says) << name;
  }
}

TEST(input_file, fifo_is_refused_without_waiting_for_a_writer) {
  test::TempDir tmp;
  const fs::path fifo = tmp.path() / "os-release";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  expect_refused(fifo, "is a FIFO, not a regular file");
}

TEST(input_file, socket_directory_and_device_are_refused) {
  test::TempDir tmp;
  const fs::path sock = tmp.path() / "libx.so";
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  expect_refused(sock, "is a socket, not a regular file");
  ::close(s);
  expect_refused(tmp.path(), "is a directory, not a regular file");
  expect_refused("/dev/null", "is a character device, not a regular file");
}

TEST(input_file, named_device_opens_only_when_asked) {
  auto dev = platform::InputFile::open("/dev/null", platform::Accept::character_device);
  ASSERT_TRUE(dev) << dev.error().message;
  EXPECT_EQ(dev->stat().kind, platform::FileKind::character_device);
  char buffer[16];
  auto n = dev->read(buffer, sizeof(buffer));
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 0U);
}

TEST(input_file, regular_and_proc_files_are_read) {
  test::TempDir tmp;
  test::write_file(tmp.path() / "a.txt", "hello");
  auto text = platform::read_file(tmp.path() / "a.txt", 1024);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "hello");
  // /proc reports a size of 0 for its files; they are regular files and read whole.
  auto status = platform::read_file("/proc/self/status", 1 << 20);
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_NE(status->find("Name:"), std::string::npos);
  auto mapped = platform::MappedFile::open(tmp.path() / "a.txt");
  ASSERT_TRUE(mapped) << mapped.error().message;
  EXPECT_EQ(mapped->data(), "hello");
}

TEST(input_file, missing_and_unreadable_keep_their_codes) {
  test::TempDir tmp;
  auto missing = platform::InputFile::open(tmp.path() / "none");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  if (test::running_as_root()) {
    GTEST_SKIP() << "root reads a file of mode 000";
  }
  test::write_file(tmp.path() / "locked", "x");
  fs::permissions(tmp.path() / "locked", fs::perms::none);
  auto locked = platform::MappedFile::open(tmp.path() / "locked");
  ASSERT_FALSE(locked);
  EXPECT_EQ(locked.error().code, ErrorCode::permission_denied);
}

// Runs `fn` in a forked child (which may lower its own limits) and returns the ErrorCode it
// reports through a pipe, or -1 when `fn` succeeded, -2 when the child died.
int in_child(const std::function<int()>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) {
    return -3;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const int code = fn();
    (void)!::write(fds[1], &code, sizeof(code));
    ::_exit(0);
  }
  ::close(fds[1]);
  int code = -2;
  if (::read(fds[0], &code, sizeof(code)) != static_cast<ssize_t>(sizeof(code))) {
    code = -2;
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return code;
}

template<typename Result>
int code_of(const Result& r) {
  return r ? -1 : static_cast<int>(r.error().code);
}

// The address space this process has mapped now, from /proc/self/status (VmSize, in KiB).
rlim_t mapped_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmSize:", 0) == 0) {
      return static_cast<rlim_t>(std::stoull(line.substr(7))) * 1024;
    }
  }
  return 0;
}

// RLIMIT_AS just above what the child has mapped (AddressSanitizer's shadow included, so this
// runs in the sanitized build too), then a mapping of a 1 GiB sparse file: mmap fails with
// ENOMEM, which must be a resource error.
TEST(input_file_resources, mapping_under_rlimit_as) {
  test::TempDir tmp;
  const fs::path big = tmp.path() / "libbig.so";
  { std::ofstream out(big); }
  fs::resize_file(big, std::uint64_t{1} << 30U);
  const int code = in_child([&] {
    const rlim_t now = mapped_bytes();
    if (now == 0) {
      return -4;
    }
    const rlimit lim{now + (rlim_t{64} << 20U), now + (rlim_t{64} << 20U)};
    if (::setrlimit(RLIMIT_AS, &lim) != 0) {
      return -5;
    }
    return code_of(platform::MappedFile::open(big));
  });
  EXPECT_EQ(code, static_cast<int>(ErrorCode::resource))
      << "child reported " << code << " (-1: the mapping succeeded, -2: the child died)";
}

// No descriptor left (EMFILE): every primitive says resource, not absent.
TEST(input_file_resources, opening_with_no_descriptor_left) {
  test::TempDir tmp;
  test::write_file(tmp.path() / "libx.so", "x");
  const fs::path file = tmp.path() / "libx.so";
  for (int which = 0; which < 3; ++which) {
    const int code = in_child([&] {
      // UBSan checks the dynamic type of an object before a virtual call (std::error_category's
      // equivalent(), in the comparisons that classify the error) and probes the memory for it
      // through a pipe: with no descriptor left the probe fails and UBSan reports a bad call.
      // The calls made once here, before the descriptors run out, are remembered as checked.
      const std::error_code warm(ENOENT, std::system_category());
      if (warm == std::errc::too_many_files_open
          || !(warm == std::errc::no_such_file_or_directory)) {
        return -6;
      }
      const rlimit lim{32, 32};
      if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) {
        return -5;
      }
      while (::open("/dev/null", O_RDONLY) >= 0) {
      }
      return which == 0   ? code_of(platform::InputFile::open(file))
             : which == 1 ? code_of(platform::MappedFile::open(file))
                          : code_of(platform::read_file(file, 16));
    });
    EXPECT_EQ(code, static_cast<int>(ErrorCode::resource)) << "primitive " << which;
  }
}

} // namespace
} // namespace doctor
