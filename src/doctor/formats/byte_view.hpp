// SPDX-License-Identifier: MIT
// Private to binfmt: bounds-checked reads of fixed-width integers from a file held in memory.
#pragma once

#include <cstdint>
#include <string_view>

namespace doctor::formats::detail {

// Every read checks its offset and width against the data with overflow-safe arithmetic, so no
// input, truncated or hostile, makes a reader look outside the view.
class ByteView {
public:
  ByteView(std::string_view data, bool big_endian)
      : m_data(data)
      , m_big(big_endian) {}

  std::uint64_t size() const { return m_data.size(); }

  // True if [offset, offset + length) lies inside the data.
  bool has(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size() && length <= size() - offset;
  }

  // The `width`-byte unsigned integer at `offset` in the view's byte order; 0 outside the data.
  std::uint64_t uint(std::uint64_t offset, unsigned width) const {
    if (!has(offset, width)) {
      return 0;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(m_data.data()) + offset;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i) {
      v = (v << 8U) | (m_big ? p[i] : p[width - 1 - i]);
    }
    return v;
  }

private:
  std::string_view m_data;
  bool m_big;
};

} // namespace doctor::formats::detail
