// SPDX-License-Identifier: MIT
#include <doctor/formats/kernel_log.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/time.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>

namespace doctor::formats {

namespace {

constexpr std::size_t k_max_split_lines = 64; // lines one escaped record may unfold into
constexpr std::size_t k_head_lines = 64;      // lines looks_like_kernel_log examines
constexpr std::int64_t k_usec_per_sec = 1000000;

// How a physical line was written; decides what is stripped and what is unescaped.
enum class Form {
  plain,          // no known prefix
  skip,           // a line that carries no kernel message (kmsg " KEY=VALUE", "[ts] prog[1]: ")
  syslog_other,   // a syslog line of another program ("Feb 15 17:37:45 host sshd[12]: …")
  journal_marker, // "-- Boot 3f… --", "-- Logs begin at … --"
  pstore_header,  // "Panic#1 Part1", "====1699….123-C"
  kmsg,           // "6,3964,206764307,-;…"
  level,          // "<6>…" (pstore, dmesg -r)
  decode,         // "kern  :warn  : …"
  bracket,        // "[ 12.345678] …" or "[Fri Aug 30 11:43:09 2024] …"
  iso,            // "2025-01-21T04:41:44,283575+00:00 …" (dmesg --time-format=iso)
  syslog,         // "Feb 15 17:37:45 host kernel: …", "2025-…+00:00 host kernel: …"
};

struct Parsed {
  Form form = Form::plain;
  When when;
  int level = -1;
  std::string_view message;
};

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::size_t digits_at(std::string_view s, std::size_t pos) {
  std::size_t n = 0;
  while (pos + n < s.size() && util::is_digit(s[pos + n])) {
    ++n;
  }
  return n;
}

// Parses exactly `n` digits at `pos`.
std::optional<int> fixed_number(std::string_view s, std::size_t pos, std::size_t n) {
  if (pos + n > s.size() || digits_at(s, pos) < n) {
    return std::nullopt;
  }
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v = v * 10 + (s[pos + i] - '0');
  }
  return v;
}

// "Jan" → 1 … "Dec" → 12; 0 if not a month.
int month_number(std::string_view name) {
  static constexpr std::array<std::string_view, 12> k_months = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto it = std::find(k_months.begin(), k_months.end(), name);
  return it == k_months.end() ? 0 : static_cast<int>(it - k_months.begin()) + 1;
}

struct CivilTime {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  std::int64_t usec = 0;
  int offset_minutes = 0; // east of UTC
};

// Microseconds since 1970 of `t` in UTC; nullopt before 1970, after 9999 or for a field out of
// range.
std::optional<std::int64_t> utc_usec(const CivilTime& t) {
  if (t.year < 1970) {
    return std::nullopt;
  }
  const auto local = util::utc_usec(t.year,
                                    static_cast<unsigned>(t.month),
                                    static_cast<unsigned>(t.day),
                                    static_cast<unsigned>(t.hour),
                                    static_cast<unsigned>(t.minute),
                                    static_cast<unsigned>(t.second),
                                    static_cast<std::uint32_t>(t.usec));
  if (!local) {
    return std::nullopt;
  }
  return *local - std::int64_t{t.offset_minutes} * 60 * k_usec_per_sec;
}

// Up to 9 fraction digits as microseconds ("283575" → 283575, "5" → 500000).
std::int64_t fraction_usec(std::string_view digits) {
  std::int64_t v = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    v = v * 10 + (i < digits.size() ? digits[i] - '0' : 0);
  }
  return v;
}

// "[ 1843.308145]" (dmesg, pstore, journalctl short-monotonic).
bool take_uptime(std::string_view& s, When& when) {
  if (s.empty() || s[0] != '[') {
    return false;
  }
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close > 32) {
    return false;
  }
  const std::string_view inner = util::trim(s.substr(1, close - 1));
  const std::size_t dot = inner.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 12 || digits_at(inner, 0) != dot) {
    return false;
  }
  const std::string_view frac = inner.substr(dot + 1);
  if (frac.empty() || frac.size() > 9 || digits_at(frac, 0) != frac.size()) {
    return false;
  }
  when.uptime_usec =
      static_cast<std::int64_t>(*util::parse_uint(inner.substr(0, dot))) * k_usec_per_sec
      + fraction_usec(frac);
  when.label = std::string(inner);
  s.remove_prefix(close + 1);
  if (!s.empty() && s[0] == ' ') {
    s.remove_prefix(1);
  }
  return true;
}

// "[  +0.000844]" (dmesg --reltime/-d: time since the previous message): no usable time.
bool take_delta(std::string_view& s, When& when) {
  if (s.size() < 4 || s[0] != '[') {
    return false;
  }
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close > 32) {
    return false;
  }
  const std::string_view inner = util::trim(s.substr(1, close - 1));
  if (inner.size() < 2 || inner[0] != '+' || digits_at(inner, 1) == 0) {
    return false;
  }
  when.label = std::string(inner);
  s.remove_prefix(close + 1);
  if (!s.empty() && s[0] == ' ') {
    s.remove_prefix(1);
  }
  return true;
}

// "HH:MM:SS" at `pos`.
bool clock_at(std::string_view s, std::size_t pos, CivilTime& t) {
  const auto h = fixed_number(s, pos, 2);
  const auto m = fixed_number(s, pos + 3, 2);
  const auto sec = fixed_number(s, pos + 6, 2);
  if (!h || !m || !sec || s[pos + 2] != ':' || s[pos + 5] != ':') {
    return false;
  }
  t.hour = *h;
  t.minute = *m;
  t.second = *sec;
  return true;
}

// "[Fri Aug 30 11:43:09 2024]" (dmesg -T / --ctime: local time, which we take as UTC).
bool take_ctime(std::string_view& s, When& when) {
  if (s.empty() || s[0] != '[') {
    return false;
  }
  const std::size_t close = s.find(']');
  if (close == std::string_view::npos || close > 40) {
    return false;
  }
  const std::string_view inner = s.substr(1, close - 1);
  std::vector<std::string_view> parts;
  for (const std::string_view part : util::split(inner, ' ')) {
    if (!part.empty()) {
      parts.push_back(part);
    }
  }
  CivilTime t;
  if (parts.size() != 5 || parts[0].size() != 3 || parts[3].size() != 8 || parts[4].size() != 4
      || !clock_at(parts[3], 0, t)) {
    return false;
  }
  t.month = month_number(parts[1]);
  const auto day = util::parse_uint(parts[2]);
  const auto year = util::parse_uint(parts[4]);
  if (t.month == 0 || !day || !year || *day > 31) {
    return false;
  }
  t.day = static_cast<int>(*day);
  t.year = static_cast<int>(*year);
  const auto utc = utc_usec(t);
  if (!utc) {
    return false;
  }
  when.utc_usec = utc;
  when.label = std::string(inner);
  s.remove_prefix(close + 1);
  if (!s.empty() && s[0] == ' ') {
    s.remove_prefix(1);
  }
  return true;
}

// "2025-01-21T04:41:44,283575+00:00", "….283575Z", "…+0000" (dmesg --time-format=iso, RFC 5424
// syslog, journalctl -o short-iso). No offset means UTC.
bool take_iso(std::string_view& s, When& when) {
  CivilTime t;
  const auto y = fixed_number(s, 0, 4);
  const auto mo = fixed_number(s, 5, 2);
  const auto d = fixed_number(s, 8, 2);
  if (!y || !mo || !d || s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T'
      || !clock_at(s, 11, t)) {
    return false;
  }
  t.year = *y;
  t.month = *mo;
  t.day = *d;
  std::size_t pos = 19;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    const std::size_t n = digits_at(s, pos + 1);
    if (n == 0 || n > 9) {
      return false;
    }
    t.usec = fraction_usec(s.substr(pos + 1, n));
    pos += 1 + n;
  }
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const auto oh = fixed_number(s, pos + 1, 2);
    const bool colon = pos + 3 < s.size() && s[pos + 3] == ':';
    const auto om = fixed_number(s, pos + (colon ? 4 : 3), 2);
    if (!oh || !om || *oh > 23 || *om > 59) {
      return false;
    }
    t.offset_minutes = (s[pos] == '-' ? -1 : 1) * (*oh * 60 + *om);
    pos += colon ? 6 : 5;
  }
  if (pos < s.size() && s[pos] != ' ') {
    return false;
  }
  const auto utc = utc_usec(t);
  if (!utc) {
    return false;
  }
  when.utc_usec = utc;
  when.label = std::string(s.substr(0, pos));
  s.remove_prefix(std::min(pos + 1, s.size()));
  return true;
}

// "Feb 15 17:37:45" or "Feb  5 17:37:45.123456" (BSD syslog, journalctl short/short-precise):
// no year, so only the label.
bool take_syslog_time(std::string_view& s, When& when) {
  if (s.size() < 16 || s[3] != ' ' || month_number(s.substr(0, 3)) == 0) {
    return false;
  }
  std::size_t pos = 4;
  if (s[pos] == ' ') {
    ++pos;
  }
  const std::size_t n = digits_at(s, pos);
  CivilTime t;
  if (n == 0 || n > 2 || pos + n >= s.size() || s[pos + n] != ' ' || !clock_at(s, pos + n + 1, t)) {
    return false;
  }
  pos += n + 9;
  if (pos < s.size() && s[pos] == '.') {
    pos += 1 + digits_at(s, pos + 1);
  }
  if (pos >= s.size() || s[pos] != ' ') {
    return false;
  }
  when.label = std::string(s.substr(0, pos));
  s.remove_prefix(pos + 1);
  return true;
}

// "Panic#1 Part1", "Oops#2 Part3" (pstore dmesg records), "====1699999999.123456-C" (ramoops).
bool is_pstore_header(std::string_view s) {
  static constexpr std::array<std::string_view, 9> k_reasons = {"Panic#",
                                                                "Oops#",
                                                                "Emergency#",
                                                                "Shutdown#",
                                                                "Halt#",
                                                                "Poweroff#",
                                                                "Restart#",
                                                                "Unknown#",
                                                                "Dump#"};
  for (const std::string_view reason : k_reasons) {
    if (starts_with(s, reason)) {
      const std::size_t n = digits_at(s, reason.size());
      return n > 0 && starts_with(s.substr(reason.size() + n), " Part")
             && digits_at(s, reason.size() + n + 5) > 0;
    }
  }
  return starts_with(s, "====") && digits_at(s, 4) > 0;
}

// "prio,seq,usec,flags[,more];" at the start of a /dev/kmsg record.
bool take_kmsg(std::string_view& s, Parsed& out) {
  std::size_t pos = 0;
  std::array<std::uint64_t, 3> numbers{};
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const std::size_t n = digits_at(s, pos);
    if (n == 0 || n > (i == 0 ? 4U : 18U) || pos + n >= s.size() || s[pos + n] != ',') {
      return false;
    }
    numbers[i] = *util::parse_uint(s.substr(pos, n));
    pos += n + 1;
  }
  const std::size_t semi = s.find(';', pos);
  if (semi == std::string_view::npos || semi - pos > 64) {
    return false;
  }
  out.level = static_cast<int>(numbers[0] & 7U);
  out.when.uptime_usec = static_cast<std::int64_t>(numbers[2]);
  // The usec field as written.
  const std::size_t usec_end = pos - 1;
  std::size_t usec_begin = usec_end;
  while (usec_begin > 0 && util::is_digit(s[usec_begin - 1])) {
    --usec_begin;
  }
  out.when.label = std::string(s.substr(usec_begin, usec_end - usec_begin));
  s.remove_prefix(semi + 1);
  return true;
}

// "<N>" syslog priority; only the level part is kept.
bool take_level(std::string_view& s, Parsed& out) {
  if (s.size() < 3 || s[0] != '<') {
    return false;
  }
  const std::size_t n = digits_at(s, 1);
  if (n == 0 || n > 3 || 1 + n >= s.size() || s[1 + n] != '>') {
    return false;
  }
  out.level = static_cast<int>(*util::parse_uint(s.substr(1, n)) & 7U);
  s.remove_prefix(n + 2);
  return true;
}

// "kern  :warn  : " from dmesg --decode.
bool take_decode(std::string_view& s, Parsed& out) {
  static constexpr std::array<std::string_view, 8> k_levels = {
      "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};
  static constexpr std::array<std::string_view, 20> k_facilities = {
      "kern",   "user",   "mail",   "daemon",   "auth",   "syslog", "lpr",
      "news",   "uucp",   "cron",   "authpriv", "ftp",    "local0", "local1",
      "local2", "local3", "local4", "local5",   "local6", "local7"};
  const std::size_t colon1 = s.find(':');
  if (colon1 == std::string_view::npos || colon1 > 10) {
    return false;
  }
  const std::string_view facility = trim_right(s.substr(0, colon1));
  if (std::find(k_facilities.begin(), k_facilities.end(), facility) == k_facilities.end()) {
    return false;
  }
  const std::size_t colon2 = s.find(':', colon1 + 1);
  if (colon2 == std::string_view::npos || colon2 - colon1 > 10) {
    return false;
  }
  const std::string_view level = trim_right(s.substr(colon1 + 1, colon2 - colon1 - 1));
  const auto it = std::find(k_levels.begin(), k_levels.end(), level);
  if (it == k_levels.end()) {
    return false;
  }
  out.level = static_cast<int>(it - k_levels.begin());
  s.remove_prefix(colon2 + 1);
  if (!s.empty() && s[0] == ' ') {
    s.remove_prefix(1);
  }
  return true;
}

// "[ T1899]" or "[C3]" caller id printed after the time with CONFIG_PRINTK_CALLER.
void take_caller_id(std::string_view& s) {
  std::size_t pos = (!s.empty() && s[0] == ' ') ? 1 : 0;
  if (pos >= s.size() || s[pos] != '[') {
    return;
  }
  std::size_t i = pos + 1;
  while (i < s.size() && s[i] == ' ') {
    ++i;
  }
  if (i >= s.size() || (s[i] != 'T' && s[i] != 'C')) {
    return;
  }
  const std::size_t n = digits_at(s, i + 1);
  if (n == 0 || i + 1 + n >= s.size() || s[i + 1 + n] != ']') {
    return;
  }
  s.remove_prefix(i + 2 + n);
  if (!s.empty() && s[0] == ' ') {
    s.remove_prefix(1);
  }
}

// What follows a syslog time: "host kernel: " (a kernel message), "host prog[pid]: " (another
// program), or neither (the message itself, as in dmesg --time-format=iso).
enum class Tag { kernel, other_with_pid, other, none };

Tag take_host_tag(std::string_view& s) {
  // Some excerpts have the host name removed: "Feb 23 03:28:16 kernel: …".
  const std::size_t lead = s.find_first_not_of(' ');
  if (lead != std::string_view::npos && starts_with(s.substr(lead), "kernel: ")) {
    s.remove_prefix(lead + 8);
    return Tag::kernel;
  }
  const std::size_t sp1 = s.find(' ');
  if (sp1 == 0 || sp1 == std::string_view::npos || sp1 > 255 || s[sp1 - 1] == ':') {
    return Tag::none;
  }
  const std::string_view rest = s.substr(sp1 + 1);
  const std::size_t sp2 = rest.find(' ');
  const std::string_view tag = rest.substr(0, sp2);
  if (tag == "kernel:") {
    s = sp2 == std::string_view::npos ? std::string_view() : rest.substr(sp2 + 1);
    return Tag::kernel;
  }
  if (tag.size() < 2 || tag.back() != ':') {
    return Tag::none;
  }
  if (tag.size() >= 4 && tag[tag.size() - 2] == ']' && tag.find('[') != std::string_view::npos) {
    return Tag::other_with_pid;
  }
  return Tag::other;
}

Parsed parse_physical(std::string_view line, bool after_kmsg) {
  Parsed out;
  std::string_view s = line;
  if (after_kmsg && !s.empty() && s[0] == ' ') {
    out.form = Form::skip;
    return out;
  }
  if (starts_with(s, "-- ") && ends_with(s, " --")) {
    out.form = Form::journal_marker;
    out.message = s;
    return out;
  }
  if (is_pstore_header(s)) {
    out.form = Form::pstore_header;
    return out;
  }
  if (take_kmsg(s, out)) {
    out.form = Form::kmsg;
    out.message = s;
    return out;
  }
  if (take_level(s, out)) {
    out.form = Form::level;
  }
  if (take_decode(s, out)) {
    out.form = Form::decode;
  }
  if (take_uptime(s, out.when) || take_ctime(s, out.when) || take_delta(s, out.when)) {
    take_caller_id(s);
    out.form = out.form == Form::plain ? Form::bracket : out.form;
    const Tag tag = take_host_tag(s); // journalctl -o short-monotonic
    if (tag == Tag::other_with_pid) {
      out.form = Form::skip;
    }
  } else if (take_iso(s, out.when)) {
    const Tag tag = take_host_tag(s);
    if (tag == Tag::other_with_pid) {
      out.form = Form::skip;
      return out;
    }
    out.form = tag == Tag::kernel ? Form::syslog : (out.form == Form::plain ? Form::iso : out.form);
  } else if ((out.form == Form::plain || out.form == Form::level)
             && take_syslog_time(s, out.when)) {
    if (take_host_tag(s) != Tag::kernel) {
      out.form = Form::syslog_other;
      return out;
    }
    out.form = Form::syslog;
  }
  if (out.form == Form::syslog) {
    // rsyslog keeps the kernel's own "[sec.usec]" after "kernel: ".
    When uptime;
    if (take_uptime(s, uptime)) {
      out.when.uptime_usec = uptime.uptime_usec;
      take_caller_id(s);
    }
  }
  out.message = s;
  return out;
}

// Undoes the escapes of the log form and splits the message into its lines: rsyslog writes a
// control character as "#" and three octal digits (#012 newline, #011 tab); /dev/kmsg writes
// "\xHH".
std::vector<std::string> unescape_lines(std::string_view message, Form form) {
  std::string text;
  text.reserve(std::min(message.size(), k_max_kernel_text));
  for (std::size_t i = 0; i < message.size() && text.size() < k_max_kernel_text; ++i) {
    const char c = message[i];
    if (form == Form::syslog && c == '#' && i + 3 < message.size() && message[i + 1] == '0'
        && message[i + 2] == '1' && (message[i + 3] == '2' || message[i + 3] == '1')) {
      text += message[i + 3] == '2' ? '\n' : '\t';
      i += 3;
      continue;
    }
    if (form == Form::kmsg && c == '\\' && i + 3 < message.size() && message[i + 1] == 'x'
        && util::hex_digit(message[i + 2]) >= 0 && util::hex_digit(message[i + 3]) >= 0) {
      text +=
          static_cast<char>(util::hex_digit(message[i + 2]) * 16 + util::hex_digit(message[i + 3]));
      i += 3;
      continue;
    }
    text += c;
  }
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (lines.size() < k_max_split_lines) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos || lines.size() + 1 == k_max_split_lines) {
      lines.emplace_back(trim_right(std::string_view(text).substr(start)));
      break;
    }
    lines.emplace_back(trim_right(std::string_view(text).substr(start, nl - start)));
    start = nl + 1;
  }
  return lines;
}

// The NVIDIA driver prints some messages as several "NVRM: " lines; they are one message.
enum class Join { none, gpu_sentence, api_mismatch, probe_not_called };

constexpr std::size_t k_max_join_lines = 10;

Join join_head(std::string_view text) {
  const std::string_view t = trim_right(text);
  if (starts_with(t, "NVRM: The NVIDIA GPU ") && !ends_with(t, ".")) {
    return Join::gpu_sentence;
  }
  if (starts_with(t, "NVRM: API mismatch") && t.find("same version") == std::string_view::npos) {
    return Join::api_mismatch;
  }
  if (starts_with(t, "NVRM: The NVIDIA probe routine was not called")) {
    return Join::probe_not_called;
  }
  return Join::none;
}

bool continues(std::string_view text) {
  return starts_with(text, "NVRM:") && join_head(text) == Join::none
         && !starts_with(text, "NVRM: Xid") && !starts_with(text, "NVRM: GPU ")
         && !starts_with(text, "NVRM: GPU at") && !starts_with(text, "NVRM: No NVIDIA")
         && !starts_with(text, "NVRM: The NVIDIA probe routine failed")
         && !starts_with(text, "NVRM: loading");
}

bool ends_join(Join join, std::string_view text) {
  const std::string_view t = trim_right(text);
  switch (join) {
  case Join::gpu_sentence:
    return ends_with(t, ".");
  case Join::api_mismatch:
    return t.find("same version") != std::string_view::npos;
  case Join::probe_not_called:
    return ends_with(t, "again.");
  case Join::none:
    break;
  }
  return true;
}

class Reader {
public:
  Reader(const std::string& source, const std::function<void(KernelLine&&)>& sink)
      : m_source(source)
      , m_sink(sink) {}

  void physical(std::string_view line, std::size_t number) {
    line = trim_right(line);
    Parsed parsed = parse_physical(line, m_after_kmsg);
    if (parsed.form == Form::kmsg) {
      m_after_kmsg = true;
    } else if (parsed.form != Form::skip) {
      m_after_kmsg = false;
    }
    if (parsed.form == Form::journal_marker) {
      take_boot_marker(parsed.message);
      return;
    }
    if (parsed.form == Form::skip || parsed.form == Form::syslog_other
        || parsed.form == Form::pstore_header) {
      return;
    }
    if (parsed.message.empty()) {
      return;
    }
    parsed.when.boot = m_boot;
    for (std::string& text : unescape_lines(parsed.message, parsed.form)) {
      KernelLine out;
      out.when = parsed.when;
      out.origin = Origin{m_source, "line " + std::to_string(number)};
      out.level = parsed.level;
      out.text = std::move(text);
      logical(std::move(out));
    }
  }

  void finish() { flush(); }

private:
  void take_boot_marker(std::string_view marker) {
    // "-- Boot 3f7e2b0c9a1d4e5f8a6b7c8d9e0f1a2b --"
    if (starts_with(marker, "-- Boot ") && marker.size() > 11) {
      const std::string_view id = util::trim(marker.substr(8, marker.size() - 8 - 3));
      if (!id.empty() && id.size() <= 64 && id.find(' ') == std::string_view::npos) {
        m_boot = std::string(id);
      }
    }
  }

  void logical(KernelLine&& line) {
    if (m_pending && m_join != Join::none && continues(line.text)
        && m_pending->text.size() + line.text.size() < k_max_kernel_text) {
      m_pending->text += '\n';
      m_pending->text += line.text;
      ++m_join_lines;
      if (ends_join(m_join, line.text) || m_join_lines >= k_max_join_lines) {
        flush();
      }
      return;
    }
    flush();
    m_join = join_head(line.text);
    if (m_join == Join::none) {
      m_sink(std::move(line));
      return;
    }
    m_join_lines = 1;
    m_pending = std::move(line);
  }

  void flush() {
    if (m_pending) {
      m_sink(std::move(*m_pending));
      m_pending.reset();
    }
    m_join = Join::none;
  }

  const std::string& m_source;
  const std::function<void(KernelLine&&)>& m_sink;
  std::optional<KernelLine> m_pending;
  Join m_join = Join::none;
  std::size_t m_join_lines = 0;
  bool m_after_kmsg = false;
  std::string m_boot;
};

bool strong_form(const Parsed& parsed) {
  switch (parsed.form) {
  case Form::plain:
  case Form::skip:
    return false;
  case Form::iso:
    // dmesg writes "2025-01-21T04:41:44,283575+00:00": the comma sets it apart from the ISO
    // times of any other log.
    return parsed.when.label.find(',') != std::string::npos;
  case Form::journal_marker:
    return starts_with(parsed.message, "-- Boot ")
           || parsed.message.find("egin at") != std::string_view::npos;
  default:
    return true;
  }
}

} // namespace

void read_kernel_log(std::string_view text,
                     const std::string& source,
                     const std::function<void(KernelLine&&)>& sink) {
  Reader reader(source, sink);
  std::size_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    ++number;
    reader.physical(text.substr(start, std::min(end - start, 4 * k_max_kernel_text)), number);
    start = end + 1;
  }
  reader.finish();
}

std::vector<KernelLine> read_kernel_log(std::string_view text, const std::string& source) {
  std::vector<KernelLine> lines;
  read_kernel_log(text, source, [&lines](KernelLine&& line) { lines.push_back(std::move(line)); });
  return lines;
}

bool looks_like_kernel_log(std::string_view head) {
  if (head.find("NVRM: ") != std::string_view::npos) {
    return true;
  }
  std::size_t start = 0;
  bool after_kmsg = false;
  for (std::size_t n = 0; n < k_head_lines && start < head.size(); ++n) {
    std::size_t end = head.find('\n', start);
    if (end == std::string_view::npos) {
      end = head.size();
    }
    const Parsed parsed = parse_physical(trim_right(head.substr(start, end - start)), after_kmsg);
    after_kmsg = parsed.form == Form::kmsg || (after_kmsg && parsed.form == Form::skip);
    if (strong_form(parsed)) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

} // namespace doctor::formats
