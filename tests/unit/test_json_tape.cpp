// SPDX-License-Identifier: MIT
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/json_tape.hpp>

#include <gtest/gtest.h>

#include <string>

namespace doctor::kb {
namespace {

using Json = nlohmann::json;

TEST(json_tape, every_type_reads_back) {
  const std::string tape = encode_tape(Json::parse(
      R"({"s": "héllo", "u": 18446744073709551615, "i": -9223372036854775808, "f": 0.25,
          "t": true, "no": false, "z": null, "a": [1, "two", [], {}], "e": ""})"));
  const JsonView root = tape_root(tape);
  ASSERT_TRUE(root.is_object());
  EXPECT_EQ(root.size(), 9U);
  EXPECT_EQ(root.find("s")->string(), "héllo");
  EXPECT_EQ(root.find("e")->string(), "");
  EXPECT_EQ(root.find("u")->number_unsigned(), 18446744073709551615U);
  EXPECT_EQ(root.find("i")->type(), JsonType::number_integer);
  EXPECT_EQ(root.find("i")->number_integer(), INT64_MIN);
  EXPECT_EQ(root.find("f")->number_float(), 0.25);
  EXPECT_TRUE(root.find("t")->boolean());
  EXPECT_EQ(root.find("no")->type(), JsonType::boolean_false);
  EXPECT_EQ(root.find("z")->type(), JsonType::null);
  EXPECT_FALSE(root.find("missing"));
  const JsonView a = *root.find("a");
  ASSERT_TRUE(a.is_array());
  ASSERT_EQ(a.size(), 4U);
  EXPECT_EQ(a[0].number_unsigned(), 1U);
  EXPECT_EQ(a[1].string(), "two");
  EXPECT_EQ(a[2].size(), 0U);
  EXPECT_TRUE(a[3].is_object());
}

TEST(json_tape, members_are_in_order_of_their_keys_bytes) {
  // Bytes, not characters: "Z" < "a" < "é" (0xC3 0xA9); find() relies on the order.
  const std::string tape = encode_tape(Json::parse(R"({"é": 3, "a": 2, "Z": 1, "ab": 4})"));
  const JsonView root = tape_root(tape);
  ASSERT_EQ(root.size(), 4U);
  EXPECT_EQ(root.key(0), "Z");
  EXPECT_EQ(root.key(1), "a");
  EXPECT_EQ(root.key(2), "ab");
  EXPECT_EQ(root.key(3), "é");
  for (const char* key : {"Z", "a", "ab", "é"}) {
    EXPECT_TRUE(root.find(key)) << key;
  }
}

TEST(json_tape, a_whole_number_at_or_above_zero_is_unsigned_however_it_was_held) {
  Json built = Json::object();
  built["n"] = std::int64_t{5};
  ASSERT_TRUE(built["n"].is_number_integer());
  EXPECT_EQ(encode_tape(built), encode_tape(Json::parse(R"({"n": 5})")));
}

// The build's compiled form of each shipped file (cmake/embed_kb.py) is byte for byte what the
// C++ encoder writes from its text: the embedded knowledge base and --kb-dir read the same
// documents.
TEST(json_tape, the_builds_tapes_are_the_encoders_tapes) {
  ASSERT_FALSE(embedded_files().empty());
  for (const EmbeddedFile& f : embedded_files()) {
    const std::string tape = encode_tape(Json::parse(f.contents));
    EXPECT_EQ(tape.size(), f.tape.size()) << f.name;
    EXPECT_TRUE(tape == f.tape) << f.name;
  }
}

} // namespace
} // namespace doctor::kb
