// SPDX-License-Identifier: MIT
// What `explain` makes of the lines it read: every signature that matched, where, and how often
// (Analysis), and from that the ranked causes (rank()).
//
// Ranking rules:
// - One line is one message: of the cause and symptom signatures matching a line, only the most
//   confident are kept (a catch-all such as "Error code 126" yields to the specific signature).
// - A matched signature whose `explained_by` names a finding that was also found is a
//   consequence; a finding all of whose matches are consequences is attached to the cause that
//   explains it (followed to the root), not listed as a cause of its own.
// - A finding named only by symptom signatures is a cause only when no cause signature matched;
//   otherwise it is listed among the symptoms. Standing in, an ambiguous status whose signature
//   names a "likely" cause (CUDNN_STATUS_NOT_INITIALIZED: a GPU out of memory) gives way to it:
//   that cause leads at its own confidence, the status becomes its consequence, and the
//   signature's alternatives follow with the check that tells each apart.
// - Noise is never a cause; context lines are reported as what the log says.
// - Version refinement: when a CUDA or cuDNN library failed to load (the first such cause) and
//   the head of an input names another release of the same component (CUDA 12.1 where
//   libcudart.so.10.1 was asked for, cudnn64_8.dll where cudnn64_7.dll was), the version mismatch
//   comes first, with both versions and both lines; the missing library stays as a cause.
// - Driver refinement: nvidia-smi's CUDA with a later CUDA major in the report adds "driver too
//   old"; an ambiguous "driver version is insufficient" under a header whose CUDA serves every
//   CUDA the report names puts "driver not reached" first.
// - A cause carries the alternatives of its most confident signature, or, for a message-shaped
//   signature without any, those of the loader rule for the same finding.
// - GPU refinement: a GPU model the report names whose architecture the CUDA release it names
//   cannot serve (a Turing card under CUDA 9.0, a Kepler card under CUDA 12) adds "the GPU is
//   newer (older) than the CUDA", with both lines.
// - Context refinement: a context line whose row "prefers" one of a cause's alternatives (a
//   container for "driver version is insufficient") makes that alternative the cause.
// - cuDNN-release refinement: a loader rule that holds from a cuDNN release on ("cudnn_since")
//   gives way to its first alternative when the report names an older cuDNN of that major.
// - Causes are ordered by confidence (the highest of their signatures, plus what the machine
//   confirms, see machine_join.hpp), then by where they first appear.
#pragma once

#include <doctor/explain/matcher.hpp>
#include <doctor/kb/compat.hpp>
#include <doctor/kb/signatures.hpp>
#include <doctor/util/text_decode.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::explain {

// Lines kept as evidence per signature; further matches are only counted.
inline constexpr std::size_t k_kept_lines = 4;
// Evidence lines are shown up to this many bytes.
inline constexpr std::size_t k_evidence_bytes = 400;
// The head of each input: every line of its first k_head_bytes reaches add_line() (the scanner
// reads it line by line), and those that may name a CUDA or cuDNN version are kept, up to
// k_version_line_bytes of text and k_version_lines lines in all (a report's pasted context is
// short; a training log's head full of "cuda:0" is not worth reading further), for the version
// refinement of rank().
inline constexpr std::size_t k_head_bytes = std::size_t{1} << 20;
inline constexpr std::size_t k_version_line_bytes = std::size_t{4} << 20;
inline constexpr std::size_t k_version_lines = 2000; // and at most this many lines
// Lines of the head that may name a GPU model and no version (gpu_models.hpp), kept apart so that
// a log whose every line says "GPU" does not crowd out the version lines.
inline constexpr std::size_t k_gpu_lines = 200;

struct InputSummary {
  std::string name; // a path, "<stdin>" or "<argument>"
  util::DecodeInfo decode;
  std::uint64_t bytes = 0;
  std::size_t lines = 0;
  bool fast_scan = false; // only candidate lines were decoded (decode counts cover those)
};

struct EvidenceLine {
  std::size_t input = 0; // index into the inputs
  std::size_t line = 0;  // 1-based line number in that input
  std::size_t part = 0;  // piece of a syslog-expanded line
  std::string text;      // at most k_evidence_bytes
};

// Every line one signature matched.
struct SignatureHits {
  std::size_t signature = 0;
  std::size_t count = 0;
  std::vector<EvidenceLine> lines;                         // the first k_kept_lines
  std::vector<std::pair<std::string, std::string>> fields; // of the first match
};

class Analysis {
public:
  explicit Analysis(const SignatureMatcher& matcher)
      : m_matcher(&matcher) {}

  // Starts input `name`; the lines added next belong to it.
  void begin_input(std::string name);
  // Matches one decoded line of the current input. A line equal to a recent one takes its
  // matches from a small cache.
  void add_line(const util::TextLine& line);
  // Closes the current input with what its decoder found.
  void
  end_input(const util::DecodeInfo& decode, std::uint64_t bytes, std::size_t lines, bool fast_scan);

  const SignatureMatcher& matcher() const { return *m_matcher; }
  const std::vector<InputSummary>& inputs() const { return m_inputs; }
  // In order of first appearance. A hit whose count is 0 was withdrawn (a two-line load failure
  // that the first line alone had matched otherwise) and names nothing.
  const std::vector<SignatureHits>& hits() const { return m_hits; }
  std::size_t lines_matched() const { return m_lines_matched; }
  // The lines of the inputs' heads that may name a version (versions.hpp), in order.
  const std::vector<EvidenceLine>& version_lines() const { return m_version_lines; }
  // The lines of the inputs' heads that may name a GPU model but no version, in order.
  const std::vector<EvidenceLine>& gpu_lines() const { return m_gpu_lines; }

private:
  // Lines of at most this many bytes are remembered with their matches.
  static constexpr std::size_t k_cached_line_bytes = 4096;
  struct CachedLine {
    bool valid = false;
    std::string text;
    std::vector<LineMatch> matches; // after the one-message rule
  };

  void
  record(const std::vector<LineMatch>& matches, const util::TextLine& line, bool new_line = true);
  void follow_load_failure(const std::vector<LineMatch>& matches, const util::TextLine& line);
  void withdraw(std::size_t signature, std::size_t input, std::size_t line);

  const SignatureMatcher* m_matcher;
  // Recent distinct lines, by hash (a slot keeps the last line that fell in it): at most
  // 256 x k_cached_line_bytes of text.
  std::vector<CachedLine> m_cache = std::vector<CachedLine>(256);
  std::vector<InputSummary> m_inputs;
  std::vector<SignatureHits> m_hits;
  std::vector<std::size_t> m_hit_of; // signature -> index into m_hits + 1, or 0
  std::vector<LineMatch> m_matches;
  std::vector<std::uint32_t> m_scratch;
  std::size_t m_lines_matched = 0;
  std::size_t m_head_seen = 0; // bytes of the current input's head seen
  std::size_t m_version_bytes = 0;
  std::vector<EvidenceLine> m_version_lines;
  std::vector<EvidenceLine> m_gpu_lines;
  // The last line, when a loader rule matched it without knowing what went wrong: the next line
  // may say (load_error_continuation()).
  std::optional<util::TextLine> m_open_load;
  std::size_t m_open_load_input = 0;
  std::vector<std::size_t> m_open_load_signatures; // the rules that matched it
};

// One cause named by the log.
struct RankedCause {
  std::string finding;                   // findings.json id
  int confidence = 0;                    // 1..100 (machine confirmation may add)
  std::vector<std::size_t> hits;         // indexes into Analysis::hits(), first appearance first
  std::vector<std::string> consequences; // finding ids this cause explains, in order
  std::vector<std::size_t> consequence_hits;
  bool from_symptoms = false; // no cause signature matched: the best symptom stands in
  // Params and evidence that the refinement adds beyond the hits' (a version pair: "expected"
  // from the failed library's name, "found" from the line that names the other version).
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<EvidenceLine> lines;
  // Set when an ambiguous status stands in alone and its signature's "likely" cause leads: how
  // to confirm that cause (the status itself is then the cause's consequence).
  std::string likely_tell;
  // Other causes the most confident of its signatures names, with the check that tells each
  // apart; findings already among the causes are left out.
  std::vector<kb::SignatureAlternative> alternatives;
};

struct Ranking {
  std::vector<RankedCause> causes;   // most likely first
  std::vector<std::size_t> symptoms; // hits of symptoms left aside because a cause was found
  std::vector<std::size_t> noise;    // hits of noise signatures
  std::vector<std::size_t> context;  // hits of context signatures
  // The log's platform, by vote of the signatures that matched and of their evidence (a `.dll`
  // or a drive path says Windows, a `.so` name Linux), taken once the causes are known and before
  // the refinements: "windows", "linux" or "". It picks a driver minimum, alternatives and fixes.
  std::string platform;
};

// Applies the ranking rules to what `analysis` found.
// `compat`, when given, lets the version refinement read framework builds ("torch
// 2.0.0+cu118") as the cuDNN they bring.
Ranking rank(const Analysis& analysis, const kb::CompatTables* compat = nullptr);

// The findings that only the refinements name, from what the report says around the error
// rather than from one message (the GPU refinement's); no signature names them.
std::vector<std::string_view> refinement_finding_ids();

// Orders causes by confidence, then by first appearance. Used again after the machine join.
void order_causes(std::vector<RankedCause>& causes, const Analysis& analysis);

} // namespace doctor::explain
