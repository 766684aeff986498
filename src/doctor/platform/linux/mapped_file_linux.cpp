// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/mapped_file.hpp>

#include <fmt/format.h>

#include <sys/mman.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace doctor::platform {

Expected<MappedFile> MappedFile::open(const std::filesystem::path& path) {
  auto file = InputFile::open(path);
  if (!file) {
    return tl::unexpected(file.error());
  }
  MappedFile out;
  out.m_size = static_cast<std::size_t>(file->stat().size);
  if (out.m_size > 0) {
    // The mapping keeps the file; the descriptor closes on return. ENOMEM here (RLIMIT_AS, the
    // map count) is a resource error, not a property of the file.
    void* p =
        ::mmap(nullptr, out.m_size, PROT_READ, MAP_PRIVATE, static_cast<int>(file->native()), 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      return tl::unexpected(
          platform::error_from(std::error_code(err, std::generic_category()), path.string()));
    }
    out.m_data = p;
  }
  return out;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_size(std::exchange(other.m_size, 0))
    , m_handle(std::exchange(other.m_handle, nullptr)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
    m_handle = std::exchange(other.m_handle, nullptr);
  }
  return *this;
}

MappedFile::~MappedFile() {
  release();
}

void MappedFile::release() {
  if (m_data != nullptr) {
    ::munmap(const_cast<void*>(m_data), m_size); // NOLINT: munmap's signature
    m_data = nullptr;
  }
}

} // namespace doctor::platform
