// SPDX-License-Identifier: MIT
#include <doctor/formats/byte_reader.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace doctor::formats {
namespace {

using namespace std::string_literals;

constexpr std::uint64_t k_max = std::numeric_limits<std::uint64_t>::max();

const std::string k_bytes = "\x01\x02\x03\x04\x05\x06\x07\x08\x09"s;

TEST(byte_reader, reads_little_and_big_endian_integers_of_every_width) {
  const ByteReader le(k_bytes);
  const ByteReader be(k_bytes, ByteOrder::big);
  EXPECT_EQ(le.uint(0, 1), 0x01U);
  EXPECT_EQ(le.uint(0, 2), 0x0201U);
  EXPECT_EQ(be.uint(0, 2), 0x0102U);
  EXPECT_EQ(le.uint(1, 3), 0x040302U);
  EXPECT_EQ(be.uint(1, 3), 0x020304U);
  EXPECT_EQ(le.u32(0), 0x04030201U);
  EXPECT_EQ(be.u32(0), 0x01020304U);
  EXPECT_EQ(le.u64(1), 0x0908070605040302ULL);
  EXPECT_EQ(be.u64(1), 0x0203040506070809ULL);
  EXPECT_EQ(be.uint(2, 6), 0x030405060708ULL); // a SID's 48-bit authority
  EXPECT_EQ(le.u16(7), 0x0908U);
  EXPECT_EQ(ByteReader("\xff\xff\xff\xff\xff\xff\xff\xff"s).u64(0), k_max);
}

TEST(byte_reader, gives_zero_or_nothing_outside_the_data) {
  const ByteReader r(k_bytes);
  EXPECT_EQ(r.get(8, 2), std::nullopt); // one byte short
  EXPECT_EQ(r.uint(8, 2), 0U);
  EXPECT_EQ(r.u64(2), 0U);
  EXPECT_EQ(r.get(9, 1), std::nullopt);
  EXPECT_EQ(r.get(8, 1), 0x09U);
  // Widths outside 1..8 are no integer.
  EXPECT_EQ(r.get(0, 0), std::nullopt);
  EXPECT_EQ(r.get(0, 9), std::nullopt);
  EXPECT_EQ(ByteReader("").uint(0, 1), 0U);
}

TEST(byte_reader, offsets_near_the_top_of_the_range_do_not_wrap) {
  const ByteReader r(k_bytes);
  // offset + width wraps to a small number: a naive `offset + width <= size` check would pass.
  EXPECT_FALSE(r.has(k_max, 2));
  EXPECT_FALSE(r.has(k_max - 6, 8));
  EXPECT_FALSE(r.has(2, k_max));
  EXPECT_EQ(r.uint(k_max - 6, 8), 0U);
  EXPECT_EQ(r.get(k_max, 1), std::nullopt);
  EXPECT_TRUE(r.has(9, 0));
  EXPECT_TRUE(r.has(0, 9));
  EXPECT_FALSE(r.has(0, 10));
  EXPECT_FALSE(r.has(10, 0));
}

TEST(byte_reader, read_leaves_its_output_alone_when_it_fails) {
  const ByteReader r(k_bytes);
  std::uint32_t v32 = 7;
  EXPECT_TRUE(r.read(0, v32));
  EXPECT_EQ(v32, 0x04030201U);
  v32 = 7;
  EXPECT_FALSE(r.read(6, v32));
  EXPECT_EQ(v32, 7U);
  std::uint16_t v16 = 0;
  EXPECT_TRUE(read_le(k_bytes, 7, v16));
  EXPECT_EQ(v16, 0x0908U);
  std::uint64_t v64 = 9;
  EXPECT_FALSE(read_le(k_bytes, 2, v64));
  EXPECT_EQ(v64, 9U);
  std::uint8_t v8 = 0;
  EXPECT_TRUE(read_le(k_bytes, 8, v8));
  EXPECT_EQ(v8, 9U);
}

TEST(byte_reader, c_string_needs_its_nul_inside_every_bound) {
  const std::string data = "abc\0defg\0hi"s; // 11 bytes, no NUL after "hi"
  const ByteReader r(data);
  EXPECT_EQ(r.c_string(0, 100), "abc");
  EXPECT_EQ(r.c_string(1, 100), "bc");
  EXPECT_EQ(r.c_string(4, 100), "defg");
  EXPECT_EQ(r.c_string(3, 100), "");
  // max_bytes counts the NUL: "defg" needs 5.
  EXPECT_EQ(r.c_string(4, 5), "defg");
  EXPECT_EQ(r.c_string(4, 4), std::nullopt);
  // limit ends the search before the data does.
  EXPECT_EQ(r.c_string(4, 100, 9), "defg");
  EXPECT_EQ(r.c_string(4, 100, 8), std::nullopt);
  EXPECT_EQ(r.c_string(4, 100, 4), std::nullopt);
  EXPECT_EQ(r.c_string(4, 100, 2), std::nullopt);
  // Unterminated at the end of the data, past the end, and near the top of the range.
  EXPECT_EQ(r.c_string(9, 100), std::nullopt);
  EXPECT_EQ(r.c_string(11, 100), std::nullopt);
  EXPECT_EQ(r.c_string(k_max, k_max), std::nullopt);
  EXPECT_EQ(r.c_string(0, k_max, k_max), "abc");
  EXPECT_EQ(r.c_string(0, 0), std::nullopt);
}

} // namespace
} // namespace doctor::formats
