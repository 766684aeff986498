// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/byte_source.hpp>
#include <doctor/util/error.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace doctor::platform {

// A regular file read with unbuffered positioned reads (pread, or ReadFile at an offset): each
// read() costs one system call for exactly the bytes asked for, which beats a mapping when a
// reader visits a few hundred small headers scattered over a huge file.
class PositionedFile final : public util::ByteSource {
public:
  // Opens `path` for reading. Returns an error if it cannot be opened or is not a regular file.
  static Expected<std::unique_ptr<PositionedFile>> open(const std::filesystem::path& path);

  ~PositionedFile() override;
  std::uint64_t size() const override { return m_size; }
  std::string_view read(std::uint64_t offset, std::size_t length) override;

private:
  PositionedFile() = default;
  std::intptr_t m_handle = -1; // a file descriptor, or a Windows HANDLE
  std::uint64_t m_size = 0;
  std::string m_buffer;
};

} // namespace doctor::platform
