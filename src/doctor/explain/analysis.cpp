// SPDX-License-Identifier: MIT
#include <doctor/explain/analysis.hpp>
#include <doctor/explain/gpu_models.hpp>
#include <doctor/explain/versions.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/regex.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace doctor::explain {

void Analysis::begin_input(std::string name) {
  m_head_seen = 0;
  InputSummary in;
  in.name = std::move(name);
  m_inputs.push_back(std::move(in));
  if (m_hit_of.size() != m_matcher->signatures().size()) {
    m_hit_of.assign(m_matcher->signatures().size(), 0);
  }
}

void Analysis::add_line(const util::TextLine& line) {
  // A log repeats its lines (one warning a million times): a line seen lately reuses its matches
  // instead of running the signatures again. Matching depends on the text alone.
  if (m_head_seen < k_head_bytes) {
    m_head_seen += line.text.size() + 1;
    auto keep = [&](std::vector<EvidenceLine>& lines) {
      EvidenceLine e;
      e.input = m_inputs.empty() ? 0 : m_inputs.size() - 1;
      e.line = line.number;
      e.part = line.part;
      e.text = util::cut_utf8(line.text, 8192);
      m_version_bytes += e.text.size();
      lines.push_back(std::move(e));
    };
    if (m_version_bytes < k_version_line_bytes) {
      if (may_name_version(line.text)) {
        if (m_version_lines.size() < k_version_lines) {
          keep(m_version_lines);
        }
      } else if (m_gpu_lines.size() < k_gpu_lines && may_name_gpu(line.text)) {
        keep(m_gpu_lines);
      }
    }
  }
  const bool cacheable = line.text.size() <= k_cached_line_bytes;
  CachedLine* slot = nullptr;
  if (cacheable) {
    slot = &m_cache[std::hash<std::string_view>{}(line.text) % m_cache.size()];
    if (slot->valid && slot->text == line.text) {
      record(slot->matches, line);
      follow_load_failure(slot->matches, line);
      return;
    }
  }
  m_matches.clear();
  m_matcher->match_line(line.text, m_matches, m_scratch);
  // One line is one message: when several cause or symptom signatures match it, the most
  // confident (the most specific) names it, and a catch-all that also matched is dropped.
  const auto& sigs = m_matcher->signatures();
  auto judged = [&](const LineMatch& m) {
    auto role = sigs[m.signature].role;
    return role == kb::SignatureRole::cause || role == kb::SignatureRole::symptom;
  };
  int best = 0;
  for (const LineMatch& m : m_matches) {
    if (judged(m)) {
      best = std::max(best, sigs[m.signature].confidence);
    }
  }
  std::erase_if(m_matches, [&](const LineMatch& m) {
    return judged(m) && sigs[m.signature].confidence < best;
  });
  if (slot != nullptr) {
    slot->valid = true;
    slot->text.assign(line.text);
    slot->matches = m_matches;
  }
  record(m_matches, line);
  follow_load_failure(m_matches, line);
}

// A load failure told on two lines (`could not load library "X"`, then "Access is denied."):
// the pair is matched again as one message, with both lines as its evidence.
void Analysis::follow_load_failure(const std::vector<LineMatch>& matches,
                                   const util::TextLine& line) {
  const std::size_t input = m_inputs.empty() ? 0 : m_inputs.size() - 1;
  if (m_open_load && m_open_load_input == input
      && m_open_load->number + m_open_load->span == line.number) {
    if (auto joined = m_matcher->match_loader_continuation(m_open_load->text, line.text)) {
      // The first line alone said less: what its rules made of it is withdrawn.
      for (std::size_t sig : m_open_load_signatures) {
        withdraw(sig, input, m_open_load->number);
      }
      const std::vector<LineMatch> one{std::move(*joined)};
      record(one, *m_open_load, false);
      record(one, line, matches.empty());
    }
  }
  m_open_load.reset();
  m_open_load_signatures.clear();
  const auto& sigs = m_matcher->signatures();
  for (const LineMatch& m : matches) {
    if (sigs[m.signature].loader
        && std::any_of(m.fields.begin(), m.fields.end(), [](const auto& f) {
             return f.first == "kind" && f.second == "unknown";
           })) {
      m_open_load_signatures.push_back(m.signature);
    }
  }
  if (!m_open_load_signatures.empty()) {
    m_open_load = line;
    m_open_load_input = input;
  }
}

void Analysis::withdraw(std::size_t signature, std::size_t input, std::size_t line) {
  const std::size_t slot = m_hit_of[signature];
  if (slot == 0) {
    return;
  }
  SignatureHits& h = m_hits[slot - 1];
  if (h.count > 0) {
    --h.count;
  }
  std::erase_if(h.lines, [&](const EvidenceLine& e) { return e.input == input && e.line == line; });
}

// Counts `matches` (those of `line`) and keeps the line as evidence of each signature that has
// fewer than k_kept_lines.
void Analysis::record(const std::vector<LineMatch>& matches,
                      const util::TextLine& line,
                      bool new_line) {
  if (matches.empty()) {
    return;
  }
  if (new_line) {
    ++m_lines_matched;
  }
  const std::size_t input = m_inputs.empty() ? 0 : m_inputs.size() - 1;
  for (const LineMatch& m : matches) {
    std::size_t& slot = m_hit_of[m.signature];
    if (slot == 0) {
      SignatureHits h;
      h.signature = m.signature;
      h.fields = m.fields;
      m_hits.push_back(std::move(h));
      slot = m_hits.size();
    }
    SignatureHits& h = m_hits[slot - 1];
    ++h.count;
    if (h.lines.size() < k_kept_lines) {
      EvidenceLine e;
      e.input = input;
      e.line = line.number;
      e.part = line.part;
      // Cut on a character boundary: half a UTF-8 sequence is not text, and JSON cannot hold it.
      e.text = util::cut_utf8(line.text, k_evidence_bytes);
      h.lines.push_back(std::move(e));
    }
  }
}

void Analysis::end_input(const util::DecodeInfo& decode,
                         std::uint64_t bytes,
                         std::size_t lines,
                         bool fast_scan) {
  if (m_inputs.empty()) {
    return;
  }
  InputSummary& in = m_inputs.back();
  in.decode = decode;
  in.bytes = bytes;
  in.lines = lines;
  in.fast_scan = fast_scan;
}

namespace {

// Where a hit first appears, for ordering.
std::pair<std::size_t, std::size_t> first_position(const SignatureHits& h) {
  if (h.lines.empty()) {
    return {static_cast<std::size_t>(-1), 0};
  }
  return {h.lines.front().input, h.lines.front().line};
}

// The version a failed library's name asks for, when the cause is such a failure: the CUDA of
// libcudart.so.10.1 ("10.1"; "11" for cudart64_110.dll, whose name every CUDA 11 keeps), the
// cuDNN major of cudnn64_7.dll.
struct Wanted {
  VersionComponent component = VersionComponent::cuda;
  std::string version;
};

std::optional<Wanted> wanted_version(const RankedCause& cause, const Analysis& analysis) {
  const bool cuda = cause.finding == kb::ids::k_log_cuda_library_not_found;
  const bool cudnn = cause.finding == kb::ids::k_log_cudnn_not_found
                     || cause.finding == kb::ids::k_log_cudnn_sublibrary_missing
                     || cause.finding == kb::ids::k_log_cudnn_dependency_missing;
  if (!cuda && !cudnn) {
    return std::nullopt;
  }
  for (std::size_t h : cause.hits) {
    for (const auto& [name, value] : analysis.hits()[h].fields) {
      if (name != "lib") {
        continue;
      }
      const LibraryIdentity id = classify_library(value, analysis.matcher().cudnn_sets());
      if (cuda && !id.cuda_version.empty()) {
        std::string v = id.cuda_version;
        const std::size_t dot = v.find('.');
        if (dot != std::string::npos && util::parse_uint(v.substr(0, dot)).value_or(0) >= 11) {
          v.resize(dot); // cudart64_110: any CUDA 11
        }
        return Wanted{VersionComponent::cuda, v};
      }
      if (cudnn && id.cudnn_major != 0) {
        return Wanted{VersionComponent::cudnn, std::to_string(id.cudnn_major)};
      }
    }
  }
  return std::nullopt;
}

bool same_release(const Wanted& wanted, const VersionMention& m) {
  if (wanted.component == VersionComponent::cuda) {
    return same_cuda_release(wanted.version, m.version);
  }
  return std::to_string(m.major) == wanted.version;
}

// The versions the inputs' heads name, with their lines: read once, when a refinement first
// needs them.
class HeadMentions {
public:
  HeadMentions(const Analysis& analysis, const kb::CompatTables* compat)
      : m_analysis(&analysis)
      , m_compat(compat) {}

  const std::vector<std::pair<const EvidenceLine*, VersionMention>>& all() {
    if (!m_read) {
      m_read = true;
      for (const EvidenceLine& line : m_analysis->version_lines()) {
        for (VersionMention& m : find_version_mentions(line.text)) {
          m_all.emplace_back(&line, std::move(m));
        }
        if (m_compat != nullptr) {
          for (const FrameworkMention& f : find_framework_mentions(line.text)) {
            if (auto m = cudnn_of_build(f)) {
              m_all.emplace_back(&line, std::move(*m));
            }
          }
        }
      }
    }
    return m_all;
  }

private:
  // The cuDNN the knowledge base says a framework build brings (PyTorch's CUDA wheels bundle
  // theirs; the row of that version and CUDA variant names it).
  std::optional<VersionMention> cudnn_of_build(const FrameworkMention& f) const {
    const auto version = Version::parse(f.version);
    if (!version) {
      return std::nullopt;
    }
    for (const kb::FrameworkBuildRow* row :
         m_compat->framework_builds_for(f.framework, *version, kb::Os::linux)) {
      if (row->variant != f.variant || row->cudnn.empty()) {
        continue;
      }
      VersionMention m;
      m.component = VersionComponent::cudnn;
      m.version = row->cudnn;
      m.major = static_cast<unsigned>(
          util::parse_uint(row->cudnn.substr(0, row->cudnn.find('.'))).value_or(0));
      m.via = fmt::format("{} {}+{}", f.framework, f.version, f.variant);
      m.begin = f.begin;
      m.end = f.end;
      return m;
    }
    return std::nullopt;
  }

  const Analysis* m_analysis;
  const kb::CompatTables* m_compat;
  bool m_read = false;
  std::vector<std::pair<const EvidenceLine*, VersionMention>> m_all;
};

EvidenceLine shown_line(const EvidenceLine& line) {
  EvidenceLine shown = line;
  shown.text = std::string(util::cut_utf8(line.text, k_evidence_bytes));
  return shown;
}

// Evidence lines in the order of the input, each line once.
void in_input_order(std::vector<EvidenceLine>& lines) {
  const auto key = [](const EvidenceLine& l) { return std::tie(l.input, l.line, l.part); };
  std::sort(lines.begin(), lines.end(), [&](const EvidenceLine& a, const EvidenceLine& b) {
    return key(a) < key(b);
  });
  lines.erase(
      std::unique(lines.begin(),
                  lines.end(),
                  [&](const EvidenceLine& a, const EvidenceLine& b) { return key(a) == key(b); }),
      lines.end());
}

// Whether one of `causes` names `finding`.
bool names(const std::vector<RankedCause>& causes, std::string_view finding) {
  return std::any_of(
      causes.begin(), causes.end(), [&](const RankedCause& c) { return c.finding == finding; });
}

// The mismatch finding of a version component.
std::string_view mismatch_of(VersionComponent component) {
  return component == VersionComponent::cuda ? kb::ids::k_log_cuda_version_mismatch
                                             : kb::ids::k_log_cudnn_version_mismatch;
}

// The version refinement (see the top of analysis.hpp), on causes already in order.
void refine_versions(std::vector<RankedCause>& causes,
                     const Analysis& analysis,
                     HeadMentions& mentions) {
  // The first library failure (in the causes' order) that the report contradicts: a log that
  // reports libcudnn.so.8 and libnvrtc.so.11.2 missing "in a server with cuda 11.1" has a CUDA
  // mismatch even when the cuDNN failure ranks first.
  for (const RankedCause& failed : causes) {
    const auto wanted = wanted_version(failed, analysis);
    if (!wanted) {
      continue;
    }
    const std::string_view mismatch = mismatch_of(wanted->component);
    if (names(causes, mismatch)) {
      return;
    }
    for (const auto& [line, m] : mentions.all()) {
      if (m.component != wanted->component || m.driver_max || same_release(*wanted, m)) {
        continue; // nvidia-smi's CUDA Version is the driver's newest, not the one installed
      }
      RankedCause c;
      c.finding = std::string(mismatch);
      c.confidence = std::min(95, failed.confidence + 8);
      c.hits = failed.hits;
      c.fields = {{"expected", wanted->version},
                  {"found",
                   m.via.empty() ? m.version
                                 : fmt::format("{}, the cuDNN that {} brings", m.version, m.via)}};
      if (!m.via.empty()) {
        c.fields.emplace_back("found_in", m.via);
      }
      c.lines.push_back(shown_line(*line));
      causes.insert(causes.begin(), std::move(c));
      return;
    }
  }
}

// The version-pair refinement: a line of the head says in its own words that a program was built
// for one cuDNN or CUDA and met another (find_version_pair(): "compiled against 7102 but link
// against 7301"). Unless a signature already named that mismatch, the pair is the cause, with
// both versions and the line as evidence. A line that a signature matched is left to it: the
// signature knows its program's wording (Paddle's "compiled with CUDA 11.8, but CUDA runtime
// version in your machine is 11.2" names the driver's CUDA). A CUDA "found" that the report
// shows as the driver's own CUDA is the driver's, which the driver refinement reads.
void refine_version_pair(std::vector<RankedCause>& causes,
                         const Analysis& analysis,
                         HeadMentions& mentions) {
  for (const EvidenceLine& line : analysis.version_lines()) {
    const auto pair = find_version_pair(line.text);
    if (!pair) {
      continue;
    }
    const bool matched =
        std::any_of(analysis.hits().begin(), analysis.hits().end(), [&](const SignatureHits& h) {
          return h.count > 0 && std::any_of(h.lines.begin(), h.lines.end(), [&](const auto& e) {
                   return e.input == line.input && e.line == line.line;
                 });
        });
    if (matched) {
      continue;
    }
    if (pair->component == VersionComponent::cuda
        && std::any_of(mentions.all().begin(), mentions.all().end(), [&](const auto& lm) {
             return lm.second.driver_max && lm.second.version == pair->found;
           })) {
      return;
    }
    const std::string_view mismatch = mismatch_of(pair->component);
    if (names(causes, mismatch)) {
      return;
    }
    RankedCause c;
    c.finding = std::string(mismatch);
    c.confidence = 80;
    c.fields = {{"expected", pair->expected}, {"found", pair->found}};
    c.lines.push_back(shown_line(line));
    causes.push_back(std::move(c));
    return;
  }
}

// The driver refinement: the head shows the driver's newest CUDA (nvidia-smi's header) and a
// CUDA of a later major that a program was built for or that is installed (torch +cu121,
// libcudart.so.12, nvcc's release 12.1). Such a driver cannot run that CUDA (within a major,
// CUDA's minor-version compatibility lets an older driver of the same major serve), whatever
// the error that followed.
void refine_driver(std::vector<RankedCause>& causes,
                   const Analysis& analysis,
                   HeadMentions& mentions) {
  if (names(causes, kb::ids::k_log_driver_too_old)) {
    return;
  }
  // Cheaply first: without the driver's CUDA in the head there is nothing to compare.
  const bool any_max = std::any_of(
      analysis.version_lines().begin(), analysis.version_lines().end(), [](const EvidenceLine& l) {
        const std::string lower = util::to_lower(l.text);
        return lower.find("cuda version") != std::string::npos
               || lower.find("driver api version") != std::string::npos;
      });
  if (!any_max) {
    return;
  }
  const EvidenceLine* max_line = nullptr;
  std::optional<VersionMention> max;
  const EvidenceLine* newer_line = nullptr;
  std::optional<VersionMention> newer;
  for (const auto& [line, m] : mentions.all()) {
    if (m.component != VersionComponent::cuda) {
      continue;
    }
    if (m.driver_max && !max) {
      max = m;
      max_line = line;
    } else if (!m.driver_max && (!newer || m.major > newer->major)) {
      newer = m;
      newer_line = line;
    }
  }
  if (!max || !newer || newer->major <= max->major) {
    return;
  }
  RankedCause c;
  c.finding = std::string(kb::ids::k_log_driver_too_old);
  c.confidence = 80;
  c.fields = {{"driver_cuda", max->version}, {"cuda", newer->version}};
  // The other reading of the same two versions: the driver is what the machine should have, and
  // the piece of the newer CUDA is the wrong build (a cuDNN or toolkit package for CUDA 12 on a
  // CUDA 11 stack).
  c.alternatives.push_back(kb::SignatureAlternative{
      std::string(kb::ids::k_log_cuda_version_mismatch),
      60,
      fmt::format("the driver must stay as it is (a shared server, a cluster image): the CUDA {} "
                  "component is then the wrong build; install its build for CUDA {}",
                  newer->version,
                  max->version),
      ""});
  for (const EvidenceLine* l : {max_line, newer_line}) {
    c.lines.push_back(shown_line(*l));
  }
  in_input_order(c.lines);
  causes.push_back(std::move(c));
}

// A driver version `line` names: nvidia-smi's "Driver Version: 535.104.05" (its header before
// drivers showed a CUDA Version too: "NVIDIA-SMI 367.57"), NVRM's "Kernel Module  384.69",
// TensorFlow's "driver version: 384.69.0", a reporter's "driver version 368.69". Only a Linux
// and Windows NVIDIA version (a three-digit branch): Windows' own "32.0.15.6094" is not one.
std::optional<Version> driver_version_in(std::string_view line) {
  const std::string lower =
      util::to_lower(line.substr(0, std::min<std::size_t>(line.size(), 4096)));
  constexpr std::array<std::string_view, 3> k_keys{"driver version", "kernel module", "nvidia-smi"};
  for (std::string_view key : k_keys) {
    for (std::size_t at = lower.find(key); at != std::string::npos; at = lower.find(key, at + 1)) {
      std::size_t i = at + key.size();
      while (i < lower.size() && (lower[i] == ' ' || lower[i] == ':' || lower[i] == '=')) {
        ++i;
      }
      if (lower.compare(i, 3, "is ") == 0) {
        i += 3;
      }
      if (auto v = Version::parse_prefix(std::string_view(lower).substr(i));
          v && v->major() >= 100 && v->major() < 1000 && v->str().find('.') != std::string::npos) {
        return v;
      }
    }
  }
  return std::nullopt;
}

// The driver-number refinement: the report names the driver's version and a CUDA release that
// needs a newer driver than that (cuda_drivers.json: the toolkit's minimum, or the minor-version
// compatibility floor of its major, for the log's platform; the lower of Linux's and Windows'
// numbers when the log does not say which). A program built
// for that CUDA cannot run on this driver, whatever error it printed: "driver too old" joins the
// causes with both lines as evidence. The driver refinement reads nvidia-smi's CUDA Version;
// this one reads the driver's own number, which old headers, NVRM lines and reporters give.
void refine_driver_number(std::vector<RankedCause>& causes,
                          const Analysis& analysis,
                          HeadMentions& mentions,
                          const kb::CompatTables& compat,
                          const std::string& platform) {
  if (names(causes, kb::ids::k_log_driver_too_old)) {
    return;
  }
  const EvidenceLine* driver_line = nullptr;
  std::optional<Version> driver;
  for (const auto* all : {&analysis.version_lines(), &analysis.gpu_lines()}) {
    for (const EvidenceLine& line : *all) {
      if (auto d = driver_version_in(line.text); d && (!driver || *d < *driver)) {
        driver = d;
        driver_line = &line;
      }
    }
  }
  if (!driver) {
    return;
  }
  // The log's platform's minimum; both, the lower counting, when the log does not say.
  std::vector<kb::Os> oses;
  if (platform != "windows") {
    oses.push_back(kb::Os::linux);
  }
  if (platform != "linux") {
    oses.push_back(kb::Os::windows);
  }
  const EvidenceLine* cuda_line = nullptr;
  std::optional<Version> needed;
  std::string cuda;
  for (const auto& [line, m] : mentions.all()) {
    if (m.component != VersionComponent::cuda || m.driver_max) {
      continue;
    }
    const auto v = Version::parse(m.version);
    if (!v) {
      continue;
    }
    std::optional<Version> lowest;
    for (kb::Os os : oses) {
      if (auto n = compat.minimum_driver(*v, os, true); n && (!lowest || *n < *lowest)) {
        lowest = n;
      }
    }
    if (lowest && *driver < *lowest && (!needed || *lowest > *needed)) {
      needed = lowest;
      cuda_line = line;
      cuda = m.version;
    }
  }
  if (!needed) {
    return;
  }
  RankedCause c;
  c.finding = std::string(kb::ids::k_log_driver_too_old);
  c.confidence = 80;
  c.fields = {{"driver", driver->str()}, {"cuda", cuda}, {"driver_needed", needed->str()}};
  c.lines = {shown_line(*driver_line), shown_line(*cuda_line)};
  in_input_order(c.lines);
  causes.push_back(std::move(c));
}

// The GPU refinement: a GPU model the report names that the CUDA it names cannot serve
// (gpu_models.hpp).
void refine_gpu(std::vector<RankedCause>& causes,
                const Analysis& analysis,
                HeadMentions& mentions,
                const kb::CompatTables& compat) {
  if (names(causes, kb::ids::k_log_gpu_newer_than_cuda)
      || names(causes, kb::ids::k_log_gpu_dropped_by_cuda)) {
    return;
  }
  std::vector<const EvidenceLine*> lines;
  for (const auto* all : {&analysis.version_lines(), &analysis.gpu_lines()}) {
    for (const EvidenceLine& l : *all) {
      lines.push_back(&l);
    }
  }
  if (auto c = gpu_outside_cuda(lines, mentions.all(), compat)) {
    causes.push_back(std::move(*c));
  }
}

// The nvcc refinement: nvcc rejects an architecture both when the toolkit is older than it
// (compute_86 before CUDA 11.1) and when it is newer than the last toolkit that compiled for it
// (compute_35 from CUDA 12.0 on). The architecture's row (gpus.json) tells which can hold: one
// that no toolkit has dropped can only be newer than this toolkit. For one that was dropped, the
// CUDA releases the report names decide when all of them fall on one side; otherwise the
// dropped reading stays first and the older toolkit is its alternative. For an architecture no
// toolkit has dropped, a report that names only releases that compile for it (and no older one)
// says the nvcc that ran is another toolkit's than the one the user installed.
void refine_nvcc_arch(std::vector<RankedCause>& causes,
                      const Analysis& analysis,
                      HeadMentions& mentions,
                      const kb::CompatTables& compat) {
  for (RankedCause& c : causes) {
    if (c.finding != kb::ids::k_log_nvcc_unsupported_arch || c.hits.empty()) {
      continue;
    }
    const auto& fields = analysis.hits()[c.hits.front()].fields;
    auto arch =
        std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.first == "arch"; });
    const auto name = arch == fields.end() ? std::nullopt : kb::parse_arch_name(arch->second);
    const kb::ArchitectureRow* row = name ? compat.architecture(name->cc) : nullptr;
    if (row == nullptr) {
      continue;
    }
    bool older = false;
    bool newer = false;
    // A toolkit the report says is installed that compiles for the architecture ("I am running
    // with a 3090 and CUDA 11.1"); a package's CUDA tag is the CUDA its build brings, not one
    // on the machine.
    std::optional<std::string> serving;
    for (const auto& [line, m] : mentions.all()) {
      const auto v = Version::parse_prefix(m.version);
      if (m.component != VersionComponent::cuda || m.driver_max || !v || v->size() < 2) {
        continue;
      }
      older = older || *v < row->first_cuda;
      newer = newer || (row->removed_in_cuda && *v >= *row->removed_in_cuda);
      if (!serving && !m.build_tag && m.via.empty() && *v >= row->first_cuda) {
        serving = m.version;
      }
    }
    // The reading the refinement settles on, and the other one first among its alternatives.
    const auto settle = [&](std::string_view finding, std::string_view other, std::string tell) {
      c.finding = std::string(finding);
      c.fields.emplace_back("first_cuda", row->first_cuda.str());
      c.fields.emplace_back("name", row->name);
      c.alternatives.insert(c.alternatives.begin(),
                            kb::SignatureAlternative{std::string(other), 40, std::move(tell), ""});
    };
    if (!row->removed_in_cuda && !older && serving) {
      // No release older than the architecture is named, and one that compiles for it is:
      // the nvcc that ran belongs to another toolkit than the one the report names.
      settle(kb::ids::k_log_nvcc_from_another_toolkit,
             kb::ids::k_log_nvcc_older_than_arch,
             fmt::format("`which -a nvcc` finds a single nvcc, and `nvcc --version` shows a "
                         "release before CUDA {}: CUDA {} is not installed where the build "
                         "looks, so install it",
                         row->first_cuda.str(),
                         *serving));
      c.fields.emplace_back("cuda", *serving);
      continue;
    }
    if (!row->removed_in_cuda || (older && !newer)) {
      // The same two facts read from the GPU's side: a GPU newer than every toolkit the build
      // may use is served by leaving its architecture out.
      settle(kb::ids::k_log_nvcc_older_than_arch,
             kb::ids::k_log_nvcc_unsupported_arch,
             fmt::format("the toolkit cannot change (a container image, a cluster module): the "
                         "{} GPU is then too new for this build; leave {} out of its list",
                         row->name,
                         arch->second));
      continue;
    }
    if (!newer) {
      c.alternatives.insert(
          c.alternatives.begin(),
          kb::SignatureAlternative{
              std::string(kb::ids::k_log_nvcc_older_than_arch),
              40,
              fmt::format("`nvcc --version` shows a release before CUDA {}, the first that "
                          "compiles for {} ({})",
                          row->first_cuda.str(),
                          arch->second,
                          row->name),
              ""});
    }
  }
}

// The named-dependency refinement: a failure to load a module that names none of the DLLs it
// depends on ("DLL load failed while importing dlib", a program's GPU build) is made specific by
// a CUDA or cuDNN library file the report names elsewhere ("fails to find curand64_10.dll", a
// Process Monitor trace that shows cublas64_80.dll absent): that library is the missing
// dependency, and the unnamed reading stays behind it.
void refine_named_dependency(std::vector<RankedCause>& causes, const Analysis& analysis) {
  if (causes.empty()
      || (causes.front().finding != kb::ids::k_log_dll_dependency_missing
          && causes.front().finding != kb::ids::k_log_gpu_module_dependencies_missing)) {
    return;
  }
  // Any library file name; which library it is, the loader parser's classifier says.
  static const auto file =
      Regex::compile("(?i)\\b[a-z][a-z0-9_+-]*(?:\\.dll|\\.so(?:\\.\\d+)+)\\b");
  if (!file) {
    return;
  }
  RegexMatch m;
  for (const EvidenceLine& line : analysis.version_lines()) {
    const std::string_view text = line.text;
    for (std::size_t from = 0;
         from < text.size() && file->search(text.substr(from), &m) && m.end > m.begin;
         from += m.end) {
      const std::string name = util::to_lower(text.substr(from + m.begin, m.end - m.begin));
      const LibraryRole role = classify_library(name, analysis.matcher().cudnn_sets()).role;
      if (role != LibraryRole::cuda_runtime && role != LibraryRole::cuda_library
          && role != LibraryRole::cudnn && role != LibraryRole::cudnn_sublibrary) {
        continue;
      }
      // The loader rules say what that library's absence means, as for a message naming it.
      LoadFailure missing;
      missing.library = name;
      missing.kind = LoadErrorKind::not_found;
      missing.windows = name.ends_with(".dll");
      const auto rule = analysis.matcher().loader_rule(missing);
      if (!rule) {
        continue;
      }
      RankedCause c;
      c.finding = analysis.matcher().signatures()[*rule].finding;
      c.confidence = std::min(95, causes.front().confidence + 5);
      c.fields = {{"lib", name}};
      c.lines.push_back(shown_line(line));
      c.lines.insert(c.lines.end(), causes.front().lines.begin(), causes.front().lines.end());
      causes.insert(causes.begin(), std::move(c));
      return;
    }
  }
}

// The compute capability a line states after the word "capability" ("with at least compute
// capability 2.0", "requires compute capability >= 8.0"), or nullopt.
std::optional<Version> stated_capability(std::string_view text) {
  const std::string lower =
      util::to_lower(text.substr(0, std::min<std::size_t>(text.size(), 4096)));
  const std::size_t at = lower.find("capability");
  if (at == std::string::npos) {
    return std::nullopt;
  }
  const std::size_t end = std::min(lower.size(), at + 40);
  for (std::size_t i = at; i + 2 < end; ++i) {
    if (util::is_digit(lower[i]) && lower[i + 1] == '.' && util::is_digit(lower[i + 2])
        && (i + 3 >= lower.size() || !util::is_digit(lower[i + 3]))) {
      return Version::parse(std::string_view(lower).substr(i, 3));
    }
  }
  return std::nullopt;
}

// The capability refinement: a line that names a compute capability the software needs or the
// GPU has ("This program needs a CUDA-Enabled GPU (with at least compute capability 2.0)"),
// read as "the GPU is too old", while the report names a GPU model whose every capability
// meets it (a GTX 1080, 6.1): that GPU is new enough, so the program did not see it. A CUDA
// runtime finds no usable device when the driver is older than the program's CUDA, or absent.
void refine_capability(std::vector<RankedCause>& causes,
                       const Analysis& analysis,
                       const kb::CompatTables& compat) {
  std::optional<GpuNames> gpu_names;
  for (RankedCause& c : causes) {
    if (c.finding != kb::ids::k_log_gpu_too_old_for_software || c.hits.empty()) {
      continue;
    }
    const SignatureHits& hit = analysis.hits()[c.hits.front()];
    if (hit.lines.empty()) {
      continue;
    }
    const auto needed = stated_capability(hit.lines.front().text);
    if (!needed) {
      continue;
    }
    if (!gpu_names) {
      gpu_names.emplace(compat);
    }
    // Every GPU the report names must meet it: with a GT 520 (2.1) beside a GTX 1080, the
    // line may be about the GT 520.
    const EvidenceLine* gpu_line = nullptr;
    bool all_meet = true;
    for (const auto* all : {&analysis.gpu_lines(), &analysis.version_lines()}) {
      for (const EvidenceLine& l : *all) {
        for (const GpuMention& g : gpu_names->find(l.text)) {
          const bool meets =
              !g.ccs.empty() && std::all_of(g.ccs.begin(), g.ccs.end(), [&](const Version& v) {
                return v >= *needed;
              });
          all_meet = all_meet && meets;
          if (meets && gpu_line == nullptr) {
            gpu_line = &l;
          }
        }
      }
    }
    if (gpu_line == nullptr || !all_meet) {
      continue;
    }
    c.finding = std::string(kb::ids::k_log_driver_too_old);
    c.confidence = std::min(c.confidence, 60);
    c.likely_tell = fmt::format(
        "the GPU the report names has compute capability {} or more, so the program did not see "
        "it: nvidia-smi's CUDA Version is below the CUDA the program was built with",
        needed->str());
    c.alternatives.clear();
    c.alternatives.push_back(kb::SignatureAlternative{
        std::string(kb::ids::k_log_driver_not_loaded),
        50,
        "nvidia-smi fails or lists no GPU where the program runs: no driver is loaded there",
        ""});
    c.lines.push_back(shown_line(*gpu_line));
  }
}

// The driver-present refinement: CUDA reports "driver version is insufficient" (error 35) both
// for a driver that is too old and for no driver at all, and a container started without the
// GPU sees none. When the report's own nvidia-smi header shows a driver whose CUDA is of the
// same major as every CUDA the report names (one at least), or newer, that driver is not too
// old: the program does not reach it. Then "the driver is not reachable" leads, with the header
// line as evidence and how to confirm it; "too old" stays as the next cause.
void refine_driver_present(std::vector<RankedCause>& causes,
                           const Analysis& analysis,
                           HeadMentions& mentions) {
  if (causes.empty() || causes.front().finding != kb::ids::k_log_driver_too_old
      || causes.front().hits.empty() || names(causes, kb::ids::k_log_driver_not_loaded)) {
    return;
  }
  // Only a status that means either (its signature names the missing driver as the other
  // cause): a requirement check such as nvidia-container-cli's "cuda>=12.4" is not ambiguous.
  const auto& sigs = analysis.matcher().signatures();
  const bool ambiguous =
      std::all_of(causes.front().hits.begin(), causes.front().hits.end(), [&](std::size_t i) {
        const auto& alts = sigs[analysis.hits()[i].signature].alternatives;
        return std::any_of(alts.begin(), alts.end(), [](const kb::SignatureAlternative& a) {
          return a.finding == kb::ids::k_log_driver_not_loaded;
        });
      });
  if (!ambiguous) {
    return;
  }
  const EvidenceLine* max_line = nullptr;
  std::optional<VersionMention> max;
  for (const auto& [line, m] : mentions.all()) {
    if (m.component == VersionComponent::cuda && m.driver_max) {
      max = m;
      max_line = line;
      break;
    }
  }
  if (!max || max->major == 0) {
    return;
  }
  // The CUDA the program uses must be named, and not only as the driver's own version said
  // again ("is it compatible with cuda 11.4?" under a header that says 11.4): without it,
  // nothing says the driver is new enough.
  unsigned newest_major = 0;
  bool program_cuda_named = false;
  for (const auto& [line, m] : mentions.all()) {
    if (m.component == VersionComponent::cuda && !m.driver_max) {
      newest_major = std::max(newest_major, m.major);
      program_cuda_named = program_cuda_named || m.version != max->version;
    }
  }
  if (!program_cuda_named || newest_major > max->major) {
    return;
  }
  RankedCause c;
  c.finding = std::string(kb::ids::k_log_driver_not_loaded);
  c.confidence = std::min(95, causes.front().confidence + 3);
  c.hits = causes.front().hits;
  c.lines.push_back(shown_line(*max_line));
  c.likely_tell = fmt::format(
      "the nvidia-smi output in the report shows a driver for CUDA {}, new enough for the CUDA "
      "the program uses; where the program runs (inside its container, WSL or virtual machine) "
      "nvidia-smi fails or lists no GPU, or another libcuda is found first (LD_DEBUG=libs)",
      max->version);
  RankedCause& too_old = causes.front();
  too_old.alternatives.erase(std::remove_if(too_old.alternatives.begin(),
                                            too_old.alternatives.end(),
                                            [](const kb::SignatureAlternative& a) {
                                              return a.finding == kb::ids::k_log_driver_not_loaded;
                                            }),
                             too_old.alternatives.end());
  causes.insert(causes.begin(), std::move(c));
}

// The cuDNN-release refinement: a loader rule that holds only from a cuDNN release on
// ("cudnn_since": zlibwapi.dll is a dependency of cuDNN 8's cnn and adv libraries from 8.3) is
// contradicted by a report that names an older cuDNN of that major ("Loaded cuDNN version
// 8100"). Such a cause gives way to the rule's first alternative, with the line that names the
// release as evidence.
void refine_cudnn_since(std::vector<RankedCause>& causes,
                        const Analysis& analysis,
                        HeadMentions& mentions) {
  const auto& sigs = analysis.matcher().signatures();
  for (RankedCause& c : causes) {
    if (c.hits.empty()) {
      continue;
    }
    const kb::Signature& first = sigs[analysis.hits()[c.hits.front()].signature];
    if (!first.loader || first.loader->cudnn_since.empty() || first.alternatives.empty()
        || first.finding != c.finding) {
      continue;
    }
    const bool one_rule = std::all_of(c.hits.begin(), c.hits.end(), [&](std::size_t i) {
      return analysis.hits()[i].signature == analysis.hits()[c.hits.front()].signature;
    });
    const auto since = Version::parse(first.loader->cudnn_since);
    if (!one_rule || !since) {
      continue;
    }
    for (const auto& [line, m] : mentions.all()) {
      const auto v = Version::parse(m.version);
      if (m.component != VersionComponent::cudnn || m.from_library_name
          || m.major != first.loader->cudnn_major || !v || v->size() < 2 || *v >= *since) {
        continue;
      }
      const kb::SignatureAlternative instead = first.alternatives.front();
      c.finding = instead.finding;
      c.confidence = instead.confidence;
      c.alternatives.erase(std::remove_if(c.alternatives.begin(),
                                          c.alternatives.end(),
                                          [&](const kb::SignatureAlternative& a) {
                                            return a.finding == instead.finding;
                                          }),
                           c.alternatives.end());
      c.lines.push_back(shown_line(*line));
      break;
    }
  }
}

// The context refinement: a context line that prefers one of a cause's own alternatives ("in a
// docker" for "driver version is insufficient": the container does not reach the driver) makes
// that alternative the cause, with the context line as evidence, how to confirm it, and the
// first reading as its alternative.
void refine_by_context(std::vector<RankedCause>& causes,
                       const Analysis& analysis,
                       const std::vector<std::size_t>& context_hits) {
  const auto& sigs = analysis.matcher().signatures();
  for (std::size_t i : context_hits) {
    const SignatureHits& hit = analysis.hits()[i];
    for (const kb::ContextPreference& pref : sigs[hit.signature].prefers) {
      if (hit.lines.empty() || names(causes, pref.finding)) {
        continue;
      }
      for (RankedCause& c : causes) {
        auto alt = std::find_if(
            c.alternatives.begin(), c.alternatives.end(), [&](const kb::SignatureAlternative& a) {
              return a.finding == pref.finding;
            });
        if (c.finding != pref.over || alt == c.alternatives.end()) {
          continue;
        }
        const kb::SignatureAlternative chosen = *alt;
        c.alternatives.erase(alt);
        c.alternatives.insert(
            c.alternatives.begin(),
            kb::SignatureAlternative{pref.over, chosen.confidence, pref.tell, ""});
        c.finding = pref.finding;
        c.likely_tell = chosen.tell;
        c.lines.push_back(shown_line(hit.lines.front()));
        break;
      }
    }
  }
}

// The alternatives a cause's most confident signature names. A message-shaped signature that
// names none (TensorFlow's "Could not load dynamic library", glibc's "cannot open shared object
// file") reads the same failure as the loader rule for its finding, so it takes that rule's
// alternatives: a missing libcudnn.so.8 may be a cuDNN of another major, whichever wording
// reported it. Only a rule for a library not found reads such a failure: the driver's missing
// entry point is read as a driver too old, but "the driver is too old" in words has not the
// entry point's other readings.
const std::vector<kb::SignatureAlternative>&
alternatives_of(const kb::Signature& top, const std::vector<kb::Signature>& sigs) {
  if (!top.alternatives.empty() || top.loader) {
    return top.alternatives;
  }
  const auto not_found = [](const kb::LoaderRule& r) {
    return r.kinds.empty()
           || std::find(r.kinds.begin(), r.kinds.end(), "not_found") != r.kinds.end();
  };
  for (const kb::Signature& s : sigs) {
    if (s.loader && not_found(*s.loader) && s.finding == top.finding && !s.alternatives.empty()
        && (s.platform == "any" || top.platform == "any" || s.platform == top.platform)) {
      return s.alternatives;
    }
  }
  return top.alternatives;
}

// Alternatives that only one platform has ("a Mac has no CUDA") are left out when the log's
// platform vote names another.
void drop_other_platforms(std::vector<RankedCause>& causes, const std::string& platform) {
  if (platform.empty()) {
    return;
  }
  for (RankedCause& c : causes) {
    std::erase_if(c.alternatives, [&](const kb::SignatureAlternative& a) {
      return !a.platform.empty() && a.platform != platform;
    });
  }
}

} // namespace

std::vector<std::string_view> refinement_finding_ids() {
  return {kb::ids::k_log_gpu_newer_than_cuda,
          kb::ids::k_log_gpu_dropped_by_cuda,
          kb::ids::k_log_nvcc_older_than_arch,
          kb::ids::k_log_nvcc_from_another_toolkit};
}

void order_causes(std::vector<RankedCause>& causes, const Analysis& analysis) {
  auto pos = [&](const RankedCause& c) {
    return c.hits.empty() ? std::pair{static_cast<std::size_t>(-1), std::size_t{0}}
                          : first_position(analysis.hits()[c.hits.front()]);
  };
  std::stable_sort(causes.begin(), causes.end(), [&](const RankedCause& a, const RankedCause& b) {
    if (a.confidence != b.confidence) {
      return a.confidence > b.confidence;
    }
    return pos(a) < pos(b);
  });
}

namespace {

// The log's platform, by vote: "windows", "linux", or "" when the ranking's hits do not say.
// The platforms of the signatures that matched vote, and so does the evidence itself (a captured
// or quoted `.dll` or a drive path says Windows, a `.so` name says Linux).
std::string platform_vote(const Analysis& analysis, const Ranking& ranking) {
  std::size_t on_windows = 0;
  std::size_t on_linux = 0;
  auto count = [&](std::size_t hit) {
    const SignatureHits& h = analysis.hits()[hit];
    const auto& s = analysis.matcher().signatures()[h.signature];
    on_windows += s.platform == "windows" ? 1 : 0;
    on_linux += s.platform == "linux" ? 1 : 0;
    for (const auto& [name, value] : h.fields) {
      on_windows += value.ends_with(".dll") || value.ends_with(".DLL") ? 1 : 0;
      on_linux += value.find(".so") != std::string::npos && !value.ends_with(".dll") ? 1 : 0;
    }
    for (const EvidenceLine& l : h.lines) {
      const std::string& t = l.text;
      bool drive = false;
      for (std::size_t i = 0; i + 2 < t.size() && !drive; ++i) {
        drive = ((t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= 'a' && t[i] <= 'z')) && t[i + 1] == ':'
                && t[i + 2] == '\\'
                && (i == 0 || t[i - 1] == ' ' || t[i - 1] == '"' || t[i - 1] == '\'');
      }
      on_windows += drive ? 1 : 0;
    }
  };
  for (const RankedCause& c : ranking.causes) {
    for (std::size_t h : c.hits) {
      count(h);
    }
    for (std::size_t h : c.consequence_hits) {
      count(h);
    }
  }
  for (std::size_t h : ranking.symptoms) {
    count(h);
  }
  for (std::size_t h : ranking.context) {
    count(h);
  }
  if (on_windows > on_linux) {
    return "windows";
  }
  if (on_linux > on_windows) {
    return "linux";
  }
  return "";
}

} // namespace

Ranking rank(const Analysis& analysis, const kb::CompatTables* compat) {
  const auto& sigs = analysis.matcher().signatures();
  const auto& hits = analysis.hits();
  Ranking out;

  // Findings named by cause/symptom signatures, with their hits.
  std::map<std::string, std::vector<std::size_t>> by_finding;
  std::vector<std::string> order; // findings in order of first appearance
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (hits[i].count == 0) {
      continue; // withdrawn
    }
    const kb::Signature& s = sigs[hits[i].signature];
    switch (s.role) {
    case kb::SignatureRole::noise:
      out.noise.push_back(i);
      continue;
    case kb::SignatureRole::context:
      out.context.push_back(i);
      continue;
    case kb::SignatureRole::cause:
    case kb::SignatureRole::symptom:
      break;
    }
    auto [it, fresh] = by_finding.try_emplace(s.finding);
    if (fresh) {
      order.push_back(s.finding);
    }
    it->second.push_back(i);
  }
  std::set<std::string> present(order.begin(), order.end());

  // A finding is a consequence when every one of its hits is explained by another finding that
  // is present; it is explained by the first such finding of its first hit.
  std::map<std::string, std::string> explained_by;
  for (const std::string& f : order) {
    std::string by;
    bool all = true;
    for (std::size_t i : by_finding[f]) {
      const kb::Signature& s = sigs[hits[i].signature];
      auto e = std::find_if(s.explained_by.begin(),
                            s.explained_by.end(),
                            [&](const std::string& x) { return x != f && present.count(x) != 0; });
      if (e == s.explained_by.end()) {
        all = false;
        break;
      }
      if (by.empty()) {
        by = *e;
      }
    }
    if (all && !by.empty()) {
      explained_by[f] = by;
    }
  }
  // The root of a chain of explanations; a cycle leaves the findings in it as causes.
  auto root_of = [&](const std::string& f) {
    std::string cur = f;
    std::set<std::string> seen{cur};
    while (explained_by.count(cur) != 0) {
      const std::string& next = explained_by[cur];
      if (!seen.insert(next).second) {
        return f;
      }
      cur = next;
    }
    return cur;
  };

  auto only_symptoms = [&](const std::string& f) {
    return std::all_of(by_finding[f].begin(), by_finding[f].end(), [&](std::size_t i) {
      return sigs[hits[i].signature].role == kb::SignatureRole::symptom;
    });
  };
  bool any_cause = false;
  for (const std::string& f : order) {
    std::string r = root_of(f);
    if (r == f && !only_symptoms(f)) {
      any_cause = true;
    }
  }

  std::map<std::string, std::size_t> index; // finding -> index into out.causes
  for (const std::string& f : order) {
    std::string r = root_of(f);
    if (r != f) {
      continue;
    }
    if (only_symptoms(f) && any_cause) {
      for (std::size_t i : by_finding[f]) {
        out.symptoms.push_back(i);
      }
      continue;
    }
    RankedCause c;
    c.finding = f;
    c.from_symptoms = only_symptoms(f);
    c.hits = by_finding[f];
    const kb::Signature* top = nullptr;
    for (std::size_t i : c.hits) {
      const kb::Signature& s = sigs[hits[i].signature];
      if (top == nullptr || s.confidence > top->confidence) {
        top = &s;
      }
      c.confidence = std::max(c.confidence, s.confidence);
    }
    if (c.from_symptoms && top->likely && present.count(top->likely->finding) == 0) {
      // An ambiguous status alone: its most likely cause leads, the status is what was seen.
      c.consequences.push_back(f);
      c.consequence_hits = c.hits;
      c.finding = top->likely->finding;
      c.confidence = top->likely->confidence;
      c.likely_tell = top->likely->tell;
    }
    for (const kb::SignatureAlternative& a : alternatives_of(*top, sigs)) {
      if (present.count(a.finding) == 0 && a.finding != c.finding) {
        c.alternatives.push_back(a);
      }
    }
    index[f] = out.causes.size();
    out.causes.push_back(std::move(c));
  }
  for (const std::string& f : order) {
    std::string r = root_of(f);
    if (r == f) {
      continue;
    }
    auto it = index.find(r);
    if (it == index.end()) { // its root is a symptom left aside: so is this
      for (std::size_t i : by_finding[f]) {
        out.symptoms.push_back(i);
      }
      continue;
    }
    RankedCause& c = out.causes[it->second];
    c.consequences.push_back(f);
    for (std::size_t i : by_finding[f]) {
      c.consequence_hits.push_back(i);
    }
  }
  refine_by_context(out.causes, analysis, out.context);
  order_causes(out.causes, analysis);
  out.platform = platform_vote(analysis, out);
  HeadMentions mentions(analysis, compat);
  refine_cudnn_since(out.causes, analysis, mentions);
  order_causes(out.causes, analysis);
  refine_named_dependency(out.causes, analysis);
  refine_versions(out.causes, analysis, mentions);
  refine_version_pair(out.causes, analysis, mentions);
  refine_driver(out.causes, analysis, mentions);
  if (compat != nullptr) {
    refine_driver_number(out.causes, analysis, mentions, *compat, out.platform);
    refine_gpu(out.causes, analysis, mentions, *compat);
    refine_nvcc_arch(out.causes, analysis, mentions, *compat);
    refine_capability(out.causes, analysis, *compat);
  }
  order_causes(out.causes, analysis);
  refine_driver_present(out.causes, analysis, mentions);
  drop_other_platforms(out.causes, out.platform);
  return out;
}

} // namespace doctor::explain
