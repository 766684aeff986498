// SPDX-License-Identifier: MIT
#include <doctor/platform/windows_system.hpp>

// A Linux host has none of the Win32 answers; the Windows collectors then say why a fact is
// unknown (an examined Windows disk is read from its files and hives instead).
namespace doctor::platform {

namespace {

Error unsupported(std::string_view what) {
  return Error{ErrorCode::unsupported,
               std::string(what) + " is only known on a live Windows machine"};
}

} // namespace

Expected<WindowsVersionNumbers> windows_version() {
  return tl::unexpected(unsupported("RtlGetVersion"));
}

Expected<MemoryStatus> memory_status() {
  return tl::unexpected(unsupported("GlobalMemoryStatusEx"));
}

Expected<std::uint64_t> free_disk_bytes(std::string_view /*dir*/) {
  return tl::unexpected(unsupported("the free space of a drive"));
}

Expected<bool> process_elevated() {
  return tl::unexpected(unsupported("TokenElevation"));
}

Expected<FileRights> file_rights(std::string_view /*path*/) {
  return tl::unexpected(unsupported("a file's access control list"));
}

Expected<std::string> read_alternate_stream(std::string_view /*path*/,
                                            std::string_view /*stream*/,
                                            std::size_t /*max_bytes*/) {
  return tl::unexpected(unsupported("an alternate data stream"));
}

Expected<std::uint32_t> authenticode_result(std::string_view /*path*/) {
  return tl::unexpected(unsupported("WinVerifyTrust"));
}

} // namespace doctor::platform
