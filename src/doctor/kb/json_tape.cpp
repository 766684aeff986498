// SPDX-License-Identifier: MIT
#include <doctor/kb/json_tape.hpp>

#include <algorithm>
#include <bit>

namespace doctor::kb {

static_assert(std::endian::native == std::endian::little, "the tape is little-endian");

JsonView JsonView::at(std::uint32_t offset) const {
  JsonView v = *this;
  v.m_at = offset;
  return v;
}

std::optional<JsonView> JsonView::find(std::string_view wanted) const {
  // Members are sorted by their keys' bytes; std::string_view compares as unsigned char.
  std::size_t lo = 0;
  std::size_t hi = size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const int c = key(mid).compare(wanted);
    if (c == 0) {
      return value(mid);
    }
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return std::nullopt;
}

double JsonView::number_float() const {
  const std::uint64_t bits = wide();
  double d = 0;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

namespace {

class Encoder {
public:
  std::uint32_t encode(const nlohmann::json& v) {
    const auto at = here();
    using T = nlohmann::json::value_t;
    switch (v.type()) {
    case T::null:
    case T::discarded:
      put(JsonType::null);
      break;
    case T::boolean:
      put(v.get<bool>() ? JsonType::boolean_true : JsonType::boolean_false);
      break;
    case T::number_unsigned:
      put(JsonType::number_unsigned);
      put64(v.get<std::uint64_t>());
      break;
    case T::number_integer: {
      const auto n = v.get<std::int64_t>();
      put(n >= 0 ? JsonType::number_unsigned : JsonType::number_integer);
      put64(static_cast<std::uint64_t>(n));
      break;
    }
    case T::number_float: {
      const double d = v.get<double>();
      std::uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      put(JsonType::number_float);
      put64(bits);
      break;
    }
    case T::string:
    case T::binary: // never the result of parsing text; written as an empty string
      text(v.is_string() ? std::string_view(v.get_ref<const std::string&>()) : std::string_view());
      break;
    case T::array: {
      put(JsonType::array);
      word(static_cast<std::uint32_t>(v.size()));
      const auto slots = reserve(v.size());
      std::size_t i = 0;
      for (const auto& item : v) {
        patch(slots + i++, encode(item));
      }
      break;
    }
    case T::object: {
      // nlohmann::json keeps members in a std::map: already in order of the keys' bytes.
      put(JsonType::object);
      word(static_cast<std::uint32_t>(v.size()));
      const auto slots = reserve(2 * v.size());
      std::size_t i = 0;
      for (const auto& item : v.items()) {
        patch(slots + 2 * i, here());
        text(item.key());
        patch(slots + 2 * i + 1, encode(item.value()));
        ++i;
      }
      break;
    }
    }
    return at;
  }

  std::string take() { return std::move(m_out); }

private:
  std::uint32_t here() const { return static_cast<std::uint32_t>(m_out.size() / 4); }
  void word(std::uint32_t w) {
    const char bytes[4] = {static_cast<char>(w & 0xFFU),
                           static_cast<char>((w >> 8U) & 0xFFU),
                           static_cast<char>((w >> 16U) & 0xFFU),
                           static_cast<char>((w >> 24U) & 0xFFU)};
    m_out.append(bytes, 4);
  }
  void put(JsonType t) { word(static_cast<std::uint32_t>(t)); }
  void put64(std::uint64_t v) {
    word(static_cast<std::uint32_t>(v & 0xFFFFFFFFU));
    word(static_cast<std::uint32_t>(v >> 32U));
  }
  void text(std::string_view s) {
    put(JsonType::string);
    word(static_cast<std::uint32_t>(s.size()));
    m_out.append(s);
    m_out.append((4 - s.size() % 4) % 4, '\0');
  }
  std::uint32_t reserve(std::size_t words) {
    const auto at = here();
    m_out.append(4 * words, '\0');
    return at;
  }
  void patch(std::uint32_t slot, std::uint32_t value) {
    for (std::size_t b = 0; b < 4; ++b) {
      m_out[4 * std::size_t{slot} + b] = static_cast<char>((value >> (8U * b)) & 0xFFU);
    }
  }

  std::string m_out;
};

} // namespace

std::string encode_tape(const nlohmann::json& doc) {
  Encoder e;
  e.encode(doc);
  return e.take();
}

} // namespace doctor::kb
