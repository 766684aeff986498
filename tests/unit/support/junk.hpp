// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <string_view>

// Deterministic hostile input for parser tests.
namespace doctor::test {

// Every byte value, NULs and newlines included.
inline std::string junk(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string out(size, '\0');
  for (char& c : out) {
    c = static_cast<char>(byte(gen));
  }
  return out;
}

// Junk made of the characters Python literals are built from, which reaches deeper into a parser.
inline std::string python_junk(std::size_t size, unsigned seed) {
  static constexpr std::string_view k_alphabet =
      "[](){}'\"\\,:=#\n\r\t abTrueFalseNone0123456789._-+fr";
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::size_t> pick(0, k_alphabet.size() - 1);
  std::string out(size, ' ');
  for (char& c : out) {
    c = k_alphabet[pick(gen)];
  }
  return out;
}

} // namespace doctor::test
