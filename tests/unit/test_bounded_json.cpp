// SPDX-License-Identifier: MIT
#include <doctor/model/bounded_json.hpp>

#include <gtest/gtest.h>

#include <string>

namespace doctor {
namespace {

facts::JsonLimits small_limits() {
  facts::JsonLimits l;
  l.max_bytes = 4096;
  l.max_depth = 4;
  l.max_string = 16;
  l.max_members = 3;
  l.max_items = 5;
  l.max_values = 40;
  l.max_objects = 6;
  l.integers_only = true;
  return l;
}

std::string parse_error(const std::string& text, facts::JsonLimits limits = small_limits()) {
  auto doc = facts::parse_bounded_json(text, limits);
  if (doc) {
    return "parsed";
  }
  return doc.error().message;
}

TEST(bounded_json, a_document_within_the_bounds_parses_in_order) {
  auto doc = facts::parse_bounded_json(R"({"b": [1, -2, "x"], "a": {"c": null, "d": true}})",
                                       small_limits());
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->root().dump(), R"({"b":[1,-2,"x"],"a":{"c":null,"d":true}})");
}

TEST(bounded_json, depth_is_bounded_and_the_path_says_where) {
  EXPECT_EQ(parse_error(R"({"a": [[[1]]]})"), "parsed");
  EXPECT_EQ(parse_error(R"({"a": [[[[1]]]]})"), "a[0][0][0]: nested deeper than 4 levels");
  // A long run of brackets stops at the bound, long before the end of the text.
  EXPECT_EQ(parse_error(std::string(4000, '['), small_limits()),
            "[0][0][0][0]: nested deeper than 4 levels");
}

TEST(bounded_json, items_members_values_and_objects_are_bounded) {
  EXPECT_EQ(parse_error("[1,2,3,4,5]"), "parsed");
  EXPECT_EQ(parse_error("[1,2,3,4,5,6]"), "[5]: more than 5 items in one array");
  EXPECT_EQ(parse_error(R"({"x": {"a":1,"b":2,"c":3,"d":4}})"),
            "x.d: more than 3 members in one object");
  auto ten = small_limits();
  ten.max_values = 10;
  EXPECT_EQ(parse_error("[[1,2],[3,4],[5,6]]", ten), "parsed");
  EXPECT_EQ(parse_error("[[1,2],[3,4],[5,6],7]", ten), "[3]: more than 10 values in the document");
  EXPECT_EQ(parse_error(R"({"a":[{},{},{},{},{}]})"), "parsed");
  EXPECT_EQ(parse_error(R"({"a":[{},{},{},{},{}],"b":{}})"),
            "b: more than 6 objects in the document");
}

TEST(bounded_json, strings_and_keys_are_bounded) {
  EXPECT_EQ(parse_error(R"(["0123456789abcdef"])"), "parsed");
  EXPECT_EQ(parse_error(R"({"s": "0123456789abcdefg"})"), "s: a string longer than 16 bytes");
  EXPECT_EQ(parse_error(R"({"0123456789abcdefg": 1})"), "a key longer than 16 bytes");
}

TEST(bounded_json, numbers_must_be_integers_that_fit) {
  EXPECT_EQ(parse_error(R"({"n": [18446744073709551615, -9223372036854775808]})"), "parsed");
  EXPECT_EQ(parse_error(R"({"n": {"m": 1e999999}})"), "n.m: the number 1e999999 is out of range");
  EXPECT_EQ(parse_error(R"({"n": [1, 2.5]})"),
            "n[1]: 2.5 is not an integer (every number here is a whole number)");
  // Past 2^64 nlohmann reads an integer as a double: not an integer either.
  EXPECT_NE(parse_error(R"({"n": 18446744073709551616})").find("n: 18446744073709551616 is not"),
            std::string::npos);
  auto floats = small_limits();
  floats.integers_only = false;
  EXPECT_EQ(parse_error(R"({"n": 2.5})", floats), "parsed");
  EXPECT_EQ(parse_error(R"({"n": -1e999999})", floats), "n: the number -1e999999 is out of range");
}

TEST(bounded_json, syntax_errors_and_truncation_name_the_place) {
  const std::string truncated = parse_error(R"({"a": [1, {"b": "x)");
  EXPECT_EQ(truncated.rfind("not JSON (", 0), 0U) << truncated;
  EXPECT_NE(truncated.find(" at a[1].b"), std::string::npos) << truncated;
  EXPECT_EQ(parse_error("").rfind("not JSON (", 0), 0U);
  EXPECT_EQ(parse_error("{} x").rfind("not JSON (", 0), 0U);
  EXPECT_EQ(parse_error("\xff").rfind("not JSON (", 0), 0U);
}

TEST(bounded_json, a_key_twice_is_an_error) {
  EXPECT_EQ(parse_error(R"({"o": {"k": 1, "j": 2, "k": 3}})"), "o: the key \"k\" appears twice");
}

TEST(bounded_json, odd_keys_are_quoted_and_cut_in_paths) {
  EXPECT_EQ(parse_error(R"({"a b\u001b[31m": [1, 2.5]})"),
            R"(["a b?[31m"][1]: 2.5 is not an integer (every number here is a whole number))");
}

TEST(bounded_json, the_text_is_bounded_before_anything_is_parsed) {
  auto l = small_limits();
  l.max_bytes = 10;
  auto doc = facts::parse_bounded_json("[1,2,3,4,5,6]", l);
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code, ErrorCode::too_large);
}

TEST(bounded_json, release_empties_every_container) {
  auto l = small_limits();
  l.max_items = 100000;
  l.max_values = 1000000;
  l.max_objects = 100000;
  std::string text = "[";
  for (int i = 0; i < 50000; ++i) {
    text += i == 0 ? "{}" : ",{}";
  }
  text += "]";
  l.max_bytes = text.size();
  auto doc = facts::parse_bounded_json(text, l);
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(doc->root().size(), 50000U);
  facts::release_json(doc->root());
  EXPECT_TRUE(doc->root().is_array());
  EXPECT_TRUE(doc->root().empty());
}

} // namespace
} // namespace doctor
