// SPDX-License-Identifier: MIT
#include "support/junk.hpp"
#include "support/test_paths.hpp"

#include <doctor/formats/python_literals.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace doctor {
namespace {

using namespace formats; // NOLINT(google-build-using-namespace): test-local

// A file extracted from a real wheel (tests/unit/data/python/README.md names each wheel).
std::string fixture(const std::string& name) {
  const std::string path = test::test_data_dir() + "/python/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<std::string>& all_fixtures() {
  static const std::vector<std::string> k_names = {
      "jax-0.10.2.version.py",
      "jax-0.4.30.version.py",
      "jaxlib-0.4.30.version.py",
      "onnxruntime-1.22.0-linux.build_and_package_info.py",
      "onnxruntime-gpu-1.22.0-linux.build_and_package_info.py",
      "onnxruntime-gpu-1.22.0-win.build_and_package_info.py",
      "paddlepaddle-1.8.5-linux.version.py",
      "paddlepaddle-2.6.2-linux.version_init.py",
      "paddlepaddle-3.3.1-linux.version_init.py",
      "paddlepaddle-gpu-2.6.1-linux.version_init.py",
      "tensorflow-2.10.0-win.build_info.py",
      "tensorflow-2.15.0-linux.build_info.py",
      "tensorflow-2.2.0-linux.build_info.py",
      "tensorflow-2.21.0-linux.build_info.py",
      "tensorflow-2.3.0-win.build_info.py",
      "tensorflow-2.4.0-linux.build_info.py",
      "tensorflow-gpu-2.2.0-win.build_info.py",
      "tensorflow-intel-2.15.0-win.build_info.py",
      "torch-1.13.1-macos.version.py",
      "torch-2.15.0-linux-cu132.version.py",
      "torch-2.5.1-linux-cu124.version.py",
      "torch-2.5.1-win-cpu.version.py",
  };
  return k_names;
}

using test::junk;
using test::python_junk;
// --- literals ---------------------------------------------------------------------------------

TEST(python_literals, literal_reads_scalars) {
  EXPECT_EQ(parse_python_literal("'12.4'")->text, "12.4");
  EXPECT_EQ(parse_python_literal("\"12.4\"")->kind, PyKind::string);
  EXPECT_EQ(parse_python_literal("True")->kind, PyKind::boolean);
  EXPECT_TRUE(parse_python_literal("True")->boolean);
  EXPECT_FALSE(parse_python_literal("False")->boolean);
  EXPECT_EQ(parse_python_literal("None")->kind, PyKind::none);
  EXPECT_EQ(parse_python_literal("11080")->text, "11080");
  EXPECT_EQ(parse_python_literal("-1.5e-3")->text, "-1.5e-3");
  EXPECT_EQ(parse_python_literal("  'x'  # comment")->text, "x");
}

TEST(python_literals, literal_decodes_string_escapes_and_prefixes) {
  EXPECT_EQ(parse_python_literal(R"('a\'b\\c\n')")->text, "a'b\\c\n");
  EXPECT_EQ(parse_python_literal(R"('\x41\101\u00e9')")->text, "AA\xC3\xA9");
  EXPECT_EQ(parse_python_literal(R"('\d')")->text, "\\d"); // unknown escapes keep the backslash
  EXPECT_EQ(parse_python_literal(R"(r'C:\new')")->text, "C:\\new");
  EXPECT_EQ(parse_python_literal(R"(u'x' "y" 'z')")->text, "xyz");
  EXPECT_EQ(parse_python_literal("'''one\n'two'\n'''")->text, "one\n'two'\n");
  EXPECT_EQ(parse_python_literal("b'bytes'")->text, "bytes");
  EXPECT_FALSE(parse_python_literal("f'{x}'")); // an f-string is code
}

TEST(python_literals, literal_reads_containers) {
  const auto list = parse_python_literal("['sm_35', 'compute_80',]");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->kind, PyKind::sequence);
  ASSERT_EQ(list->items.size(), 2U);
  EXPECT_EQ(list->items[1].text, "compute_80");

  const auto tuple = parse_python_literal("(1, ('a', None), [])");
  ASSERT_TRUE(tuple);
  ASSERT_EQ(tuple->items.size(), 3U);
  EXPECT_EQ(tuple->items[1].items[0].text, "a");
  EXPECT_EQ(tuple->items[2].kind, PyKind::sequence);
  EXPECT_TRUE(tuple->items[2].items.empty());

  EXPECT_EQ(parse_python_literal("('only')")->kind, PyKind::string); // parentheses, not a tuple
  EXPECT_EQ(parse_python_literal("('only',)")->kind, PyKind::sequence);
  EXPECT_EQ(parse_python_literal("()")->kind, PyKind::sequence);
  EXPECT_EQ(parse_python_literal("{1, 2}")->items.size(), 2U);

  const auto dict = parse_python_literal("{'a': 1, 'b': [True], 3: 'three', 'a': 2}");
  ASSERT_TRUE(dict);
  EXPECT_EQ(dict->kind, PyKind::mapping);
  EXPECT_EQ(dict->keys, (std::vector<std::string>{"a", "b", "3", "a"}));
  EXPECT_EQ(dict->find("a")->text, "2"); // the last one wins, as in Python
  EXPECT_TRUE(dict->find("b")->items[0].boolean);
  EXPECT_EQ(dict->find("3")->text, "three");
  EXPECT_EQ(dict->find("missing"), nullptr);
  EXPECT_EQ(parse_python_literal("{}")->kind, PyKind::mapping);
}

TEST(python_literals, literal_reads_ordered_dict_over_pairs) {
  const auto a = parse_python_literal("collections.OrderedDict([('x', 1), ('y', 'z')])");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, PyKind::mapping);
  EXPECT_EQ(a->keys, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(a->find("y")->text, "z");
  EXPECT_EQ(parse_python_literal("OrderedDict((('k', None),))")->find("k")->kind, PyKind::none);
  EXPECT_EQ(parse_python_literal("dict([('k', 2)])")->find("k")->text, "2");
  EXPECT_EQ(parse_python_literal("OrderedDict()")->kind, PyKind::mapping);
}

TEST(python_literals, literal_rejects_code) {
  for (const char* code : {"name",
                           "_get_version_string()",
                           "os.environ['X']",
                           "1 + 2",
                           "'a' + 'b'",
                           "foo([('a', 1)])",
                           "collections.defaultdict([('a', 1)])",
                           "OrderedDict([('a', 1, 2)])",
                           "OrderedDict([1])",
                           "[1, 2",
                           "'unterminated",
                           "{'a' 1}",
                           "[1 2]",
                           "",
                           "lambda: 1",
                           "x = 1",
                           "'a'; 'b'"}) {
    EXPECT_FALSE(parse_python_literal(code)) << code;
  }
}

TEST(python_literals, literal_limits_nesting) {
  const std::string ok = std::string(30, '[') + std::string(30, ']');
  EXPECT_TRUE(parse_python_literal(ok));
  const std::string deep = std::string(40, '[') + std::string(40, ']');
  EXPECT_FALSE(parse_python_literal(deep));
  // A million open brackets: rejected without recursing a million levels.
  EXPECT_FALSE(parse_python_literal(std::string(1000000, '[')));
  EXPECT_FALSE(parse_python_literal(std::string(1000000, '(') + std::string(1000000, ')')));
}

TEST(python_literals, literal_limits_size) {
  std::string big = "[";
  for (int i = 0; i < 150000; ++i) {
    big += "1,";
  }
  big += "]";
  EXPECT_FALSE(parse_python_literal(big));
  std::string fits = "[";
  for (int i = 0; i < 1000; ++i) {
    fits += "'v',";
  }
  fits += "]";
  EXPECT_EQ(parse_python_literal(fits)->items.size(), 1000U);
}

// --- assignments ------------------------------------------------------------------------------

TEST(python_literals, assignments_read_module_level_literals_only) {
  const auto a = parse_python_assignments(
      "\"\"\"Docstring with\nfake = 'no'\n\"\"\"\n"
      "import os\n"
      "plain = 'a'\n"
      "annotated: Optional[str] = 'b'\n"
      "computed = os.getcwd()\n"
      "def f():\n"
      "    inner = 'no'\n"
      "    return inner\n"
      "class C:\n"
      "  member = 'no'\n"
      "if True:\n"
      "    guarded = 'no'\n"
      "else: elsewhere = 'no'\n"
      "multi = {\n"
      "  'k': [1,\n"
      "        2],  # a comment inside\n"
      "}\n"
      "one = 1; two = 'second'\n"
      "cont = \\\n"
      "  'continued'\n"
      "chained = other = 'both'\n"
      "plain = 'replaced'\n");
  EXPECT_EQ(a.at("plain").text, "replaced");
  EXPECT_EQ(a.at("annotated").text, "b");
  EXPECT_EQ(a.at("multi").find("k")->items.size(), 2U);
  EXPECT_EQ(a.at("one").text, "1");
  EXPECT_EQ(a.at("two").text, "second");
  EXPECT_EQ(a.at("cont").text, "continued");
  EXPECT_EQ(a.at("chained").text, "both");
  EXPECT_EQ(a.at("other").text, "both");
  for (const char* absent :
       {"fake", "computed", "inner", "member", "guarded", "elsewhere", "else", "os"}) {
    EXPECT_EQ(a.count(absent), 0U) << absent;
  }
}

TEST(python_literals, later_bindings_that_are_not_evaluated_make_a_name_unknown) {
  // Each case: the source, then the name's value ("" for unknown) after it ran.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cuda = '12'\ncuda += '.1'\n", "12.1"},
      {"cuda: Optional[str] = '12'\ncuda += \".1\" '.0'\n", "12.1.0"},
      {"cuda = '12'\ncuda += suffix\n", ""},
      {"cuda = '12'\ncuda *= 2\n", ""},
      {"cuda = 1\ncuda += 1\n", ""},
      {"cuda = '12'\ncuda = compute()\n", ""},
      {"cuda = '12'\ncuda = base\n", ""},
      {"base = '11.8'\ncuda = '12'\ncuda = base\n", "11.8"},
      {"cuda = '12'\ncuda, hip = ('12.1', None)\n", "12.1"},
      {"cuda = '12'\ncuda, hip = pair\n", ""},
      {"cuda = '12'\nif rocm:\n    cuda = None\n", ""},
      {"cuda = '12'\nif rocm: cuda = None\n", ""},
      {"cuda = '12'\ntry:\n    from .override import cuda\nexcept ImportError:\n    pass\n", ""},
      {"cuda = '12'\nfrom .override import cuda\n", ""},
      {"cuda = '12'\nfrom typing import Optional\n", "12"},
      {"cuda = '12'\nfrom .override import *\n", ""},
      {"cuda = '12'\nimport cuda\n", ""},
      {"cuda = '12'\ndel cuda\n", ""},
      {"cuda = '12'\ndef cuda():\n    return '11'\n", ""},
      {"cuda = '12'\ndef f():\n    cuda = '11'\n    return cuda\n", "12"},
      {"cuda = '12'\ndef f():\n    global cuda\n    cuda = '11'\nf()\n", ""},
      {"cuda = '12'\nglobals()['cuda'] = '11'\n", ""},
      {"cuda = '12'\nfor cuda in ['11']:\n    pass\n", ""},
      {"cuda = '12'\n(cuda := '11')\n", ""},
      {"info = {'cuda': '12'}\ninfo['cuda'] = '11'\n", ""},
      {"info = {'cuda': '12'}\ninfo.update(cuda='11')\n", ""},
      {"cuda = '12'\ncuda = compute()\ncuda = '12.4'\n", "12.4"},
  };
  for (const auto& [source, want] : cases) {
    const auto a = read_python_assignments(source);
    const std::string name = source.starts_with("info") ? "info" : "cuda";
    if (want.empty()) {
      EXPECT_EQ(a.values.count(name), 0U) << source;
      ASSERT_EQ(a.unknown.count(name), 1U) << source;
      EXPECT_FALSE(a.unknown.at(name).empty()) << source;
    } else {
      ASSERT_EQ(a.values.count(name), 1U) << source;
      EXPECT_EQ(a.values.at(name).text, want) << source;
      EXPECT_EQ(a.unknown.count(name), 0U) << source;
    }
  }
  EXPECT_EQ(read_python_assignments("cuda = '12'\ncuda += suffix\n").unknown.at("cuda"),
            "changed by `cuda += suffix`, which is not evaluated");
}

TEST(python_literals, assignments_accept_crlf_and_skip_binary_lines) {
  const auto a = parse_python_assignments(
      "a = 'x'\r\n\x01\x02\xff = 'bad'\r\n# \xb2\xe2\xca\xd4 gbk\r\nb = 'y'");
  EXPECT_EQ(a.at("a").text, "x");
  EXPECT_EQ(a.at("b").text, "y");
  EXPECT_EQ(a.size(), 2U);
}

// --- bad input --------------------------------------------------------------------------------

TEST(python_literals, junk_is_no_literal) {
  for (unsigned seed = 0; seed < 40; ++seed) {
    for (const std::string& text :
         {junk(64 + seed * 97, seed), python_junk(64 + seed * 131, seed)}) {
      // No crash, hang or exception is the point; junk must also not pass for a literal.
      EXPECT_FALSE(parse_python_literal(text)) << seed;
      (void)parse_python_assignments(text);
    }
  }
}

TEST(python_literals, huge_and_pathological_lines) {
  EXPECT_TRUE(parse_python_assignments(std::string(2000000, 'x')).empty());
  EXPECT_TRUE(
      parse_python_assignments("a = '" + std::string(2000000, 'y')).empty()); // unterminated
  EXPECT_TRUE(parse_python_assignments("a = \"\"\"" + std::string(100000, '\n')).empty());
  EXPECT_TRUE(parse_python_assignments("a = " + std::string(500000, '\\')).empty());
  EXPECT_TRUE(parse_python_assignments(std::string(300000, ',')).empty());
  const auto long_value =
      parse_python_assignments("a = '" + std::string(1000000, 'z') + "'\nb = 1\n");
  EXPECT_EQ(long_value.at("a").text.size(), 1000000U);
  EXPECT_EQ(long_value.at("b").text, "1");
}

// Every prefix of a real file is a truncated download: whatever is still read must be what the
// whole file says, never a half value.
TEST(python_literals, truncated_fixtures_never_give_partial_values) {
  for (const std::string& name : all_fixtures()) {
    const std::string text = fixture(name);
    const auto whole = parse_python_assignments(text);
    const std::size_t step = text.size() > 2000 ? 13 : 1;
    for (std::size_t n = 0; n < text.size(); n += step) {
      for (const auto& [key, value] : parse_python_assignments(text.substr(0, n))) {
        if (value.kind == PyKind::number) {
          continue; // "80" cut to "8" is still a number
        }
        const auto it = whole.find(key);
        ASSERT_NE(it, whole.end()) << name << " cut at " << n << ": " << key;
        EXPECT_EQ(value, it->second) << name << " cut at " << n << ": " << key;
      }
    }
  }
}

} // namespace
} // namespace doctor
