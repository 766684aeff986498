// SPDX-License-Identifier: MIT
#include <doctor/formats/gzip.hpp>

#if __has_include(<zlib.h>)
#  include <zlib.h>
#  define DOCTOR_HAVE_ZLIB 1
#else
#  define DOCTOR_HAVE_ZLIB 0
#endif

#include <algorithm>
#include <array>
#include <climits>
#include <string>

namespace doctor::formats {

bool looks_like_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f
         && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

#if DOCTOR_HAVE_ZLIB

namespace {

constexpr std::size_t k_chunk = std::size_t{64} * 1024;

// Owns one zlib inflate stream.
class Inflater {
public:
  Inflater() = default;
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater() {
    if (m_ready) {
      inflateEnd(&m_stream);
    }
  }

  // 16 + MAX_WBITS: a gzip header and trailer, not a zlib or raw stream.
  bool init() {
    m_ready = inflateInit2(&m_stream, 16 + MAX_WBITS) == Z_OK;
    return m_ready;
  }

  z_stream& stream() { return m_stream; }

private:
  z_stream m_stream{};
  bool m_ready = false;
};

bool all_zero(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

// Grows `out` for `more` bytes in steps that never pass `limit`, so that the capacity of a
// string near the cap is the cap, not twice what it holds.
void reserve_for(std::string& out, std::size_t more, std::size_t limit) {
  const std::size_t want = out.size() + more;
  if (want > out.capacity()) {
    out.reserve(std::min(limit, std::max(want, out.capacity() * 2)));
  }
}

} // namespace

Expected<Gunzipped> gunzip_prefix(std::string_view bytes, std::size_t max_output) {
  if (!looks_like_gzip(bytes)) {
    return make_error(ErrorCode::parse, "not gzip data: no 1f 8b signature");
  }
  Inflater inflater;
  if (!inflater.init()) {
    return make_error(ErrorCode::internal, "cannot start zlib inflate");
  }
  z_stream& zs = inflater.stream();
  Gunzipped out;
  std::array<unsigned char, k_chunk> buffer{};
  std::size_t offset = 0; // input consumed so far
  for (;;) {
    if (zs.avail_in == 0 && offset < bytes.size()) {
      const std::size_t n = std::min<std::size_t>(bytes.size() - offset, UINT_MAX / 2);
      // zlib takes non-const input but does not write to it.
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + offset));
      zs.avail_in = static_cast<uInt>(n);
      offset += n;
    }
    zs.next_out = buffer.data();
    zs.avail_out = static_cast<uInt>(buffer.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const std::size_t produced = buffer.size() - zs.avail_out;
    const std::size_t room = max_output - out.data.size();
    const std::size_t kept = std::min(produced, room);
    reserve_for(out.data, kept, max_output);
    out.data.append(reinterpret_cast<const char*>(buffer.data()), kept);
    if (produced > room) {
      out.truncated = true; // inflating stops here: the rest is never made
      return out;
    }
    if (rc == Z_STREAM_END) {
      const std::size_t used = offset - zs.avail_in;
      const std::string_view rest = bytes.substr(used);
      if (rest.empty() || all_zero(rest)) {
        return out;
      }
      if (!looks_like_gzip(rest)) {
        return make_error(ErrorCode::parse,
                          "trailing data after gzip member at offset " + std::to_string(used));
      }
      if (inflateReset(&zs) != Z_OK) {
        return make_error(ErrorCode::internal, "cannot reset zlib inflate");
      }
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && offset >= bytes.size()) {
      return make_error(ErrorCode::parse, "truncated gzip data");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const char* why = zs.msg != nullptr ? zs.msg : "error";
      return make_error(ErrorCode::parse, std::string("corrupt gzip data: ") + why);
    }
  }
}

Expected<std::string> gunzip(std::string_view bytes, std::size_t max_output) {
  auto out = gunzip_prefix(bytes, max_output);
  if (!out) {
    return tl::unexpected(out.error());
  }
  if (out->truncated) {
    return make_error(ErrorCode::too_large,
                      "gzip data expands to more than " + std::to_string(max_output) + " bytes");
  }
  return std::move(out->data);
}

#else

Expected<std::string> gunzip(std::string_view /*bytes*/, std::size_t /*max_output*/) {
  return make_error(ErrorCode::unsupported, "gzip: this build has no zlib");
}

Expected<Gunzipped> gunzip_prefix(std::string_view /*bytes*/, std::size_t /*max_output*/) {
  return make_error(ErrorCode::unsupported, "gzip: this build has no zlib");
}

#endif

} // namespace doctor::formats
