// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <filesystem>
#include <string_view>

namespace doctor::platform {

// A whole file mapped read-only into memory. Binary readers take its data() as a string_view, so a
// 500 MB library costs only the pages a parser touches (its headers), not a copy.
class MappedFile {
public:
  // Maps `path` read-only. An empty file maps to an empty view. Returns an error if the file cannot
  // be opened or mapped (a directory, a device, permission denied).
  static Expected<MappedFile> open(const std::filesystem::path& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view data() const { return {static_cast<const char*>(m_data), m_size}; }

private:
  MappedFile() = default;
  void release();
  const void* m_data = nullptr;
  std::size_t m_size = 0;
  void* m_handle = nullptr; // Windows: the mapping object
};

} // namespace doctor::platform
