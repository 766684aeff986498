// SPDX-License-Identifier: MIT
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/kmsg.hpp>
#include <doctor/platform/linux/fd.hpp>

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace doctor::platform {

namespace {

constexpr std::size_t k_record_buffer =
    std::size_t{16} * 1024; // a record is at most 8 KiB (printk)
constexpr std::size_t k_max_total = std::size_t{64} * 1024 * 1024;
constexpr std::size_t k_max_reads =
    std::size_t{4} * 1024 * 1024; // records plus EPIPE/EINTR retries

} // namespace

Expected<std::string> read_kmsg() {
  // Opened without blocking (InputFile opens a named device with O_NONBLOCK): a read at the end
  // of the buffer returns EAGAIN instead of waiting for the next message.
  auto opened = InputFile::open("/dev/kmsg", Accept::character_device);
  if (!opened) {
    switch (opened.error().code) {
    case ErrorCode::permission_denied:
      return make_error(ErrorCode::permission_denied,
                        "/dev/kmsg: permission denied (kernel.dmesg_restrict needs CAP_SYSLOG)");
    case ErrorCode::not_found:
      return make_error(ErrorCode::not_found, "/dev/kmsg: not present");
    default:
      return tl::unexpected(opened.error());
    }
  }
  const Fd fd(static_cast<int>(opened->release()));
  std::string out;
  std::array<char, k_record_buffer> buffer{};
  for (std::size_t reads = 0; reads < k_max_reads && out.size() < k_max_total; ++reads) {
    const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n > 0) {
      out.append(buffer.data(), static_cast<std::size_t>(n));
      if (out.back() != '\n') {
        out += '\n';
      }
      continue;
    }
    if (n == 0) {
      break;
    }
    const int err = errno;
    if (err == EPIPE || err == EINTR) {
      continue; // EPIPE: the record we were at was overwritten; the next read goes on
    }
    if (err == EAGAIN) {
      break;
    }
    if ((err == EPERM || err == EACCES) && out.empty()) {
      // Some kernels let open() succeed and refuse read() under dmesg_restrict.
      return make_error(ErrorCode::permission_denied,
                        "/dev/kmsg: permission denied (kernel.dmesg_restrict needs CAP_SYSLOG)");
    }
    return make_error(ErrorCode::io, std::string("/dev/kmsg: ") + std::strerror(err));
  }
  return out;
}

} // namespace doctor::platform
