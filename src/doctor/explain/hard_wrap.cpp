// SPDX-License-Identifier: MIT
#include <doctor/explain/hard_wrap.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace doctor::explain {

namespace {

// Narrower consoles are not used for logs, and a line this short gives no evidence; no console
// window is wider than the upper bound (a maximised terminal on a 4K screen is about 250), while
// long log records are.
constexpr std::size_t k_min_width = 70;
constexpr std::size_t k_max_width = 250;
// The widths consoles open with: the classic 80 columns, and the Windows 10 console host's 120.
constexpr std::array<std::size_t, 2> k_default_widths{80, 120};

// The code point at `i` (advancing `i`); a byte that starts no valid sequence stands for itself.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  const std::size_t len = util::utf8_sequence_length(s, i);
  if (len == 0) {
    return static_cast<unsigned char>(s[i++]);
  }
  const std::uint32_t cp = util::utf8_code_point(s.substr(i, len));
  i += len;
  return cp;
}

bool is_wide(std::uint32_t cp) {
  // East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, the ranges consoles use).
  constexpr std::array<std::pair<std::uint32_t, std::uint32_t>, 14> k_wide{{
      {0x1100, 0x115F},   // Hangul Jamo initials
      {0x2E80, 0x303E},   // CJK radicals, ideographic punctuation
      {0x3041, 0x33FF},   // kana, CJK symbols
      {0x3400, 0x4DBF},   // CJK extension A
      {0x4E00, 0x9FFF},   // CJK unified ideographs
      {0xA000, 0xA4CF},   // Yi
      {0xAC00, 0xD7A3},   // Hangul syllables
      {0xF900, 0xFAFF},   // CJK compatibility ideographs
      {0xFE30, 0xFE4F},   // CJK compatibility forms
      {0xFF00, 0xFF60},   // fullwidth forms
      {0xFFE0, 0xFFE6},   // fullwidth signs
      {0x1F300, 0x1F64F}, // pictographs, emoticons
      {0x1F900, 0x1F9FF}, // supplemental pictographs
      {0x20000, 0x3FFFD}, // CJK extensions B and later
  }};
  return std::any_of(k_wide.begin(), k_wide.end(), [cp](const auto& r) {
    return cp >= r.first && cp <= r.second;
  });
}

bool is_zero_width(std::uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x0300 && cp <= 0x036F) // combining diacritics
         || (cp >= 0x200B && cp <= 0x200F)                         // zero-width space, marks
         || (cp >= 0xFE00 && cp <= 0xFE0F);                        // variation selectors
}

bool is_box_drawing(std::uint32_t cp) {
  return cp >= 0x2500 && cp <= 0x257F;
}

bool starts_wide(std::string_view s) {
  if (s.empty()) {
    return false;
  }
  std::size_t i = 0;
  return is_wide(next_code_point(s, i));
}

bool is_border(std::uint32_t cp) {
  return cp == '|' || cp == '+' || is_box_drawing(cp);
}

// The last code point of non-empty `s`.
std::uint32_t last_code_point(std::string_view s) {
  std::size_t b = s.size() - 1;
  while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0U) == 0x80U && s.size() - b < 4) {
    --b;
  }
  return next_code_point(s, b);
}

// A table row or a rule: as wide as its table, never cut. A row starts and ends with a border
// ("| NVIDIA-SMI 535.86 ... |", "+----+"); a line that only starts with one is a log record's
// margin (Julia's "│   exception =") or a row cut in two, and may be joined.
bool is_table_or_rule(std::string_view line) {
  const std::string_view t = util::trim(line);
  if (t.empty()) {
    return true;
  }
  std::size_t i = 0;
  if (t.size() > 1 && is_border(next_code_point(t, i)) && is_border(last_code_point(t))) {
    return true;
  }
  // A rule at the end: "===== test session starts =====", "-----".
  constexpr std::string_view k_rule = "=-*#_~+|";
  const char last = t.back();
  if (k_rule.find(last) == std::string_view::npos) {
    return false;
  }
  std::size_t run = 0;
  for (std::size_t k = t.size(); k > 0 && t[k - 1] == last; --k) {
    ++run;
  }
  return run >= 4;
}

bool is_fence(std::string_view line) {
  const std::string_view t = util::trim(line);
  return t.starts_with("```") || t.starts_with("~~~");
}

// Where a line ended by itself rather than at the console's last column: a sentence ended and
// the next begins ("... library path!" / "Invalid handle"), the next line opens a record
// ("[2024-09-30 21:14:02]", "[00:09.120 --> ...]"), or the text turns from Latin script to East
// Asian or back at the break ("... stable.html" / "官方推荐"). A console cuts anywhere else:
// inside a word or a name ("cudnn_cnn_infer64_8.dl" / "l"), inside "(8, 7" / ", 0)", after a
// space.
bool ends_by_itself(std::string_view line, std::string_view next) {
  std::size_t i = 0;
  const std::uint32_t first = next_code_point(next, i);
  const std::uint32_t last = last_code_point(line);
  if (first == '[') {
    return true;
  }
  if ((last == '.' || last == '!' || last == '?') && (first >= 'A' && first <= 'Z')) {
    return true;
  }
  const bool last_wide = is_wide(last);
  const bool first_wide = is_wide(first);
  const auto latin = [](std::uint32_t cp) {
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')
           || cp == '.' || cp == '_';
  };
  return (last_wide && latin(first)) || (first_wide && latin(last))
         || (first_wide && (last == '.' || last == '!' || last == '?'));
}

// The shape of a line's start, digits and letters folded: "Feb 15 17:37:45 Gipfeli" and
// "[2024-09-30 21:14:02]" are records of a log, and a line that starts like the one before it is
// the next record, not its continuation.
std::string start_shape(std::string_view line) {
  std::string shape;
  for (std::size_t i = 0; i < line.size() && shape.size() < 8; ++i) {
    const char c = line[i];
    if (c >= '0' && c <= '9') {
      shape.push_back('9');
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      shape.push_back('a');
    } else {
      shape.push_back(c);
    }
  }
  return shape;
}

bool starts_like(std::string_view next, std::string_view line) {
  const std::string shape = start_shape(line);
  // Only a start that says something: a digit or punctuation in it, not plain words.
  return shape.size() >= 6 && shape.find_first_not_of("a ") != std::string::npos
         && start_shape(next) == shape;
}

// Whether line `i` reaches `width` and goes on in the next line.
bool is_cut(const std::vector<util::TextLine>& lines,
            const std::vector<std::size_t>& widths,
            std::size_t i,
            std::size_t width) {
  if (i + 1 >= lines.size()) {
    return false;
  }
  const util::TextLine& line = lines[i];
  const util::TextLine& next = lines[i + 1];
  const bool full = widths[i] == width || (widths[i] + 1 == width && starts_wide(next.text));
  // A console that pads its lines to the width pads the short ones with a run of spaces; a cut
  // line may end in the one space it was cut after.
  const bool padded = line.text.ends_with("  ") || line.text.ends_with('\t');
  if (!full || line.cut || line.part != 0 || next.part != 0 || line.text.empty() || padded
      || next.text.empty() || next.text == line.text || is_fence(next.text)
      || is_table_or_rule(line.text) || is_table_or_rule(next.text)
      || next.number != line.number + 1) {
    return false;
  }
  return !ends_by_itself(line.text, next.text) && !starts_like(next.text, line.text);
}

} // namespace

std::size_t display_width(std::string_view utf8) {
  std::size_t width = 0;
  std::size_t i = 0;
  while (i < utf8.size()) {
    const std::uint32_t cp = next_code_point(utf8, i);
    if (cp == '\t') {
      width = (width / 8 + 1) * 8;
    } else if (is_wide(cp)) {
      width += 2;
    } else if (!is_zero_width(cp)) {
      width += 1;
    }
  }
  return width;
}

namespace {

std::vector<std::size_t> widths_of(const std::vector<util::TextLine>& lines) {
  std::vector<std::size_t> widths;
  widths.reserve(lines.size());
  for (const util::TextLine& l : lines) {
    // A line far wider than any console was not cut by one; its width is not needed exactly.
    widths.push_back(l.text.size() > 4096 ? l.text.size() : display_width(l.text));
  }
  return widths;
}

std::size_t width_of(const std::vector<util::TextLine>& lines,
                     const std::vector<std::size_t>& widths) {
  std::size_t widest = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_table_or_rule(lines[i].text)) {
      widest = std::max(widest, widths[i]);
    }
  }
  if (widest < k_min_width || widest > k_max_width) {
    return 0;
  }
  std::set<std::string_view> cut;
  for (std::size_t i = 0; i < lines.size() && cut.size() < 2; ++i) {
    if (is_cut(lines, widths, i, widest)) {
      cut.insert(lines[i].text);
    }
  }
  const bool default_width =
      std::find(k_default_widths.begin(), k_default_widths.end(), widest) != k_default_widths.end();
  return cut.size() >= 2 || (cut.size() == 1 && default_width) ? widest : 0;
}

} // namespace

std::size_t hard_wrap_width(const std::vector<util::TextLine>& lines) {
  return width_of(lines, widths_of(lines));
}

namespace {

// Merges runs of lines in place: line `next` goes into the line `first` of its run while
// joins(first, next) holds and the result stays within util::k_max_line_bytes; join() merges the
// text, the span is added here. Returns the number of lines merged into others.
template<class Joins, class Join>
std::size_t merge_lines(std::vector<util::TextLine>& lines, Joins joins, Join join) {
  std::size_t joined = 0;
  std::size_t out = 0;
  for (std::size_t i = 0; i < lines.size();) {
    std::size_t end = i + 1; // lines [i, end) become one
    while (end < lines.size() && joins(i, end)
           && lines[i].text.size() + lines[end].text.size() <= util::k_max_line_bytes) {
      join(lines[i], lines[end]);
      lines[i].span += lines[end].span;
      ++end;
    }
    joined += end - i - 1;
    if (out != i) {
      lines[out] = std::move(lines[i]);
    }
    ++out;
    i = end;
  }
  lines.resize(out);
  return joined;
}

} // namespace

std::size_t join_hard_wraps(std::vector<util::TextLine>& lines, std::size_t* width_found) {
  const std::vector<std::size_t> widths = widths_of(lines);
  const std::size_t width = width_of(lines, widths);
  if (width_found != nullptr) {
    *width_found = width;
  }
  if (width == 0) {
    return 0;
  }
  return merge_lines(
      lines,
      [&](std::size_t /*first*/, std::size_t next) {
        return is_cut(lines, widths, next - 1, width);
      },
      [](util::TextLine& into, const util::TextLine& next) { into.text += next.text; });
}

namespace {

// The Markdown quote markers a line starts with ("> ", ">> ", "> > "): a command quoted in a
// reply keeps them on each of its lines.
std::string_view quote_prefix(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && text[n] == '>') {
    ++n;
    if (n < text.size() && text[n] == ' ') {
      ++n;
    }
  }
  return text.substr(0, n);
}

} // namespace

std::size_t join_continued_commands(std::vector<util::TextLine>& lines) {
  const auto continues = [](const util::TextLine& l) {
    const std::string_view text = util::trim_right(l.text);
    return !l.cut && text.size() >= 2 && text.back() == '\\'
           && (text[text.size() - 2] == ' ' || text[text.size() - 2] == '\t');
  };
  // The next line goes on under the same quote markers as the command's first line.
  const auto goes_on = [](const util::TextLine& l, std::string_view quote) {
    if (!std::string_view(l.text).starts_with(quote)) {
      return false;
    }
    const std::string_view text = std::string_view(l.text).substr(quote.size());
    return !text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '-');
  };
  return merge_lines(
      lines,
      [&](std::size_t first, std::size_t next) {
        return continues(lines[first]) && goes_on(lines[next], quote_prefix(lines[first].text));
      },
      [](util::TextLine& into, const util::TextLine& next) {
        const std::size_t quote = quote_prefix(into.text).size();
        std::string_view head = util::trim_right(into.text);
        head.remove_suffix(1); // the backslash
        into.text = std::string(util::trim_right(head)) + " "
                    + std::string(util::trim(std::string_view(next.text).substr(quote)));
      });
}

namespace {

constexpr std::size_t k_max_field_title = 64;
constexpr std::size_t k_max_field_answer = 200;

// The question of a form heading that names a version ("CUDA/cuDNN version" of "### CUDA/cuDNN
// version"), or nothing.
std::optional<std::string_view> version_field_title(const util::TextLine& line) {
  std::string_view text = util::trim(line.text);
  if (line.cut || text.size() < 2 || text.front() != '#') {
    return std::nullopt;
  }
  const std::size_t hashes = text.find_first_not_of('#');
  if (hashes == std::string_view::npos || hashes > 6
      || (text[hashes] != ' ' && text[hashes] != '\t')) {
    return std::nullopt;
  }
  text = util::trim(text.substr(hashes));
  constexpr std::string_view k_wide_colon = "：";
  while (!text.empty()) {
    if (text.back() == ':' || text.back() == '*') {
      text.remove_suffix(1);
    } else if (text.ends_with(k_wide_colon)) {
      text.remove_suffix(k_wide_colon.size());
    } else {
      break;
    }
  }
  while (!text.empty() && text.front() == '*') {
    text.remove_prefix(1);
  }
  text = util::trim(text);
  if (text.empty() || text.size() > k_max_field_title) {
    return std::nullopt;
  }
  const std::string lower = util::to_lower(text);
  if (lower.find("version") == std::string::npos && lower.find("版本") == std::string::npos) {
    return std::nullopt;
  }
  return text;
}

bool is_blank(const util::TextLine& line) {
  return util::trim(line.text).empty();
}

bool is_field_answer(const util::TextLine& line) {
  const std::string_view text = util::trim(line.text);
  return !line.cut && !text.empty() && text.size() <= k_max_field_answer && text.front() != '#'
         && !text.starts_with("```") && !text.starts_with("~~~");
}

} // namespace

std::size_t join_form_fields(std::vector<util::TextLine>& lines) {
  constexpr std::size_t k_max_blanks = 2;
  // The heading of the run being merged, and whether its answer is in: nothing joins after it.
  std::size_t heading = lines.size();
  bool answered = false;
  std::string title;
  return merge_lines(
      lines,
      [&](std::size_t first, std::size_t next) {
        if (first != heading) {
          heading = first;
          answered = false;
          const auto t = version_field_title(lines[first]);
          title = t ? std::string(*t) : std::string();
        }
        if (title.empty() || answered || next - first > k_max_blanks + 1) {
          return false;
        }
        if (is_blank(lines[next])) {
          // A blank line joins only when an answer follows within the blanks allowed.
          for (std::size_t i = next + 1; i < lines.size() && i - first <= k_max_blanks + 1; ++i) {
            if (!is_blank(lines[i])) {
              return is_field_answer(lines[i]);
            }
          }
          return false;
        }
        return is_field_answer(lines[next]);
      },
      [&](util::TextLine& into, const util::TextLine& next) {
        if (is_blank(next)) {
          return;
        }
        into.text = title + ": " + std::string(util::trim(next.text));
        answered = true;
      });
}

} // namespace doctor::explain
