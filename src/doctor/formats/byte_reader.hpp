// SPDX-License-Identifier: MIT
// The one bounded reader of fixed-width integers and NUL-terminated strings that every byte parser
// in formats/ uses (ELF, PE, fatbin, ld.so.cache, minidump, kernel dump, EVTX). Every read checks
// its offset and width against the data with overflow-safe arithmetic, so no input, truncated or
// hostile, makes a parser look outside its bytes. A parser that reads a large file piecewise gets
// each piece from a util::ByteSource and reads inside it with this.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

namespace doctor::formats {

enum class ByteOrder { little, big };

class ByteReader {
public:
  explicit ByteReader(std::string_view data, ByteOrder order = ByteOrder::little)
      : m_data(data)
      , m_big(order == ByteOrder::big) {}

  std::uint64_t size() const { return m_data.size(); }
  std::string_view data() const { return m_data; }
  bool big_endian() const { return m_big; }

  // True if [offset, offset + length) lies inside the data.
  bool has(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size() && length <= size() - offset;
  }

  // The `width`-byte (1..8) unsigned integer at `offset` in the reader's byte order; nullopt
  // where it does not lie inside the data.
  std::optional<std::uint64_t> get(std::uint64_t offset, unsigned width) const {
    if (width == 0 || width > 8 || !has(offset, width)) {
      return std::nullopt;
    }
    const char* p = m_data.data() + static_cast<std::size_t>(offset);
    // The common widths as one load (and a byte swap where the orders differ): the parsers read
    // thousands of records per file.
    switch (width) {
    case 2:
      return load<std::uint16_t>(p);
    case 4:
      return load<std::uint32_t>(p);
    case 8:
      return load<std::uint64_t>(p);
    default:
      break;
    }
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i) {
      v = (v << 8U) | (m_big ? b[i] : b[width - 1 - i]);
    }
    return v;
  }

  // As get(), and 0 where the integer does not lie inside the data.
  std::uint64_t uint(std::uint64_t offset, unsigned width) const {
    return get(offset, width).value_or(0);
  }
  std::uint16_t u16(std::uint64_t offset) const {
    return static_cast<std::uint16_t>(uint(offset, 2));
  }
  std::uint32_t u32(std::uint64_t offset) const {
    return static_cast<std::uint32_t>(uint(offset, 4));
  }
  std::uint64_t u64(std::uint64_t offset) const { return uint(offset, 8); }

  // Stores the unsigned integer of `out`'s width at `offset` in `out` and returns true; returns
  // false and leaves `out` as it was where it does not lie inside the data.
  template<typename T>
  bool read(std::uint64_t offset, T& out) const {
    static_assert(std::is_unsigned_v<T> && sizeof(T) <= 8);
    const auto v = get(offset, sizeof(T));
    if (!v) {
      return false;
    }
    out = static_cast<T>(*v);
    return true;
  }

  // The NUL-terminated string at `offset` when its NUL lies inside the data, before `limit`, and
  // within `max_bytes` bytes of `offset` (so the string is at most max_bytes - 1 long); nullopt
  // otherwise.
  std::optional<std::string_view>
  c_string(std::uint64_t offset,
           std::uint64_t max_bytes,
           std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) const {
    limit = std::min(limit, size());
    if (offset >= limit) {
      return std::nullopt;
    }
    const std::string_view window =
        m_data.substr(static_cast<std::size_t>(offset),
                      static_cast<std::size_t>(std::min(limit - offset, max_bytes)));
    const auto nul = window.find('\0');
    if (nul == std::string_view::npos) {
      return std::nullopt;
    }
    return window.substr(0, nul);
  }

private:
  // The T at `p`, in the reader's byte order.
  template<typename T>
  T load(const char* p) const {
    T v;
    std::memcpy(&v, p, sizeof v);
    if ((std::endian::native == std::endian::big) != m_big) {
      if constexpr (sizeof(T) == 2) {
        v = __builtin_bswap16(v);
      } else if constexpr (sizeof(T) == 4) {
        v = __builtin_bswap32(v);
      } else {
        v = __builtin_bswap64(v);
      }
    }
    return v;
  }

  std::string_view m_data;
  bool m_big;
};

// Reads the little-endian unsigned integer of `out`'s width at `offset` of `data` into `out`;
// false, leaving `out` as it was, where it does not lie inside `data`.
template<typename T>
bool read_le(std::string_view data, std::uint64_t offset, T& out) {
  return ByteReader(data).read(offset, out);
}

} // namespace doctor::formats
