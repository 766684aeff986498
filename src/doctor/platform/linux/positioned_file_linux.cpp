// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/positioned_file.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace doctor::platform {

Expected<std::unique_ptr<PositionedFile>> PositionedFile::open(const std::filesystem::path& path) {
  auto file = InputFile::open(path);
  if (!file) {
    return tl::unexpected(file.error());
  }
  std::unique_ptr<PositionedFile> out(new PositionedFile());
  out->m_size = file->stat().size;
  out->m_handle = file->release(); // closed by the destructor
  return out;
}

PositionedFile::~PositionedFile() {
  if (m_handle >= 0) {
    ::close(static_cast<int>(m_handle));
  }
}

std::string_view PositionedFile::read(std::uint64_t offset, std::size_t length) {
  if (offset >= m_size) {
    return {};
  }
  length = static_cast<std::size_t>(std::min<std::uint64_t>(length, m_size - offset));
  m_buffer.resize(length);
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(static_cast<int>(m_handle),
                              m_buffer.data() + done,
                              length - done,
                              static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  return std::string_view(m_buffer).substr(0, done);
}

} // namespace doctor::platform
