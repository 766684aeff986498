// SPDX-License-Identifier: MIT
// Random bytes in random chunk sizes through util::TextDecoder: the first byte picks the chunk
// size (1-256) and a small line cap. Every line must be valid UTF-8 without LF, at most the cap
// long, numbered in order, and the lines must equal those of one-chunk decoding.
#include <doctor/util/text_decode.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t need = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      lo = c == 0xE0 ? 0xA0 : 0x80;
      hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
      return false;
    }
    for (std::size_t k = 1; k <= need; ++k) {
      if (i + k >= s.size()) {
        return false;
      }
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < lo || b > hi) {
        return false;
      }
      lo = 0x80;
      hi = 0xBF;
    }
    i += need + 1;
  }
  return true;
}

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  using namespace doctor;
  const std::size_t chunk = std::size_t{data[0]} + 1;
  const std::size_t cap = data[0] % 2 == 0 ? 64 + data[0] : util::k_max_line_bytes;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);

  std::vector<util::TextLine> lines;
  std::size_t last_number = 0;
  util::TextDecoder decoder(
      [&](const util::TextLine& line) {
        check(valid_utf8(line.text));
        check(line.text.size() <= cap);
        check(line.text.find('\n') == std::string_view::npos);
        check(line.number == last_number + (line.part == 0 ? 1 : 0));
        last_number = line.number;
        lines.push_back(line);
      },
      cap);
  for (std::size_t i = 0; i < bytes.size(); i += chunk) {
    decoder.feed(bytes.substr(i, chunk));
  }
  decoder.finish();
  check(util::decode_all(bytes, cap).lines == lines);
  return 0;
}
