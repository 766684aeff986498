// SPDX-License-Identifier: MIT
// The explain engine below the knowledge base: literal prefilter, signature matching, the stream
// scanner (fast path against the decoder path) and the ranking rules.
#include <doctor/explain/analysis.hpp>
#include <doctor/explain/literal_set.hpp>
#include <doctor/explain/matcher.hpp>
#include <doctor/explain/scan.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>

namespace doctor::explain {
namespace {

kb::Signature sig(std::string id,
                  std::string finding,
                  kb::SignatureRole role,
                  int confidence,
                  std::vector<std::string> patterns,
                  std::vector<std::string> explained_by = {}) {
  kb::Signature s;
  s.id = std::move(id);
  s.finding = std::move(finding);
  s.role = role;
  s.confidence = confidence;
  s.platform = "any";
  for (const auto& p : patterns) {
    auto re = Regex::compile(p);
    EXPECT_TRUE(re.has_value()) << p;
    s.patterns.push_back(std::move(*re));
  }
  s.explained_by = std::move(explained_by);
  s.source = "test";
  return s;
}

using Role = kb::SignatureRole;

std::vector<kb::Signature> test_signatures() {
  std::vector<kb::Signature> v;
  v.push_back(
      sig("zlib", "log.zlibwapi_missing", Role::cause, 95, {"Could not locate zlibwapi\\.dll"}));
  v.push_back(
      sig("sub",
          "log.cudnn_sublibrary_missing",
          Role::cause,
          85,
          {"Could not load library (?<lib>cudnn_\\w+64_\\d+\\.dll)\\. Error code (?<code>\\d+)"},
          {"log.zlibwapi_missing"}));
  v.push_back(sig("oom",
                  "log.gpu_out_of_memory",
                  Role::cause,
                  90,
                  {"CUDA out of memory\\. Tried to allocate (?<size>[\\d.]+ [KMG]iB)",
                   "(?i)out of memory while trying to allocate"}));
  v.push_back(sig("notinit",
                  "log.cudnn_not_initialized",
                  Role::symptom,
                  35,
                  {"CUDNN_STATUS_NOT_INITIALIZED"},
                  {"log.gpu_out_of_memory"}));
  v.push_back(
      sig("factory", "log.harmless_noise", Role::noise, 10, {"Unable to register cuDNN factory"}));
  v.push_back(sig("umbrella",
                  "log.gpu_libraries_not_loaded",
                  Role::symptom,
                  30,
                  {"Cannot dlopen some GPU libraries"},
                  {"log.cudnn_not_found"}));
  v.push_back(sig("dso",
                  "log.cudnn_not_found",
                  Role::cause,
                  80,
                  {"Could not load dynamic library '(?<lib>libcudnn\\.so\\.\\d+)'"}));
  v.push_back(sig("smi", "log.context", Role::context, 10, {"Driver Version: (?<driver>[\\d.]+)"}));
  return v;
}

std::string naive_positions(const std::vector<std::string>& lits, std::string_view text) {
  auto lower = [](std::string s) {
    for (char& c : s) {
      if (c >= 'A' && c <= 'Z')
        c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
  };
  std::string t = lower(std::string(text));
  std::vector<std::uint32_t> found;
  for (std::size_t end = 1; end <= t.size(); ++end) {
    for (std::size_t i = 0; i < lits.size(); ++i) {
      std::string l = lower(lits[i]);
      if (!l.empty() && l.size() <= end && t.compare(end - l.size(), l.size(), l) == 0) {
        found.push_back(static_cast<std::uint32_t>(i));
      }
    }
  }
  std::sort(found.begin(), found.end());
  std::string out;
  for (auto f : found)
    out += std::to_string(f) + ",";
  return out;
}

TEST(LiteralSet, FindsOverlappingLiteralsIgnoringCase) {
  LiteralSet set({"he", "she", "his", "hers", ""});
  EXPECT_EQ(set.size(), 4U);
  EXPECT_EQ(set.find_first("ushers"), 4U); // "she" ends first, at offset 4 (and "he" with it)
  EXPECT_EQ(set.find_first("xyz"), LiteralSet::k_npos);
  EXPECT_EQ(set.find_first("USHERS"), 4U);
  std::vector<std::uint32_t> all;
  set.find_all("ushers", all);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::uint32_t>{0, 1, 3}));
  EXPECT_EQ(LiteralSet().find_first("anything"), LiteralSet::k_npos);
}

TEST(LiteralSet, AgreesWithNaiveSearch) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> lits;
    for (int i = static_cast<int>(rng() % 6) + 1; i > 0; --i) {
      std::string l;
      for (int j = static_cast<int>(rng() % 4) + 1; j > 0; --j)
        l.push_back("abAB\xC3"[rng() % 5]);
      lits.push_back(l);
    }
    std::string text;
    for (int j = static_cast<int>(rng() % 30); j > 0; --j)
      text.push_back("aAbBc\xC3"[rng() % 6]);
    LiteralSet set(lits);
    std::vector<std::uint32_t> all;
    set.find_all(text, all);
    std::sort(all.begin(), all.end());
    std::string got;
    for (auto f : all)
      got += std::to_string(f) + ",";
    ASSERT_EQ(got, naive_positions(lits, text)) << text;
    ASSERT_EQ(set.find_first(text) == LiteralSet::k_npos, got.empty()) << text;
  }
}

TEST(LiteralSet, CandidateLinesAreTheLinesHoldingALiteral) {
  std::mt19937 rng(11);
  const std::vector<std::string> lits = {"xid", "cudnn", "Out of memory"};
  LiteralSet set(lits);
  for (int round = 0; round < 200; ++round) {
    std::string block;
    std::vector<std::pair<std::size_t, std::size_t>> expect;
    for (int line = static_cast<int>(rng() % 40); line > 0; --line) {
      std::size_t begin = block.size();
      for (int w = static_cast<int>(rng() % 5); w > 0; --w) {
        const char* words[] = {"a", "XID", "cu", "dnn", "cudnn", "out of MEMORY", " ", "x"};
        block += words[rng() % 8];
      }
      std::vector<std::uint32_t> hits;
      set.find_all(std::string_view(block).substr(begin), hits);
      if (!hits.empty())
        expect.emplace_back(begin, block.size());
      block += '\n';
    }
    std::vector<std::pair<std::size_t, std::size_t>> got;
    set.candidate_lines(block, got);
    ASSERT_EQ(got, expect) << block;
  }
}

// The q-gram filter behind candidate_lines() against the automaton, line by line: literal sets
// with and without short literals (so both kinds of q-gram), strides from 1 to 16, bytes that the
// filter's lossy case fold merges ('@' and '`', '[' and '{'), non-ASCII bytes, lines of every
// length, literals at a line's start and end and in several places of one line.
TEST(LiteralSet, SampledFilterFindsTheSameLinesAsTheAutomaton) {
  std::mt19937 rng(23);
  const std::string alphabet = "abAB@`[{ \xC3\x89:";
  auto random_text = [&](std::size_t size) {
    std::string t;
    for (std::size_t i = 0; i < size; ++i)
      t.push_back(alphabet[rng() % alphabet.size()]);
    return t;
  };
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> lits;
    const std::size_t shortest = 1 + rng() % 20;
    for (int i = static_cast<int>(rng() % 8) + 1; i > 0; --i)
      lits.push_back(random_text(shortest + rng() % 12));
    LiteralSet set(lits);
    ASSERT_GE(set.stride(), 1U);
    std::string block;
    std::vector<std::pair<std::size_t, std::size_t>> expect;
    for (int line = static_cast<int>(rng() % 60); line > 0; --line) {
      std::size_t begin = block.size();
      std::string text = random_text(rng() % 50);
      if (rng() % 3 == 0) {
        const std::string& l = lits[rng() % lits.size()];
        text.insert(rng() % (text.size() + 1), l);
      }
      block += text;
      std::vector<std::uint32_t> hits;
      set.find_all(std::string_view(block).substr(begin), hits);
      if (!hits.empty())
        expect.emplace_back(begin, block.size());
      block += '\n';
    }
    std::vector<std::pair<std::size_t, std::size_t>> got;
    set.candidate_lines(block, got);
    ASSERT_EQ(got, expect) << "round " << round;
  }
}

TEST(LiteralSet, ALiteralWithALineBreakKeepsTheAutomaton) {
  LiteralSet set({"first\nsecond", "another literal"});
  EXPECT_EQ(set.stride(), 0U);
  std::vector<std::pair<std::size_t, std::size_t>> got;
  set.candidate_lines("nothing\nx another literal\nsecond\n", got);
  EXPECT_EQ(got, (std::vector<std::pair<std::size_t, std::size_t>>{{8, 25}}));
}

TEST(SignatureMatcher, MatchesOnlyWhatTheRegexConfirms) {
  auto sigs = test_signatures();
  SignatureMatcher m(sigs);
  std::vector<LineMatch> out;
  std::vector<std::uint32_t> scratch;
  m.match_line("Could not load library cudnn_cnn_infer64_8.dll. Error code 126", out, scratch);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(sigs[out[0].signature].id, "sub");
  EXPECT_EQ(out[0].fields,
            (std::vector<std::pair<std::string, std::string>>{{"lib", "cudnn_cnn_infer64_8.dll"},
                                                              {"code", "126"}}));
  out.clear();
  // The literal is there, the rest of the pattern is not.
  m.match_line("Could not load library whatever", out, scratch);
  EXPECT_TRUE(out.empty());
  // Second pattern, case-insensitive.
  m.match_line("RESOURCE_EXHAUSTED: Out Of Memory While Trying To Allocate 1.2GiB", out, scratch);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].pattern, 1U);
}

std::string describe(const Analysis& a) {
  std::string s;
  for (const auto& h : a.hits()) {
    s += a.matcher().signatures()[h.signature].id + "x" + std::to_string(h.count) + "@";
    for (const auto& l : h.lines)
      s += std::to_string(l.line) + "." + std::to_string(l.part) + "[" + l.text + "]";
    for (const auto& [k, v] : h.fields)
      s += k + "=" + v + ";";
    s += "\n";
  }
  for (const auto& in : a.inputs()) {
    s += in.name + " lines=" + std::to_string(in.lines) + " bytes=" + std::to_string(in.bytes)
         + "\n";
  }
  return s;
}

std::string
scan_both(std::string_view text, std::size_t chunk, bool fast, std::size_t threads = 1) {
  auto sigs = test_signatures();
  SignatureMatcher m(sigs);
  Analysis a(m);
  ScanOptions o;
  o.fast_path = fast;
  o.chunk_bytes = chunk;
  o.threads = threads;
  scan_text("t", text, a, o);
  return describe(a);
}

// Scans `text` with the test signatures on the fast path and on the decoder path, and runs
// `check` on each result.
void on_both_paths(
    const std::string& text,
    const std::function<void(const std::vector<kb::Signature>&, const Analysis&)>& check) {
  for (bool fast : {true, false}) {
    SCOPED_TRACE(fast ? "fast path" : "decoder path");
    auto sigs = test_signatures();
    SignatureMatcher m(sigs);
    Analysis a(m);
    ScanOptions o;
    o.fast_path = fast;
    scan_text("t", text, a, o);
    check(sigs, a);
  }
}

TEST(Scan, FastPathEqualsDecoderPath) {
  std::string filler;
  for (int i = 0; i < 300; ++i)
    filler += "epoch " + std::to_string(i) + " loss 0.25 acc 0.9\n";
  std::vector<std::string> inputs = {
      "",
      "no match at all",
      "Could not locate zlibwapi.dll",
      filler + "Could not locate zlibwapi.dll. Please make sure\r\n" + filler
          + "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n" + filler,
      "\xEF\xBB\xBF" + filler + "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
      filler + "\x1b[31mCould not locate \x1b[1mzlibwapi.dll\x1b[0m\n" + filler,
      filler + "Nov 30 host python[12]: Traceback (most recent call last):#012  File \"a.py\", line 1#012"
               "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n",
      std::string(20000, 'x') + "Could not locate zlibwapi.dll\n" + std::string(9000, 'y')
          + "\nUnable to register cuDNN factory\n",
      filler + "bad \xFF\xFE utf8 CUDNN_STATUS_NOT_INITIALIZED \xC3\n" + filler
          + "Driver Version: 535.104.05  last line without LF",
      "Cannot dlopen some GPU libraries\nCould not load dynamic library 'libcudnn.so.8'\n\n\n",
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string slow = scan_both(inputs[i], 4096, false);
    for (std::size_t chunk : {std::size_t{4096}, std::size_t{5000}, std::size_t{1} << 20}) {
      EXPECT_EQ(scan_both(inputs[i], chunk, true), slow) << "input " << i << " chunk " << chunk;
    }
  }
  // The numbers themselves, once.
  std::string got = scan_both(filler + "Could not locate zlibwapi.dll\n", 4096, true);
  EXPECT_NE(got.find("zlibx1@301.0[Could not locate zlibwapi.dll]"), std::string::npos) << got;
  EXPECT_NE(got.find("lines=301"), std::string::npos) << got;
}

TEST(Scan, ParallelPrefilterKeepsOrderAndNumbers) {
  std::string text;
  for (int i = 0; i < 60000; ++i) {
    text += "step " + std::to_string(i) + " loss 0.1234 lr 0.0003 tokens/s 41234\n";
    if (i % 7001 == 3)
      text += "Could not load dynamic library 'libcudnn.so." + std::to_string(i) + "'\n";
    if (i % 9001 == 5)
      text += "RuntimeError: CUDA out of memory. Tried to allocate 1.00 GiB\n";
  }
  ASSERT_GT(text.size(), std::size_t{2} << 20);
  std::string slow = scan_both(text, 4096, false);
  EXPECT_EQ(scan_both(text, std::size_t{4} << 20, true, 4), slow);
  EXPECT_EQ(scan_both(text, std::size_t{1} << 20, true, 3), slow);
}

TEST(Scan, OtherEncodingsAreDecodedFirst) {
  // UTF-16LE with BOM, as PowerShell writes it.
  std::string text = "line one\r\nCould not locate zlibwapi.dll\r\n";
  std::string utf16 = "\xFF\xFE";
  for (char c : text) {
    utf16.push_back(c);
    utf16.push_back('\0');
  }
  std::string got = scan_both(utf16, 4096, true);
  EXPECT_NE(got.find("zlibx1@2.0[Could not locate zlibwapi.dll]"), std::string::npos) << got;
}

TEST(Scan, EvidenceIsCappedAndCounted) {
  std::string text;
  for (int i = 0; i < 50; ++i)
    text += "Unable to register cuDNN factory: already registered\n";
  auto sigs = test_signatures();
  SignatureMatcher m(sigs);
  Analysis a(m);
  scan_text("t", text, a);
  ASSERT_EQ(a.hits().size(), 1U);
  EXPECT_EQ(a.hits()[0].count, 50U);
  EXPECT_EQ(a.hits()[0].lines.size(), k_kept_lines);
}

TEST(Scan, RepeatedLinesCountAsOftenAsTheyOccurWithTheirOwnNumbers) {
  // More distinct lines than the cache has slots, in three rounds: each line is matched again
  // or taken from the cache, and either way counts, keeps its line number and its own fields.
  std::string round;
  std::size_t sub = 0;
  std::size_t oom = 0;
  for (int i = 0; i < 700; ++i) {
    if (i % 3 == 0) {
      round +=
          "Could not load library cudnn_ops" + std::to_string(i) + "64_9.dll. Error code 126\n";
      ++sub;
    } else if (i % 3 == 1) {
      round += "RuntimeError: CUDA out of memory. Tried to allocate " + std::to_string(i)
               + ".00 GiB\r\n";
      ++oom;
    } else {
      round += "Could not load library whatever" + std::to_string(i) + "\n"; // literal, no match
    }
  }
  const std::string text = "Could not locate zlibwapi.dll\n" + round + round + round;
  on_both_paths(text, [&](const std::vector<kb::Signature>& sigs, const Analysis& a) {
    ASSERT_EQ(a.hits().size(), 3U);
    EXPECT_EQ(sigs[a.hits()[1].signature].id, "sub");
    EXPECT_EQ(a.hits()[1].count, 3 * sub);
    EXPECT_EQ(a.hits()[1].fields[0].second, "cudnn_ops064_9.dll");
    EXPECT_EQ(a.hits()[1].lines[1].line, 5U);
    EXPECT_EQ(a.hits()[1].lines[1].text,
              "Could not load library cudnn_ops364_9.dll. Error code 126");
    EXPECT_EQ(sigs[a.hits()[2].signature].id, "oom");
    EXPECT_EQ(a.hits()[2].count, 3 * oom);
    EXPECT_EQ(a.hits()[2].lines[0].text,
              "RuntimeError: CUDA out of memory. Tried to allocate 1.00 GiB");
    EXPECT_EQ(a.lines_matched(), 1 + 3 * (sub + oom));
  });
}

TEST(Scan, LinesCutAtTheConsoleWidthAreMatchedWhole) {
  // A PowerShell console 80 columns wide cut the message mid-word; both scan paths join it.
  std::string message =
      "python : 2024-02-03 11:12:13.141516: E onnxruntime: Could not load library "
      "cudnn_cnn_infer64_8.dll. Error code 126";
  std::string text = "PS C:\\work> python run.py\n";
  for (std::size_t i = 0; i < message.size(); i += 80) {
    text += message.substr(i, 80) + "\r\n";
  }
  text += "At line:1 char:1\n";
  on_both_paths(text, [&](const std::vector<kb::Signature>& sigs, const Analysis& a) {
    ASSERT_EQ(a.hits().size(), 1U);
    EXPECT_EQ(sigs[a.hits()[0].signature].id, "sub");
    EXPECT_EQ(a.hits()[0].lines[0].line, 2U);
    EXPECT_EQ(a.hits()[0].lines[0].text, message);
    EXPECT_EQ(a.inputs()[0].lines, 4U);
    EXPECT_EQ(a.inputs()[0].decode.wrap_width, 80U);
    EXPECT_EQ(a.inputs()[0].decode.wrap_joined, 1U);
  });
}

std::vector<std::string> rank_of(std::string_view text, Ranking* out = nullptr) {
  auto sigs = test_signatures();
  SignatureMatcher m(sigs);
  Analysis a(m);
  scan_text("t", text, a);
  Ranking r = rank(a);
  std::vector<std::string> ids;
  for (const auto& c : r.causes) {
    std::string s = c.finding;
    for (const auto& q : c.consequences)
      s += "+" + q;
    ids.push_back(s);
  }
  if (out != nullptr)
    *out = r;
  return ids;
}

TEST(Rank, RootCauseExplainsItsConsequences) {
  EXPECT_EQ(
      rank_of("Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
              "Could not locate zlibwapi.dll. Please make sure it is in your library path!\n"),
      (std::vector<std::string>{"log.zlibwapi_missing+log.cudnn_sublibrary_missing"}));
  EXPECT_EQ(rank_of("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
                    "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n"),
            (std::vector<std::string>{"log.gpu_out_of_memory+log.cudnn_not_initialized"}));
}

TEST(Rank, SymptomsStandInOnlyWithoutACause) {
  Ranking r;
  EXPECT_EQ(rank_of("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n", &r),
            (std::vector<std::string>{"log.cudnn_not_initialized"}));
  ASSERT_EQ(r.causes.size(), 1U);
  EXPECT_TRUE(r.causes[0].from_symptoms);
  // The umbrella message with an unrelated cause: the cause leads, the umbrella is a symptom.
  EXPECT_EQ(rank_of("Cannot dlopen some GPU libraries\n"
                    "RuntimeError: CUDA out of memory. Tried to allocate 1.00 GiB\n",
                    &r),
            (std::vector<std::string>{"log.gpu_out_of_memory"}));
  EXPECT_EQ(r.symptoms.size(), 1U);
}

TEST(Rank, NoiseIsNeverACause) {
  Ranking r;
  EXPECT_TRUE(
      rank_of("Unable to register cuDNN factory: Attempting to register factory\n"
              "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n",
              &r)
          .empty());
  EXPECT_EQ(r.noise.size(), 1U);
  EXPECT_EQ(r.context.size(), 1U);
}

TEST(Rank, OrdersByConfidenceThenPosition) {
  EXPECT_EQ(rank_of("Could not load dynamic library 'libcudnn.so.8'\n"
                    "Could not locate zlibwapi.dll\n"
                    "CUDA out of memory. Tried to allocate 1 GiB\n"),
            (std::vector<std::string>{
                "log.zlibwapi_missing", "log.gpu_out_of_memory", "log.cudnn_not_found"}));
}

} // namespace
} // namespace doctor::explain
