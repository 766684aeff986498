// SPDX-License-Identifier: MIT
#include <doctor/explain/gpu_models.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <tuple>

namespace doctor::explain {

namespace {

// One word of a text: a maximal run of ASCII letters or of digits, lower-cased.
struct Word {
  std::string text;
  bool joined = false; // follows the previous word without a separator ("a" -> "100" in A100)
  std::size_t begin = 0;
  std::size_t end = 0;
};

bool letter_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool digit_char(char c) {
  return c >= '0' && c <= '9';
}

std::vector<Word> words_of(std::string_view text) {
  std::vector<Word> out;
  std::size_t i = 0;
  bool after_word = false;
  while (i < text.size()) {
    const char c = text[i];
    if (!letter_char(c) && !digit_char(c)) {
      after_word = false;
      ++i;
      continue;
    }
    Word w;
    w.begin = i;
    w.joined = after_word;
    const bool alpha = letter_char(c);
    while (i < text.size() && (alpha ? letter_char(text[i]) : digit_char(text[i]))) {
      w.text.push_back(static_cast<char>(text[i] | (alpha ? 0x20 : 0)));
      ++i;
    }
    w.end = i;
    out.push_back(std::move(w));
    after_word = true;
  }
  return out;
}

// Words that come before the model in a name and that a report may leave out.
bool is_vendor_word(std::string_view w) {
  return w == "nvidia" || w == "geforce" || w == "tesla";
}

// Words that follow the model in a name: a variant a report rarely spells out.
bool is_qualifier_word(std::string_view w) {
  static constexpr std::array<std::string_view, 14> k_words{"laptop",
                                                            "mobile",
                                                            "max",
                                                            "oem",
                                                            "rev",
                                                            "pcie",
                                                            "sxm",
                                                            "hbm",
                                                            "nvl",
                                                            "fhhl",
                                                            "lc",
                                                            "sff",
                                                            "gpu",
                                                            "generation"};
  return std::find(k_words.begin(), k_words.end(), w) != k_words.end();
}

} // namespace

GpuNames::GpuNames(const kb::CompatTables& compat) {
  std::unordered_map<std::string, std::size_t> index; // joined words -> key
  for (const kb::GpuModelRow& row : compat.gpu_models()) {
    std::string_view all = row.name;
    while (!all.empty()) {
      const std::size_t slash = all.find(" / "); // "A16 / A2": two names
      const std::string_view name = all.substr(0, slash);
      all = slash == std::string_view::npos ? std::string_view{} : all.substr(slash + 3);
      std::vector<Word> words = words_of(name);
      std::size_t first = 0;
      while (first < words.size() && is_vendor_word(words[first].text)) {
        ++first;
      }
      Key key;
      for (std::size_t i = first; i < words.size(); ++i) {
        const Word& w = words[i];
        const bool memory = i + 1 < words.size() && digit_char(w.text.front())
                            && words[i + 1].joined && words[i + 1].text == "gb";
        if (memory || (i > first && is_qualifier_word(w.text))
            || (w.text.rfind("sxm", 0) == 0 || w.text.rfind("hbm", 0) == 0)) {
          break;
        }
        key.words.push_back(w.text);
        key.joined.push_back(i > first && w.joined);
      }
      if (key.words.empty() || digit_char(key.words.front().front())) {
        continue;
      }
      std::string id;
      for (std::size_t i = 0; i < key.words.size(); ++i) {
        id += (i > 0 && key.joined[i]) ? "" : " ";
        id += key.words[i];
      }
      auto [it, fresh] = index.try_emplace(id, m_keys.size());
      if (fresh) {
        key.name = std::string(name);
        m_keys.push_back(std::move(key));
      }
      Key& k = m_keys[it->second];
      if (std::find(k.ccs.begin(), k.ccs.end(), row.cc) == k.ccs.end()) {
        k.ccs.push_back(row.cc);
      }
    }
  }
  for (Key& k : m_keys) {
    std::sort(k.ccs.begin(), k.ccs.end());
  }
  for (std::size_t i = 0; i < m_keys.size(); ++i) {
    m_by_first[m_keys[i].words.front()].push_back(i);
  }
}

// Whether a two-character name ("A2", "T4") found up to `end` of `line` begins a cloud machine
// type rather than naming the GPU: GCP's "a2-highgpu-8g", a "-" or "." and a word after it. A
// longer name keeps its variant after a dash ("A100-SXM4-40GB").
bool GpuNames::cloud_machine_type(const Key& key, std::string_view line, std::size_t end) {
  std::size_t chars = 0;
  for (const std::string& w : key.words) {
    chars += w.size();
  }
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  return chars <= 2 && end + 1 < line.size() && (line[end] == '-' || line[end] == '.')
         && letter(line[end + 1]);
}

std::vector<GpuMention> GpuNames::find(std::string_view line) const {
  std::vector<GpuMention> out;
  const std::vector<Word> words =
      words_of(line.substr(0, std::min<std::size_t>(line.size(), 8192)));
  std::size_t i = 0;
  while (i < words.size()) {
    auto it = words[i].joined ? m_by_first.end() : m_by_first.find(words[i].text);
    const Key* best = nullptr;
    if (it != m_by_first.end()) {
      for (std::size_t k : it->second) {
        const Key& key = m_keys[k];
        const std::size_t n = key.words.size();
        if (i + n > words.size() || (best != nullptr && n <= best->words.size())) {
          continue;
        }
        bool fits = true;
        for (std::size_t j = 1; j < n && fits; ++j) {
          fits = words[i + j].text == key.words[j] && (!key.joined[j] || words[i + j].joined);
        }
        // The name ends where the report's word ends: "T4" is not read in "T4x".
        if (fits && (i + n == words.size() || !words[i + n].joined)) {
          best = &key;
        }
      }
    }
    if (best == nullptr || cloud_machine_type(*best, line, words[i + best->words.size() - 1].end)) {
      ++i;
      continue;
    }
    const std::size_t n = best->words.size();
    out.push_back(GpuMention{best->name, best->ccs, words[i].begin, words[i + n - 1].end});
    i += n;
  }
  return out;
}

bool may_name_gpu(std::string_view line) {
  static constexpr std::array<std::string_view, 8> k_words{
      "gpu", "nvidia", "geforce", "rtx", "gtx", "tesla", "quadro", "titan"};
  for (std::size_t i = 0; i + 3 <= line.size(); ++i) {
    const char a = static_cast<char>(line[i] | 0x20);
    for (std::string_view w : k_words) {
      if (a != w[0] || i + w.size() > line.size()) {
        continue;
      }
      bool same = true;
      for (std::size_t j = 1; j < w.size() && same; ++j) {
        same = static_cast<char>(line[i + j] | 0x20) == w[j];
      }
      if (same) {
        return true;
      }
    }
  }
  return false;
}

namespace {

// Whether CUDA `cuda` (a mention: "9.0", or a major alone: "12") is older than release `r`
// ("10.0"): by major and minor, or by major alone when the mention has no minor.
bool cuda_older(const Version& cuda, const Version& r) {
  if (cuda.size() < 2) {
    return cuda.major() < r.major();
  }
  return cuda.truncated(2) < r.truncated(2);
}

// Whether the knowledge base knows a toolkit of release `cuda` (its major and, when given, minor).
bool known_cuda(const Version& cuda, const kb::CompatTables& compat) {
  return std::any_of(
      compat.cuda_drivers().begin(), compat.cuda_drivers().end(), [&](const kb::CudaDriverRow& r) {
        return r.cuda.major() == cuda.major()
               && (cuda.size() < 2 || r.cuda.minor() == cuda.minor());
      });
}

} // namespace

std::optional<RankedCause>
gpu_outside_cuda(const std::vector<const EvidenceLine*>& lines,
                 const std::vector<std::pair<const EvidenceLine*, VersionMention>>& cuda,
                 const kb::CompatTables& compat) {
  std::vector<std::pair<const EvidenceLine*, Version>> releases;
  for (const auto& [line, m] : cuda) {
    if (m.component != VersionComponent::cuda || m.driver_max || !m.via.empty()) {
      continue;
    }
    const auto v = Version::parse(m.version);
    if (v && known_cuda(*v, compat)) {
      releases.emplace_back(line, *v);
    }
  }
  if (releases.empty() || lines.empty()) {
    return std::nullopt;
  }
  const GpuNames names(compat);
  for (const EvidenceLine* gpu_line : lines) {
    for (const GpuMention& g : names.find(gpu_line->text)) {
      std::vector<const kb::ArchitectureRow*> archs;
      for (const Version& cc : g.ccs) {
        archs.push_back(compat.architecture(cc));
      }
      if (archs.empty() || std::find(archs.begin(), archs.end(), nullptr) != archs.end()) {
        continue;
      }
      for (const auto& [cuda_line, release] : releases) {
        const auto& v = release; // a lambda may not capture a structured binding before clang 16
        const bool newer = std::all_of(archs.begin(), archs.end(), [&](const auto* a) {
          return cuda_older(v, a->first_cuda);
        });
        const bool dropped = std::all_of(archs.begin(), archs.end(), [&](const auto* a) {
          return a->removed_in_cuda && !cuda_older(v, *a->removed_in_cuda);
        });
        if (!newer && !dropped) {
          continue;
        }
        const kb::ArchitectureRow& a = *archs.front();
        RankedCause c;
        c.finding = std::string(newer ? kb::ids::k_log_gpu_newer_than_cuda
                                      : kb::ids::k_log_gpu_dropped_by_cuda);
        // Two names in one report are an inference, and a report may tell of two machines: below
        // a message that names its own cause (75 and above), above the ambiguous statuses.
        c.confidence = 74;
        std::string ccs;
        for (const Version& cc : g.ccs) {
          ccs += (ccs.empty() ? "" : " or ") + cc.str();
        }
        c.fields = {{"gpu", g.name}, {"cc", ccs}, {"arch", a.name}, {"cuda", v.str()}};
        if (newer) {
          c.fields.emplace_back("first_cuda", a.first_cuda.str());
        } else {
          c.fields.emplace_back("removed_in", a.removed_in_cuda->str());
        }
        for (const EvidenceLine* l : {gpu_line, cuda_line}) {
          EvidenceLine shown = *l;
          shown.text = std::string(util::cut_utf8(l->text, k_evidence_bytes));
          if (c.lines.empty() || c.lines.front().input != shown.input
              || c.lines.front().line != shown.line || c.lines.front().part != shown.part) {
            c.lines.push_back(std::move(shown));
          }
        }
        std::sort(c.lines.begin(), c.lines.end(), [](const EvidenceLine& x, const EvidenceLine& y) {
          return std::tie(x.input, x.line, x.part) < std::tie(y.input, y.line, y.part);
        });
        return c;
      }
    }
  }
  return std::nullopt;
}

} // namespace doctor::explain
