// SPDX-License-Identifier: MIT
// Where a format reader gets its bytes: a view of memory, or positioned reads of a file (which
// the platform layer provides), behind one small interface. Readers that walk a few headers
// spread over a large region (a fatbin section of hundreds of megabytes) read through it, so the
// same code parses a buffer in a test and a 500 MB library on disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace doctor::util {

class ByteSource {
public:
  ByteSource() = default;
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  virtual ~ByteSource() = default;

  // The number of bytes the source holds.
  virtual std::uint64_t size() const = 0;

  // The bytes [offset, offset + length), cut at the end of the source (or where a read failed).
  // The view stays valid until the next read.
  virtual std::string_view read(std::uint64_t offset, std::size_t length) = 0;
};

// Bytes already in memory.
class MemorySource final : public ByteSource {
public:
  explicit MemorySource(std::string_view data)
      : m_data(data) {}
  std::uint64_t size() const override { return m_data.size(); }
  std::string_view read(std::uint64_t offset, std::size_t length) override {
    return offset < m_data.size() ? m_data.substr(static_cast<std::size_t>(offset), length)
                                  : std::string_view();
  }

private:
  std::string_view m_data;
};

} // namespace doctor::util
