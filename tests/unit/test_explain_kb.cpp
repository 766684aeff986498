// SPDX-License-Identifier: MIT
// The built-in error signatures (data/kb/signatures.json) and how the knowledge base validates
// an edited signatures file.
#include "support/builtin_kb.hpp"

#include <doctor/explain/analysis.hpp>
#include <doctor/explain/matcher.hpp>
#include <doctor/explain/scan.hpp>
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/kb/signatures.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

namespace doctor::kb {
namespace {

TEST(ExplainKb, SignaturesCoverEveryLogFinding) {
  const auto& sigs = test::builtin_kb().signatures();
  EXPECT_GE(sigs.size(), 60U);
  // A finding is reachable when a signature names it, as its finding, its likely cause or one of
  // its alternatives (log.dll_init_failed is the other reading of a DLL's failed start-up).
  std::set<std::string> named;
  for (const Signature& s : sigs) {
    named.insert(s.finding);
    if (s.likely) {
      named.insert(s.likely->finding);
    }
    for (const auto& a : s.alternatives) {
      named.insert(a.finding);
    }
  }
  std::set<std::string> refined;
  for (std::string_view id : doctor::explain::refinement_finding_ids()) {
    refined.insert(std::string(id));
  }
  for (const FindingTemplate& f : test::builtin_kb().findings()) {
    if (f.id.rfind("log.", 0) == 0 && refined.count(f.id) == 0) {
      EXPECT_EQ(named.count(f.id), 1U) << f.id << " is named by no signature";
    }
  }
  std::set<std::string> causes;
  for (const Signature& s : sigs) {
    if (s.role == SignatureRole::cause)
      causes.insert(s.finding);
  }
  EXPECT_GE(causes.size(), 35U);
}

TEST(ExplainKb, EveryExampleMatchesItsOwnPatterns) {
  EXPECT_EQ(unmatched_examples(test::builtin_kb().signatures()), std::vector<std::string>{});
}

TEST(ExplainKb, RolesAreConsistent) {
  for (const Signature& s : test::builtin_kb().signatures()) {
    if (s.role == SignatureRole::noise) {
      EXPECT_EQ(s.finding, "log.harmless_noise") << s.id;
    }
    if (s.role == SignatureRole::context) {
      EXPECT_EQ(s.finding, "log.context") << s.id;
    }
    if (s.role == SignatureRole::symptom) {
      EXPECT_LE(s.confidence, 40) << s.id;
    }
    EXPECT_FALSE(s.source.empty()) << s.id;
  }
}

// An example of a cause, run through the whole matcher, names that cause (or a more specific one
// that matches the same line), and no noise signature matches it.
TEST(ExplainKb, CauseExamplesAreNotNoise) {
  const auto& sigs = test::builtin_kb().signatures();
  explain::SignatureMatcher matcher(sigs, test::builtin_kb().cudnn_library_sets());
  std::vector<explain::LineMatch> out;
  std::vector<std::uint32_t> scratch;
  for (const Signature& s : sigs) {
    if (s.role != SignatureRole::cause)
      continue;
    for (const std::string& example : s.examples) {
      out.clear();
      matcher.match_line(example, out, scratch);
      for (const auto& m : out) {
        EXPECT_NE(sigs[m.signature].role, SignatureRole::noise)
            << s.id << " example is matched by noise " << sigs[m.signature].id << ": " << example;
      }
      explain::Analysis a(matcher);
      explain::scan_text("example", example, a);
      explain::Ranking r = explain::rank(a);
      ASSERT_FALSE(r.causes.empty()) << s.id << ": " << example;
      bool named = false;
      for (const auto& c : r.causes)
        named = named || c.finding == s.finding;
      for (const auto& c : r.causes) {
        for (const auto& q : c.consequences)
          named = named || q == s.finding;
      }
      // Or it yielded to a more confident (more specific) signature matching the same line.
      bool yielded = r.causes.front().confidence > s.confidence;
      EXPECT_TRUE(named || yielded) << s.id << ": " << example;
    }
  }
}

// Each example of a loader rule is read by the loader parser and decided by that rule: the rows
// above it do not take it first.
TEST(ExplainKb, LoaderRuleExamplesReachTheirRule) {
  const auto& sigs = test::builtin_kb().signatures();
  explain::SignatureMatcher matcher(sigs, test::builtin_kb().cudnn_library_sets());
  std::size_t rules = 0;
  for (std::size_t i = 0; i < sigs.size(); ++i) {
    if (!sigs[i].loader) {
      continue;
    }
    ++rules;
    EXPECT_TRUE(sigs[i].patterns.empty()) << sigs[i].id;
    for (const std::string& example : sigs[i].examples) {
      const auto failure = explain::parse_load_failure(example);
      ASSERT_TRUE(failure.has_value()) << sigs[i].id << ": " << example;
      const auto rule = matcher.loader_rule(*failure);
      ASSERT_TRUE(rule.has_value()) << sigs[i].id << ": " << example;
      EXPECT_EQ(sigs[*rule].id, sigs[i].id) << example;
    }
  }
  EXPECT_GE(rules, 10u);
}

// The names a loader rule may use are the parser's.
TEST(ExplainKb, LoaderRuleNamesAreTheParsers) {
  for (std::string_view name : loader_role_names()) {
    EXPECT_TRUE(explain::library_role(name).has_value()) << name;
  }
  for (std::string_view name : loader_kind_names()) {
    EXPECT_TRUE(explain::load_error_kind(name).has_value()) << name;
  }
  EXPECT_EQ(loader_role_names().size(), 14u);
  EXPECT_EQ(loader_kind_names().size(), 9u);
}

std::string with_signature(const std::string& row) {
  return R"({"spec": "cudnn-doctor-kb/1", "kind": "signatures", "signatures": [)" + row + "]}";
}

std::string load_error(const std::string& signatures_json) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& f : embedded_files()) {
    files.emplace_back(f.name,
                       f.name == "signatures.json" ? signatures_json : std::string(f.contents));
  }
  auto kb = KnowledgeBase::load(files);
  return kb ? std::string() : kb.error().message;
}

TEST(ExplainKb, EditedSignaturesAreValidated) {
  const std::string ok = R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause",
      "confidence": 80, "platform": "any", "patterns": ["Could not find (?<lib>\\S+)"],
      "examples": ["Could not find libcudnn.so.9"], "source": "test"})J";
  EXPECT_EQ(load_error(with_signature(ok)), "");
  struct Bad {
    std::string row;
    std::string expect;
  };
  const Bad bad[] = {
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 80,
          "platform": "any", "patterns": ["(?<lib>\\S+) ab+c"], "examples": ["x"], "source": "s"})J",
       "needs a literal of at least 4 characters"},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 80,
          "platform": "any", "patterns": ["Could not find it"], "examples": ["x"], "source": "s"})J",
       "needs \"lib\""},
      {R"J({"id": "t.x", "finding": "log.nope", "role": "cause", "confidence": 80,
          "platform": "any", "patterns": ["Could not find (?<lib>x)"], "examples": ["x"], "source": "s"})J",
       "finding \"log.nope\" is not in findings.json"},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 80,
          "platform": "any", "patterns": ["Could not find (?<lib>x"], "examples": ["x"], "source": "s"})J",
       "patterns[0]: offset"},
      {R"J({"id": "T X", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 80,
          "platform": "any", "patterns": ["Could not find (?<lib>x)"], "examples": ["x"], "source": "s"})J",
       "\"id\" must be"},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "guess", "confidence": 80,
          "platform": "any", "patterns": ["Could not find (?<lib>x)"], "examples": ["x"], "source": "s"})J",
       "\"role\" must be"},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 0,
          "platform": "any", "patterns": ["Could not find (?<lib>x)"], "examples": ["x"], "source": "s"})J",
       "\"confidence\" must be 1..100"},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 9,
          "platform": "mac", "patterns": ["Could not find (?<lib>x)"], "examples": ["x"], "source": "s"})J",
       "\"platform\" must be"},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 9,
          "platform": "any", "patterns": ["Could not find (?<lib>x)"], "explained_by": ["log.x"],
          "examples": ["x"], "source": "s"})J",
       "explained_by \"log.x\""},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 9,
          "platform": "any", "patterns": ["Could not find (?<lib>x)"], "examples": ["x"],
          "source": "s", "colour": "red"})J",
       "unknown field \"colour\""},
      {ok + "," + ok, "duplicate id"},
      {R"J({"id": "t.x", "finding": "log.cudnn_not_found", "role": "cause", "confidence": 80,
          "confidence": 90, "platform": "any", "patterns": ["Could not find (?<lib>x)"],
          "examples": ["x"], "source": "s"})J",
       "the key \"confidence\" appears twice in one object"},
  };
  for (const Bad& b : bad) {
    std::string err = load_error(with_signature(b.row));
    EXPECT_NE(err.find(b.expect), std::string::npos) << b.expect << " / " << err;
    EXPECT_NE(err.find("signatures.json"), std::string::npos) << err;
  }
}

TEST(ExplainKb, BuiltinLiteralsKeepThePrefilterStride) {
  // The sampled prefilter steps by the shortest literal less 3: a signature literal (or loader
  // trigger) under 7 bytes would make it look at more bytes of every log. Lengthen the literal.
  explain::SignatureMatcher m(test::builtin_kb().signatures(),
                              test::builtin_kb().cudnn_library_sets());
  EXPECT_GE(m.literals().stride(), 4U);
}

TEST(ExplainKb, OrdinaryTrainingLinesAreNotCandidates) {
  // The prefilter's worth is that a training log's ordinary lines hold none of the signatures'
  // literals. A literal that such lines do hold ("runtime", which every TensorFlow
  // common_runtime line has) makes explain run the signatures' regexes on most of a log: ten
  // times slower on bench/bench_explain.py's log. These are that log's line shapes.
  explain::SignatureMatcher matcher(test::builtin_kb().signatures(),
                                    test::builtin_kb().cudnn_library_sets());
  const std::string lines[] = {
      "Epoch 3/200 1250/5000 [=======>......................] - ETA: 4:31 - loss: 0.4123 - "
      "accuracy: 0.8812",
      "[2026-11-29 10:14:52,113][INFO] step 52113 lr 0.000431 loss 1.2345 grad_norm 0.812 "
      "tokens/s 41234",
      "  52114/52700 samples, throughput 512 img/s, data time 0.031s, gpu mem 13210 MiB",
      "2026-11-29 10:21:07.052115: I tensorflow/core/common_runtime/executor.cc:1197] "
      "[/job:localhost/replica:0/task:0/device:GPU:0] (DEBUG INFO) Executor start aborting: "
      "INVALID_ARGUMENT: step 52115",
      "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py:561: UserWarning: "
      "This DataLoader will create 8 worker processes in total.",
      "validation: map@0.5 0.6123 map@0.5:0.95 0.4012 (52117)",
      "saving checkpoint to /data/runs/exp3/ckpt_000052118.pt (best so far: 0.40121)",
  };
  for (const std::string& line : lines) {
    std::vector<std::pair<std::size_t, std::size_t>> candidates;
    matcher.literals().candidate_lines(line + "\n", candidates);
    EXPECT_TRUE(candidates.empty()) << "a signature literal occurs in an ordinary line: " << line;
  }
}

TEST(ExplainKb, LikelyCausesAreValidated) {
  // A symptom row names its likely cause (a finding without params) and alternatives below it.
  const std::string head = R"J({"id": "t.s", "finding": "log.cudnn_not_initialized",
      "patterns": ["CUDNN_STATUS_NOT_INITIALIZED"], "platform": "any",
      "examples": ["CUDNN_STATUS_NOT_INITIALIZED"], "source": "s", )J";
  const std::string alt = R"J("alternatives": [{"finding": "log.gpu_arch_not_in_build",
      "confidence": 30, "tell": "t"}], )J";
  const std::string ok = head + alt + R"J("role": "symptom", "confidence": 35,
      "likely": {"finding": "log.gpu_out_of_memory", "confidence": 55, "tell": "t"}})J";
  EXPECT_EQ(load_error(with_signature(ok)), "");
  struct Bad {
    std::string row;
    std::string expect;
  };
  const Bad bad[] = {
      {head + R"J("role": "cause", "confidence": 35,
          "likely": {"finding": "log.gpu_out_of_memory", "confidence": 55, "tell": "t"}})J",
       "\"likely\" is for symptom rows"},
      {head + R"J("role": "symptom", "confidence": 35,
          "likely": {"finding": "log.cudnn_not_found", "confidence": 55, "tell": "t"}})J",
       "takes params"},
      {head + alt + R"J("role": "symptom", "confidence": 35,
          "likely": {"finding": "log.gpu_out_of_memory", "confidence": 30, "tell": "t"}})J",
       "more likely than each alternative"},
      {head + R"J("role": "symptom", "confidence": 35,
          "likely": {"finding": "log.gpu_out_of_memory", "confidence": 55, "tell": ""}})J",
       "field \"tell\" is empty"},
  };
  for (const Bad& b : bad) {
    std::string err = load_error(with_signature(b.row));
    EXPECT_NE(err.find(b.expect), std::string::npos) << b.expect << " / " << err;
  }
}

TEST(ExplainKb, AnAlternativeOfOnePlatformIsLeftOutOfAnotherPlatformsLog) {
  // "A Mac has no CUDA" is an alternative of "Torch not compiled with CUDA enabled" only while
  // the log does not say it comes from Windows or Linux.
  auto alternatives = [](const std::string& text) {
    explain::SignatureMatcher m(test::builtin_kb().signatures(),
                                test::builtin_kb().cudnn_library_sets());
    explain::Analysis a(m);
    explain::scan_text("t", text, a);
    const explain::Ranking r = explain::rank(a);
    std::vector<std::string> out;
    for (const explain::RankedCause& c : r.causes) {
      for (const SignatureAlternative& alt : c.alternatives) {
        out.push_back(alt.finding);
      }
    }
    return out;
  };
  const std::string torch = "AssertionError: Torch not compiled with CUDA enabled\n";
  const auto unknown = alternatives(torch);
  EXPECT_NE(std::find(unknown.begin(), unknown.end(), "log.no_cuda_on_mac"), unknown.end());
  const auto windows = alternatives(
      "OSError: [WinError 126] The specified module could not be found. Error loading "
      "\"C:\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.\n"
      + torch);
  EXPECT_EQ(std::find(windows.begin(), windows.end(), "log.no_cuda_on_mac"), windows.end());
  // The knowledge base refuses a platform that is not one.
  const std::string row = R"J({"id": "t.s", "finding": "log.cudnn_not_initialized",
      "patterns": ["CUDNN_STATUS_NOT_INITIALIZED"], "platform": "any", "role": "symptom",
      "confidence": 60, "examples": ["CUDNN_STATUS_NOT_INITIALIZED"], "source": "s",
      "alternatives": [{"finding": "log.gpu_out_of_memory", "confidence": 30, "tell": "t",
      "platform": "solaris"}]})J";
  EXPECT_NE(load_error(with_signature(row)).find("\"platform\" must be windows, linux or macos"),
            std::string::npos)
      << load_error(with_signature(row));
}

TEST(ExplainKb, AnAmbiguousStatusAloneLeadsWithItsLikelyCause) {
  auto ranked = [](const std::string& text) {
    explain::SignatureMatcher m(test::builtin_kb().signatures(),
                                test::builtin_kb().cudnn_library_sets());
    explain::Analysis a(m);
    explain::scan_text("t", text, a);
    return explain::rank(a);
  };
  const explain::Ranking alone =
      ranked("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n");
  ASSERT_EQ(alone.causes.size(), 1U);
  EXPECT_EQ(alone.causes[0].finding, "log.gpu_out_of_memory");
  EXPECT_TRUE(alone.causes[0].from_symptoms);
  EXPECT_FALSE(alone.causes[0].likely_tell.empty());
  EXPECT_EQ(alone.causes[0].consequences, std::vector<std::string>{"log.cudnn_not_initialized"});
  ASSERT_EQ(alone.causes[0].alternatives.size(), 2U);
  EXPECT_EQ(alone.causes[0].alternatives[0].finding, "log.gpu_arch_not_in_build");
  // With a cause in the log, the status is that cause's consequence, as before.
  const explain::Ranking with_cause = ranked(
      "ImportError: libcudnn.so.8: cannot open shared object file\n"
      "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n");
  ASSERT_FALSE(with_cause.causes.empty());
  EXPECT_EQ(with_cause.causes[0].finding, "log.cudnn_not_found");
  EXPECT_TRUE(with_cause.causes[0].likely_tell.empty());
}

} // namespace
} // namespace doctor::kb
