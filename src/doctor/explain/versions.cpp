// SPDX-License-Identifier: MIT
#include <doctor/explain/versions.hpp>
#include <doctor/util/regex.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/version.hpp>

#include <algorithm>
#include <array>

namespace doctor::explain {

namespace {

// How the captured text becomes a version.
enum class Form {
  version,      // "11.8", "8.9.2": as written (a CUDA version keeps major.minor)
  cuda_tag,     // "118" -> 11.8, "92" -> 9.2, "12" -> 12 (wheel and package tags)
  cuda_windows, // the digits of cudart64_110.dll: 110 -> 11.0, 12 -> 12, 90 -> 9.0
  cudnn_number, // 8902 -> 8.9.2
  cudnn_major,  // 8 of cudnn64_8.dll
};

struct Pattern {
  VersionComponent component;
  Form form;
  bool library;
  const char* regex; // one named group, "v"
  bool driver_max = false;
};

constexpr std::array<Pattern, 19> k_patterns{{
    // The driver's newest CUDA: nvidia-smi's header and -q output, Paddle's Driver API Version.
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)driver version:\\s*\\S+\\s+cuda version:\\s*(?<v>\\d{1,2}\\.\\d)",
     true},
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)(?:^\\s*cuda version\\s+: |driver api version: )(?<v>\\d{1,2}\\.\\d)",
     true},
    // An issue form's one field for both (TensorFlow's, PyTorch's, ONNX Runtime's templates):
    // "CUDA/cuDNN version: 10.2, 8.0.2", "CUDA/cuDNN version: 10.1 / 7.6.5". The first version
    // is CUDA's, the second cuDNN's.
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)\\bcuda\\s*/\\s*cudnn(?:\\s*versions?)?[*\\s]*[:=]?[*\\s]*(?:cuda\\s*[:=]?\\s*)?v?"
     "(?<v>(?:[7-9]|1[0-3])\\.\\d)\\b"},
    {VersionComponent::cudnn,
     Form::version,
     false,
     "(?i)\\bcuda\\s*/\\s*cudnn(?:\\s*versions?)?[*\\s]*[:=]?[*\\s]*(?:cuda\\s*[:=]?\\s*)?v?"
     "(?:[7-9]|1[0-3])(?:\\.\\d+){1,3}\\s*(?:[,/&+-]|and|with)\\s*(?:cudnn\\s*[:=]?\\s*)?v?"
     "(?<v>[5-9](?:\\.\\d+){1,3})\\b"},
    // "CUDA 11.8", "cuda:8.0", "cuda12.1", "CUDA：11.3", "CUDA\v10.1", "cuda-12.1",
    // "CUDA Version: 12.2", "CUDA runtime version: 12.1.105", "cudatoolkit 11.3.1", "+cuda12.1".
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)\\bcuda(?:\\s*(?:toolkit|runtime|version|ver\\.?|版本))*\\s*(?:[:=_/"
     "\\\\-]|：|is|是|为)?\\s*v?"
     "(?<v>(?:[7-9]|1[0-3])\\.\\d)\\b"},
    // "CUDA 12", "cuda-11" (a major alone).
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)\\bcuda(?:\\s*(?:toolkit|version))?[ :_-]?v?(?<v>1[0-3])(?:[^.0-9A-Za-z_]|$)"},
    // "CUDA 9", "CUDA8", "cuda-9" (an old major alone), not after a colon: "cuda:7" is a device.
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)\\bcuda(?:\\s*(?:toolkit|version))?[ -]?v?(?<v>[7-9])(?:[^.0-9A-Za-z_:]|$)"},
    // "torch 2.0.1+cu118", "mxnet-cu112", "nvidia-cudnn-cu12".
    {VersionComponent::cuda, Form::cuda_tag, false, "(?i)[+_-]cu(?<v>\\d{2,3})\\b"},
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)compilation tools, release (?<v>\\d{1,2}\\.\\d)"},
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)cuda used to build \\w+: (?<v>\\d{1,2}\\.\\d)"},
    {VersionComponent::cuda,
     Form::cuda_windows,
     true,
     // The CUDA libraries whose names carry CUDA's version (not cuFFT, cuRAND, cuSOLVER or
     // cuSPARSE, which number their own releases: CUDA 11 ships cufft64_10.dll).
     "(?i)\\b(?:cudart|cublas(?:lt)?|nvrtc(?:-builtins)?|nvjitlink|"
     "nvjpeg|cupti)64_(?<v>\\d{2,3})"},
    // libcudart.so.10.1, libcublas.so.11, "libcudart so.8.0", "ibcudart.so.10.1".
    {VersionComponent::cuda,
     Form::version,
     true,
     "(?i)\\bl?ib(?:cudart|cublas(?:lt)?|nvrtc(?:-builtins)?|"
     "nvjitlink|nvjpeg|cupti)(?:\\.|\\s+)so\\.(?<v>\\d{1,2}(?:\\.\\d)?)"},
    // "cuDNN: 7.4.2", "cudnn 8.2.1", "CUDNN：8.9.1", "CuDNN library: 8.5.0", "cudnn-8.0".
    {VersionComponent::cudnn,
     Form::version,
     false,
     "(?i)\\bcudnn(?:\\s*(?:version|library|runtime|版本))*\\s*(?:[:=_/-]|：|is|是|为)?\\s*v?"
     "(?<v>[5-9](?:\\.\\d+){1,3})\\b"},
    // "cuDNN 9", "cudnn v8".
    {VersionComponent::cudnn,
     Form::version,
     false,
     "(?i)\\bcudnn[ _-]?v?(?<v>[5-9])(?:[^.0-9A-Za-z_]|$)"},
    // "Loaded cuDNN version 8100", "cudnn version: 8902", "torch.backends.cudnn.version() 90100".
    {VersionComponent::cudnn,
     Form::cudnn_number,
     false,
     "(?i)cudnn(?:\\.version\\(\\))?(?:\\s*version)?\\s*[:=]?\\s*(?<v>[5-9]\\d{3}|[1-9]\\d{4})\\b"},
    {VersionComponent::cudnn,
     Form::cudnn_major,
     true,
     "(?i)\\bcudnn(?:_[a-z_]+)?64_(?<v>\\d{1,2})\\b"},
    {VersionComponent::cudnn,
     Form::cudnn_major,
     true,
     "(?i)\\blibcudnn(?:_[a-z_]+)?\\.so\\.(?<v>\\d{1,2})\\b"},
    // pip: "nvidia-cudnn-cu12 9.1.0.70", "nvidia-cudnn-cu12==8.9.2.26".
    {VersionComponent::cudnn,
     Form::version,
     false,
     "(?i)nvidia-cudnn-cu1\\d\\s*(?:==|\\s)\\s*(?<v>\\d+\\.\\d+(?:\\.\\d+)*)"},
    // conda: "cudnn                     8.2.1        cuda11.3_0" is the first; its CUDA here.
    {VersionComponent::cuda,
     Form::version,
     false,
     "(?i)\\bcudnn\\s+\\d+\\.\\d+\\.\\d+\\s+cuda(?<v>1[0-3]\\.\\d)"},
}};

struct Compiled {
  const Pattern* pattern;
  Regex regex;
  std::size_t group;
};

const std::vector<Compiled>& compiled() {
  static const std::vector<Compiled> all = [] {
    std::vector<Compiled> out;
    for (const Pattern& p : k_patterns) {
      auto re = Regex::compile(p.regex);
      if (!re) {
        continue; // a mistake in the table above; the unit tests compile each one
      }
      const std::size_t group = re->group_index("v");
      out.push_back(Compiled{&p, std::move(*re), group});
    }
    return out;
  }();
  return all;
}

unsigned leading_number(std::string_view v) {
  unsigned n = 0;
  for (char c : v) {
    if (!util::is_digit(c) || n > 1000) {
      break;
    }
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  return n;
}

// "11.2.152" -> "11.2".
std::string major_minor(std::string_view v) {
  const std::size_t first = v.find('.');
  if (first == std::string_view::npos) {
    return std::string(v);
  }
  const std::size_t second = v.find('.', first + 1);
  return std::string(v.substr(0, second));
}

// "09.1" -> "9.1", "11.08" -> "11.8": leading zeros of each number dropped, so that equal
// releases compare equal and the version starts with its major.
std::string without_leading_zeros(std::string_view v) {
  std::string out;
  bool at_start = true; // of a number
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '.') {
      at_start = true;
    } else if (at_start && c == '0' && i + 1 < v.size() && util::is_digit(v[i + 1])) {
      continue;
    } else {
      at_start = false;
    }
    out.push_back(c);
  }
  return out;
}

std::optional<std::string> version_of(Form form, std::string_view text) {
  switch (form) {
  case Form::version:
    return std::string(text);
  case Form::cuda_tag:
  case Form::cuda_windows: {
    if (text.size() == 2) {
      const unsigned value = leading_number(text);
      if (value >= 10 && value <= 19) {
        return std::string(text);
      }
      if (form == Form::cuda_tag && (value < 70 || value > 99)) {
        return std::nullopt;
      }
      return std::string(1, text[0]) + "." + std::string(1, text[1]);
    }
    if (text.size() == 3 && text[0] == '1') {
      return std::string(text.substr(0, 2)) + "." + std::string(text.substr(2));
    }
    return std::nullopt;
  }
  case Form::cudnn_number: {
    auto value = util::parse_uint(text);
    if (!value) {
      return std::nullopt;
    }
    return cudnn_version_of_number(static_cast<unsigned long>(*value));
  }
  case Form::cudnn_major:
    return std::string(text);
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> cudnn_version_of_number(unsigned long value) {
  unsigned long major = 0;
  unsigned long minor = 0;
  unsigned long patch = 0;
  if (value >= 90000 && value < 200000) { // cuDNN 9 on: major * 10000 + minor * 100 + patch
    major = value / 10000;
    minor = value / 100 % 100;
    patch = value % 100;
  } else if (value >= 5000 && value < 9000) { // cuDNN 5 to 8: major * 1000 + minor * 100 + patch
    major = value / 1000;
    minor = value / 100 % 10;
    patch = value % 100;
  } else {
    return std::nullopt;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

bool same_cuda_release(std::string_view wanted, std::string_view found) {
  const unsigned wanted_major = leading_number(wanted);
  if (wanted_major != leading_number(found)) {
    return false;
  }
  if (wanted_major >= 11) {
    return true;
  }
  // Before CUDA 11 each minor release had its own library names; a major alone says no more.
  const std::string a = major_minor(wanted);
  const std::string b = major_minor(found);
  if (a.find('.') == std::string::npos || b.find('.') == std::string::npos) {
    return true;
  }
  return a == b;
}

namespace {

// A line is read up to 8 KiB: a version is named early, and a longer line is not a report's.
std::string_view capped(std::string_view line) {
  constexpr std::size_t k_max_line = 8192;
  return line.size() > k_max_line ? line.substr(0, k_max_line) : line;
}

// Whether `major` can be a release of `component`: cuDNN 5 to 12, CUDA 7 to 13.
bool plausible_major(unsigned long major, VersionComponent component) {
  return component == VersionComponent::cudnn ? (major >= 5 && major <= 12)
                                              : (major >= 7 && major <= 13);
}

// The version token at `i` in lowercase `s` (digits, a dotted version, a tuple "(8, 9, 2)"),
// read as `component`'s version; advances `i` past it. Nothing when there is none there.
std::optional<std::string>
version_token_at(std::string_view s, std::size_t& i, VersionComponent component) {
  if (s[i] == '(') {
    // "(8, 9, 2)": PyTorch's tuple.
    std::string out;
    std::size_t k = i + 1;
    for (int part = 0; part < 3; ++part) {
      while (k < s.size() && s[k] == ' ') {
        ++k;
      }
      const std::size_t b = k;
      while (k < s.size() && util::is_digit(s[k]) && k - b < 3) {
        ++k;
      }
      if (k == b) {
        return std::nullopt;
      }
      out += (part > 0 ? "." : "") + std::string(s.substr(b, k - b));
      while (k < s.size() && s[k] == ' ') {
        ++k;
      }
      if (part < 2) {
        if (k >= s.size() || s[k] != ',') {
          return std::nullopt;
        }
        ++k;
      }
    }
    if (k >= s.size() || s[k] != ')' || !plausible_major(leading_number(out), component)) {
      return std::nullopt;
    }
    i = k + 1;
    return out;
  }
  if (!util::is_digit(s[i])
      || (i > 0 && (util::is_digit(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '_'))) {
    return std::nullopt;
  }
  std::size_t k = i;
  while (
      k < s.size()
      && (util::is_digit(s[k]) || (s[k] == '.' && k + 1 < s.size() && util::is_digit(s[k + 1])))) {
    ++k;
  }
  if (k < s.size() && (s[k] == '_' || (s[k] >= 'a' && s[k] <= 'z'))) {
    return std::nullopt; // "64_8", "11gb", "v100": not a version
  }
  // "8 GB", "16 MiB", "2 GPUs", "50 %": an amount, not a version.
  const std::string_view unit = s.substr(k, 5);
  constexpr std::array<std::string_view, 7> k_units{
      " gb", " mb", " gib", " mib", " gpu", " %", " k"};
  if (std::any_of(k_units.begin(), k_units.end(), [&](std::string_view u) {
        return unit.starts_with(u);
      })) {
    return std::nullopt;
  }
  const std::string_view text = s.substr(i, k - i);
  i = k;
  if (text.find('.') != std::string_view::npos) {
    return plausible_major(leading_number(text), component)
               ? std::optional<std::string>(without_leading_zeros(text))
               : std::nullopt;
  }
  const auto value = util::parse_uint(text);
  if (!value) {
    return std::nullopt;
  }
  // A major alone: "cudnn 8", "CUDA 12".
  if (text.size() <= 2) {
    return plausible_major(*value, component) ? std::optional<std::string>(std::to_string(*value))
                                              : std::nullopt;
  }
  if (component == VersionComponent::cudnn) {
    return text.size() >= 4 ? cudnn_version_of_number(static_cast<unsigned long>(*value))
                            : std::nullopt;
  }
  // CUDA's integer form: 11040 -> 11.4, 9020 -> 9.2.
  if (*value >= 7000 && *value < 14000) {
    return std::to_string(*value / 1000) + "." + std::to_string(*value % 1000 / 10);
  }
  return std::nullopt;
}

// The first version token in s[from, to).
std::optional<std::string>
first_version(std::string_view s, std::size_t from, std::size_t to, VersionComponent component) {
  for (std::size_t i = from; i < std::min(to, s.size());) {
    const std::size_t at = i;
    if (auto v = version_token_at(s, i, component)) {
      return v;
    }
    i = std::max(i, at + 1);
  }
  return std::nullopt;
}

} // namespace

namespace {

// The pair two file names of one library make, when the line says which one is wanted: "the new
// DLL is called cudnn64_6.dll; TensorFlow requires that to be cudnn64_5.dll".
std::optional<VersionPair> named_pair(std::string_view line) {
  constexpr std::array<std::string_view, 8> k_wanted{
      "requires", "require ", "needs", "needed", "expects", "looking for", "looks for", "wants"};
  // Cheaply first: without a word for the wanted one there is no pair to read.
  const std::string lower = util::to_lower(capped(line));
  if (std::none_of(k_wanted.begin(), k_wanted.end(), [&](std::string_view w) {
        return lower.find(w) != std::string::npos;
      })) {
    return std::nullopt;
  }
  std::vector<VersionMention> names;
  for (VersionMention& m : find_version_mentions(line)) {
    if (m.from_library_name) {
      names.push_back(std::move(m));
    }
  }
  if (names.size() < 2) {
    return std::nullopt;
  }
  const auto wanted = [&](const VersionMention& m) {
    const std::size_t from = m.begin > 40 ? m.begin - 40 : 0;
    const std::string_view before = std::string_view(lower).substr(from, m.begin - from);
    return std::any_of(k_wanted.begin(), k_wanted.end(), [&](std::string_view w) {
      return before.find(w) != std::string_view::npos;
    });
  };
  // The library a name is of: its letters before the version ("cudnn", "libcublas").
  const auto library = [&](const VersionMention& m) {
    std::size_t e = m.begin;
    while (e < lower.size() && e < m.end && !util::is_digit(lower[e])) {
      ++e;
    }
    return std::string_view(lower).substr(m.begin, e - m.begin);
  };
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j) {
      const VersionMention& a = names[i];
      const VersionMention& b = names[j];
      if (a.component != b.component || a.version == b.version || library(a) != library(b)
          || wanted(a) == wanted(b)) {
        continue;
      }
      VersionPair pair;
      pair.component = a.component;
      pair.expected = wanted(a) ? a.version : b.version;
      pair.found = wanted(a) ? b.version : a.version;
      return pair;
    }
  }
  return std::nullopt;
}

// The pair a line states in words: "compiled against 7102 but link against 7301".
std::optional<VersionPair> worded_pair(std::string_view line) {
  // Lower case, runs of spaces and tabs as one ("compiled  against").
  std::string s;
  for (const char c : util::to_lower(capped(line))) {
    const char d = c == '\t' ? ' ' : c;
    if (d != ' ' || s.empty() || s.back() != ' ') {
      s.push_back(d);
    }
  }
  const std::size_t cudnn = s.find("cudnn");
  const std::size_t cuda = s.find("cuda");
  if (cuda == std::string::npos && cudnn == std::string::npos) {
    return std::nullopt;
  }
  VersionPair pair;
  pair.component = cudnn != std::string::npos ? VersionComponent::cudnn : VersionComponent::cuda;
  constexpr std::array<std::string_view, 12> k_built{"compiled against",
                                                     "compiled with",
                                                     "compiled for",
                                                     "built against",
                                                     "built with",
                                                     "built for",
                                                     "linked against",
                                                     "requires",
                                                     "needs",
                                                     "expects",
                                                     "编译",
                                                     "需要"};
  constexpr std::array<std::string_view, 7> k_turn{
      " but ", ",but ", " while ", " however", "但", "而", " whereas "};
  std::size_t built = std::string::npos;
  for (std::string_view w : k_built) {
    built = std::min(built, s.find(w));
  }
  if (built == std::string::npos) {
    return std::nullopt;
  }
  std::size_t turn = std::string::npos;
  std::size_t turn_len = 0;
  for (std::string_view w : k_turn) {
    const std::size_t at = s.find(w, built);
    if (at < turn) {
      turn = at;
      turn_len = w.size();
    }
  }
  if (turn == std::string::npos || turn - built > 200) {
    return std::nullopt;
  }
  // The component is named before the turn: "cuDNN ... compiled against 7102 but ...", "built
  // for CUDA 12.1 but ...", not "needs 8 GB but has 6 GB, cuda 12.1".
  const std::size_t named = std::min(cudnn, cuda);
  if (named > turn) {
    return std::nullopt;
  }
  const std::size_t after = turn + turn_len;
  const std::string_view rest = std::string_view(s).substr(after, 120);
  if (rest.find("driver") != std::string_view::npos
      || rest.find("驱动") != std::string_view::npos) {
    return std::nullopt; // the driver's CUDA: a driver question, not a pair of the component
  }
  auto expected = first_version(s, built, turn, pair.component);
  auto found = first_version(s, after, after + 120, pair.component);
  if (!expected || !found) {
    return std::nullopt;
  }
  const auto e = Version::parse(*expected);
  const auto f = Version::parse(*found);
  if (!e || !f) {
    return std::nullopt;
  }
  // A major alone names its whole series: "cuDNN 8" is met by 8.9.
  const bool major_only =
      expected->find('.') == std::string::npos || found->find('.') == std::string::npos;
  if (major_only ? leading_number(*expected) == leading_number(*found) : *e == *f) {
    return std::nullopt;
  }
  // "requires CUDA 11.8 or later but has 12.1" is met.
  const std::string_view wanted = std::string_view(s).substr(built, turn - built);
  constexpr std::array<std::string_view, 7> k_at_least{
      "at least", ">=", "or later", "or newer", "or higher", "or above", "以上"};
  if (std::any_of(k_at_least.begin(),
                  k_at_least.end(),
                  [&](std::string_view w) { return wanted.find(w) != std::string_view::npos; })
      && *f >= *e) {
    return std::nullopt;
  }
  pair.expected = *expected;
  pair.found = *found;
  return pair;
}

} // namespace

std::optional<VersionPair> find_version_pair(std::string_view line) {
  if (auto pair = worded_pair(line)) {
    return pair;
  }
  return named_pair(line);
}

bool may_name_version(std::string_view line) {
  for (std::size_t i = 0; i + 1 < line.size(); ++i) {
    const char a = static_cast<char>(line[i] | 0x20);
    const char b = static_cast<char>(line[i + 1] | 0x20);
    if (a == 'c' && b == 'u') {
      return true;
    }
    if (a == 'n' && b == 'v' && i + 4 < line.size()
        && util::to_lower(line.substr(i, 5)) == "nvrtc") {
      return true;
    }
  }
  return false;
}

std::vector<FrameworkMention> find_framework_mentions(std::string_view line) {
  constexpr std::size_t k_max_mentions = 8;
  line = capped(line);
  std::vector<FrameworkMention> out;
  // PyTorch's local version: the CUDA variant after the '+' (a nightly's .devYYYYMMDD before it).
  static const auto torch = Regex::compile(
      "(?i)\\b(?:py)?torch(?: "
      "version)?\\s*(?:==|:|-|\\s)\\s*v?(?<v>\\d{1,2}\\.\\d{1,3}(?:\\.\\d{1,3})?)"
      "(?:\\.dev\\d+|a0|rc\\d)?\\+(?<tag>cu\\d{2,3})\\b");
  if (!torch || util::to_lower(line).find("torch") == std::string::npos) {
    return out;
  }
  const std::size_t v_group = torch->group_index("v");
  const std::size_t tag_group = torch->group_index("tag");
  RegexMatch m;
  std::size_t from = 0;
  while (from < line.size() && out.size() < k_max_mentions) {
    const std::string_view rest = line.substr(from);
    if (!torch->search(rest, &m) || m.end <= m.begin) {
      break;
    }
    FrameworkMention f;
    f.framework = "torch";
    f.version = std::string(m.group(rest, v_group));
    f.variant = util::to_lower(m.group(rest, tag_group));
    f.begin = from + m.begin;
    f.end = from + m.end;
    out.push_back(std::move(f));
    from += m.end;
  }
  return out;
}

std::vector<VersionMention> find_version_mentions(std::string_view line) {
  constexpr std::size_t k_max_mentions = 32;
  line = capped(line);
  std::vector<VersionMention> out;
  if (!may_name_version(line)) {
    return out;
  }
  // A pattern runs only on a line that holds its literal (the regexes ignore case; so does this).
  const std::string lower = util::to_lower(line);
  RegexMatch m;
  for (const Compiled& c : compiled()) {
    const std::string& literal = c.regex.required_literal();
    if (!literal.empty()
        && lower.find(c.regex.ignores_case() ? literal : util::to_lower(literal))
               == std::string::npos) {
      continue;
    }
    std::size_t from = 0;
    while (from < line.size() && out.size() < k_max_mentions) {
      const std::string_view rest = line.substr(from);
      if (!c.regex.search(rest, &m) || m.end <= m.begin) {
        break;
      }
      const std::string_view text = m.group(rest, c.group);
      auto version = version_of(c.pattern->form, text);
      if (version) {
        VersionMention v;
        v.component = c.pattern->component;
        const std::string plain = without_leading_zeros(*version);
        v.version =
            c.pattern->component == VersionComponent::cuda && c.pattern->form == Form::version
                ? major_minor(plain)
                : plain;
        v.major = leading_number(v.version);
        v.from_library_name = c.pattern->library;
        v.driver_max = c.pattern->driver_max;
        v.build_tag = c.pattern->form == Form::cuda_tag;
        v.begin = from + m.begin;
        v.end = from + m.end;
        const bool overlaps = std::any_of(out.begin(), out.end(), [&](const VersionMention& o) {
          return o.component == v.component && o.begin < v.end && v.begin < o.end;
        });
        if (!overlaps) {
          out.push_back(std::move(v));
        }
      }
      from += m.end;
    }
  }
  std::sort(out.begin(), out.end(), [](const VersionMention& a, const VersionMention& b) {
    return a.begin < b.begin;
  });
  return out;
}

} // namespace doctor::explain
