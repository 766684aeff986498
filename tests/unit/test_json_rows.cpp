// SPDX-License-Identifier: MIT
#include <doctor/kb/json_rows.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace doctor::kb {
namespace {

// The message of the Invalid that `read` throws, or "" if it throws none.
std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const Invalid& e) {
    return e.message;
  }
  return "";
}

// A document as the readers see it: its tape (json_tape.hpp), which a JsonRow refers to.
struct Doc {
  Doc(const Json& j) // NOLINT(google-explicit-constructor): a Json stands for its tape here
      : tape(encode_tape(j)) {}
  operator JsonView() const { return tape_root(tape); } // NOLINT(google-explicit-constructor)
  std::string tape;
};

Doc doc_of(const char* text) {
  return Json::parse(text);
}

JsonRow row_of(const Doc& j) {
  return JsonRow(j, "f.json: t[3]");
}

TEST(json_rows, a_row_must_be_an_object) {
  for (const char* text : {"[]", "7", "\"x\"", "null", "true"}) {
    const Doc j = doc_of(text);
    EXPECT_EQ(error_of([&] { row_of(j); }), "f.json: t[3]: not a JSON object") << text;
  }
  EXPECT_EQ(error_of([] { row_of(Json::object()); }), "");
}

TEST(json_rows, text_is_a_non_empty_string) {
  const Doc j = doc_of(R"({"a": "x", "e": "", "n": 1, "z": null})");
  const JsonRow r = row_of(j);
  EXPECT_EQ(r.text("a"), "x");
  EXPECT_EQ(error_of([&] { r.text("b"); }), "f.json: t[3]: missing field \"b\"");
  EXPECT_EQ(error_of([&] { r.text("e"); }), "f.json: t[3]: field \"e\" is empty");
  EXPECT_EQ(error_of([&] { r.text("n"); }), "f.json: t[3]: field \"n\" has the wrong type");
  EXPECT_EQ(error_of([&] { r.text("z"); }), "f.json: t[3]: field \"z\" has the wrong type");
}

TEST(json_rows, an_optional_text_may_be_absent_but_not_empty_or_null) {
  const Doc j = doc_of(R"({"a": "x", "e": "", "z": null})");
  const JsonRow r = row_of(j);
  EXPECT_EQ(r.optional_text("a"), "x");
  EXPECT_EQ(r.optional_text("b"), "");
  EXPECT_EQ(error_of([&] { r.optional_text("e"); }), "f.json: t[3]: field \"e\" is empty");
  EXPECT_EQ(error_of([&] { r.optional_text("z"); }),
            "f.json: t[3]: field \"z\" has the wrong type");
}

TEST(json_rows, number_rejects_negatives_fractions_and_values_past_its_maximum) {
  const Doc j = doc_of(
      R"({"n": 12, "zero": 0, "neg": -1, "frac": 1.5, "whole_float": 2.0, "s": "12",
          "big": 18446744073709551615})");
  const JsonRow r = row_of(j);
  EXPECT_EQ(r.number("n"), 12U);
  EXPECT_EQ(r.number("zero"), 0U);
  EXPECT_EQ(r.number("big"), 18446744073709551615ULL);
  EXPECT_EQ(r.number("n", 12), 12U);
  EXPECT_EQ(error_of([&] { r.number("n", 11); }), "f.json: t[3]: field \"n\" is out of range");
  for (const char* bad : {"neg", "frac", "whole_float", "s"}) {
    EXPECT_EQ(error_of([&] { r.number(bad); }),
              "f.json: t[3]: field \"" + std::string(bad) + "\" has the wrong type");
  }
  EXPECT_EQ(error_of([&] { r.number("m"); }), "f.json: t[3]: missing field \"m\"");
  EXPECT_EQ(r.optional_number("m"), std::nullopt);
  EXPECT_EQ(r.optional_number("n"), 12U);
  EXPECT_EQ(error_of([&] { r.optional_number("neg"); }),
            "f.json: t[3]: field \"neg\" has the wrong type");
  // A document built in memory holds 5 as a signed integer: still a number >= 0 on its tape.
  Json built = Json::object();
  built["n"] = 5;
  built["m"] = -5;
  ASSERT_TRUE(built["n"].is_number_integer());
  EXPECT_EQ(row_of(built).number("n"), 5U);
  EXPECT_EQ(error_of([&] { row_of(built).number("m"); }),
            "f.json: t[3]: field \"m\" has the wrong type");
}

TEST(json_rows, integer_takes_either_sign_but_no_fraction) {
  const Doc j =
      doc_of(R"({"pos": 80, "neg": -3, "frac": 0.5, "huge": 18446744073709551615, "s": "1"})");
  const JsonRow r = row_of(j);
  EXPECT_EQ(r.integer("pos"), 80);
  EXPECT_EQ(r.integer("neg"), -3);
  EXPECT_EQ(error_of([&] { r.integer("frac"); }),
            "f.json: t[3]: field \"frac\" has the wrong type");
  EXPECT_EQ(error_of([&] { r.integer("s"); }), "f.json: t[3]: field \"s\" has the wrong type");
  // Past INT64_MAX: an error, not a wrapped negative number.
  EXPECT_EQ(error_of([&] { r.integer("huge"); }), "f.json: t[3]: field \"huge\" is out of range");
}

TEST(json_rows, flags_are_true_or_false) {
  const Doc j = doc_of(R"({"t": true, "f": false, "one": 1, "s": "true"})");
  const JsonRow r = row_of(j);
  EXPECT_TRUE(r.flag("t"));
  EXPECT_FALSE(r.flag("f"));
  EXPECT_TRUE(r.optional_flag("absent", true));
  EXPECT_FALSE(r.optional_flag("absent", false));
  EXPECT_FALSE(r.optional_flag("f", true));
  EXPECT_EQ(error_of([&] { r.flag("one"); }), "f.json: t[3]: field \"one\" has the wrong type");
  EXPECT_EQ(error_of([&] { r.optional_flag("s", false); }),
            "f.json: t[3]: field \"s\" has the wrong type");
  EXPECT_EQ(error_of([&] { r.flag("absent"); }), "f.json: t[3]: missing field \"absent\"");
}

TEST(json_rows, lists_of_texts_hold_non_empty_strings) {
  const Doc j =
      doc_of(R"({"l": ["a", "b"], "none": [], "blank": ["a", ""], "num": ["a", 1], "s": "a"})");
  const JsonRow r = row_of(j);
  EXPECT_EQ(r.texts("l"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.optional_texts("l"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(r.optional_texts("absent").empty());
  EXPECT_TRUE(r.optional_texts("none").empty());
  EXPECT_EQ(error_of([&] { r.texts("none"); }), "f.json: t[3]: field \"none\" is empty");
  EXPECT_EQ(error_of([&] { r.texts("absent"); }), "f.json: t[3]: missing field \"absent\"");
  for (const char* bad : {"blank", "num"}) {
    EXPECT_EQ(error_of([&] { r.optional_texts(bad); }),
              "f.json: t[3]: field \"" + std::string(bad) + "\" must hold non-empty strings");
  }
  EXPECT_EQ(error_of([&] { r.optional_texts("s"); }),
            "f.json: t[3]: field \"s\" has the wrong type");
}

TEST(json_rows, only_rejects_a_field_the_table_does_not_know) {
  const Doc j = doc_of(R"({"id": "a", "sourc": "s"})");
  const JsonRow r = row_of(j);
  EXPECT_EQ(error_of([&] { r.only({"id", "source"}); }), "f.json: t[3]: unknown field \"sourc\"");
  EXPECT_EQ(error_of([&] { r.only({"id", "sourc"}); }), "");
}

TEST(json_rows, errors_name_the_row_by_its_id_once_known) {
  const Doc j = doc_of(R"({"id": "cudnn.x"})");
  JsonRow r = row_of(j);
  r.name(r.text("id"));
  EXPECT_EQ(r.where(), "f.json: t[3] (cudnn.x)");
  EXPECT_EQ(error_of([&] { r.text("source"); }),
            "f.json: t[3] (cudnn.x): missing field \"source\"");
  EXPECT_EQ(error_of([&] { r.fail("duplicate id"); }), "f.json: t[3] (cudnn.x): duplicate id");
}

TEST(json_rows, tables_and_nested_lists_name_each_row_by_index) {
  const Doc doc = doc_of(
      R"({"spec": "cudnn-doctor-kb/1", "kind": "k",
          "rows": [{"id": "a", "fixes": [{"text": "t"}, 5]}, 7, {"id": ""}]})");
  const JsonRow top(doc, "f.json");
  const JsonRows rows = top.rows("rows");
  ASSERT_EQ(rows.size(), 3U);
  const JsonRow first = rows[0];
  EXPECT_EQ(first.where(), "f.json: rows[0]");
  const JsonRows fixes = first.items("fixes");
  ASSERT_EQ(fixes.size(), 2U);
  EXPECT_EQ(fixes[0].where(), "f.json: rows[0] fixes[0]");
  EXPECT_EQ(error_of([&] { fixes[1]; }), "f.json: rows[0] fixes[1]: not a JSON object");
  // Rows are read when asked for: the error of row 1 comes only then, in the file's order.
  EXPECT_EQ(error_of([&] { rows[1]; }), "f.json: rows[1]: not a JSON object");
  EXPECT_EQ(error_of([&] { rows[2].text("id"); }), "f.json: rows[2]: field \"id\" is empty");
  EXPECT_TRUE(first.items("absent", false).empty());
  EXPECT_EQ(error_of([&] { first.items("absent"); }), "f.json: rows[0]: missing field \"absent\"");
  EXPECT_EQ(error_of([&] { top.rows("missing"); }), "f.json: missing field \"missing\"");
  EXPECT_EQ(error_of([&] { first.rows("id"); }),
            "f.json: rows[0]: field \"id\" has the wrong type");
}

TEST(json_rows, file_header_checks_spec_and_kind) {
  EXPECT_EQ(error_of([] {
              file_header(
                  doc_of(R"({"spec": "cudnn-doctor-kb/1", "kind": "gpus"})"), "gpus", "g.json");
            }),
            "");
  EXPECT_EQ(error_of([] {
              file_header(
                  doc_of(R"({"spec": "cudnn-doctor-kb/2", "kind": "gpus"})"), "gpus", "g.json");
            }),
            "g.json: \"spec\" must be \"cudnn-doctor-kb/1\"");
  EXPECT_EQ(error_of([] {
              file_header(
                  doc_of(R"({"spec": "cudnn-doctor-kb/1", "kind": "xid"})"), "gpus", "g.json");
            }),
            "g.json: \"kind\" must be \"gpus\"");
  EXPECT_EQ(error_of([] { file_header(doc_of("[1]"), "gpus", "g.json"); }),
            "g.json: not a JSON object");
  EXPECT_EQ(file_kind(doc_of(R"({"kind": "xid"})"), "x.json"), "xid");
  EXPECT_EQ(error_of([] { file_kind(doc_of(R"({"kind": 1})"), "x.json"); }),
            "x.json: missing field \"kind\"");
  EXPECT_EQ(error_of([] { file_kind(doc_of("[]"), "x.json"); }), "x.json: missing field \"kind\"");
}

TEST(json_rows, parse_json_file_names_the_file) {
  const std::string tape = parse_json_file(R"({"a": 1})", "a.json");
  EXPECT_EQ(tape_root(tape).find("a")->number_unsigned(), 1U);
  const std::string e = error_of([] { parse_json_file("{oops", "a.json"); });
  EXPECT_EQ(e.rfind("a.json: not JSON (", 0), 0U) << e;
}

} // namespace
} // namespace doctor::kb
