// SPDX-License-Identifier: MIT
#include <doctor/util/escape.hpp>
#include <doctor/util/shell.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::util {

namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c);
}

// Characters that mean nothing to the shell anywhere in a word, so a value made of them alone
// needs no quotes. Deliberately short: anything else is quoted.
bool bare_safe(Shell shell, char c) {
  if (is_alnum(c)) {
    return true;
  }
  switch (shell) {
  case Shell::posix:
    return c == '_' || c == '-' || c == '.' || c == '/' || c == ',' || c == ':' || c == '='
           || c == '+' || c == '@' || c == '%';
  case Shell::cmd:
    return c == '_' || c == '-' || c == '.' || c == '\\' || c == '/' || c == ':' || c == '+'
           || c == '@' || c == '~' || c == '=';
  case Shell::powershell:
    return c == '_' || c == '-' || c == '.' || c == '\\' || c == '/' || c == ':' || c == '+'
           || c == '~' || c == '=';
  }
  return false;
}

bool all_bare_safe(Shell shell, std::string_view value) {
  if (value.empty()) {
    return false;
  }
  for (char c : value) {
    if (!bare_safe(shell, c)) {
      return false;
    }
  }
  // PowerShell reads a leading '-' as a parameter name and a leading '.' or digit-dot as
  // something else; quoting keeps it a string.
  return shell != Shell::powershell || (value.front() != '-' && value.front() != '.');
}

// The characters cmd.exe acts on even inside double quotes: % and ! expand variables (! under
// delayed expansion), " ends the quoted string, and ^ is the escape outside quotes, which a
// reader cannot tell from inside them.
std::string cmd_refusal(std::string_view value) {
  for (char c : value) {
    switch (c) {
    case '%':
      return "it holds %, which cmd.exe expands even inside quotes";
    case '!':
      return "it holds !, which cmd.exe expands under delayed expansion even inside quotes";
    case '"':
      return "it holds \", which cmd.exe cannot quote";
    case '^':
      return "it holds ^, cmd.exe's escape character";
    default:
      break;
    }
  }
  return {};
}

// PowerShell takes the typographic single quotes as quotes too.
bool is_powershell_single_quote(std::uint32_t cp) {
  return cp == '\'' || cp == 0x2018 || cp == 0x2019 || cp == 0x201A || cp == 0x201B;
}

bool is_powershell_double_quote(std::uint32_t cp) {
  return cp == '"' || cp == 0x201C || cp == 0x201D || cp == 0x201E;
}

// Calls `each(sequence, code point)` for every character of `value`, which unpastable has
// accepted, so every sequence is valid.
template<typename F>
void for_each_char(std::string_view value, F each) {
  for (std::size_t i = 0; i < value.size();) {
    const std::size_t len = utf8_sequence_length(value, i);
    const std::string_view seq = value.substr(i, len);
    each(seq, utf8_code_point(seq));
    i += len;
  }
}

Expected<std::string> refuse(Shell shell, std::string_view why) {
  return make_error(ErrorCode::unsupported,
                    fmt::format("no command is offered: a value in it cannot be quoted safely for "
                                "{} ({})",
                                shell_name(shell),
                                why));
}

} // namespace

std::string_view shell_name(Shell s) {
  switch (s) {
  case Shell::posix:
    return "sh";
  case Shell::cmd:
    return "cmd.exe";
  case Shell::powershell:
    return "PowerShell";
  }
  return "sh";
}

std::string unpastable(std::string_view value) {
  for (std::size_t i = 0; i < value.size();) {
    const std::size_t len = utf8_sequence_length(value, i);
    if (len == 0) {
      return "it holds bytes that are not UTF-8, which cannot be typed";
    }
    const std::uint32_t cp = utf8_code_point(value.substr(i, len));
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
      return fmt::format(
          "it holds the control character U+{:04X}, which a pasted line cannot "
          "carry safely",
          cp);
    }
    if (is_bidi_format(cp)) {
      return fmt::format("it holds U+{:04X}, which reorders the text a reader sees", cp);
    }
    i += len;
  }
  return {};
}

Expected<std::string> quote_argument(Shell shell, std::string_view value) {
  if (std::string why = unpastable(value); !why.empty()) {
    return refuse(shell, why);
  }
  if (all_bare_safe(shell, value)) {
    return std::string(value);
  }
  std::string out;
  switch (shell) {
  case Shell::posix:
    out = "'" + replace_all(value, "'", "'\\''") + "'";
    break;
  case Shell::powershell:
    out = "'";
    for_each_char(value, [&](std::string_view seq, std::uint32_t cp) {
      out.append(seq);
      if (is_powershell_single_quote(cp)) {
        out.append(seq);
      }
    });
    out += "'";
    break;
  case Shell::cmd: {
    if (std::string why = cmd_refusal(value); !why.empty()) {
      return refuse(shell, why);
    }
    // Backslashes before the closing quote would escape it under the C runtime's rules
    // (CommandLineToArgvW): double them.
    std::size_t trailing = 0;
    while (trailing < value.size() && value[value.size() - 1 - trailing] == '\\') {
      ++trailing;
    }
    out = "\"" + std::string(value) + std::string(trailing, '\\') + "\"";
    break;
  }
  }
  return out;
}

Expected<std::string> quote_inside_double_quotes(Shell shell, std::string_view value) {
  if (std::string why = unpastable(value); !why.empty()) {
    return refuse(shell, why);
  }
  std::string out;
  switch (shell) {
  case Shell::posix:
    for (char c : value) {
      if (c == '\\' || c == '"' || c == '$' || c == '`') {
        out += '\\';
      }
      out += c;
    }
    break;
  case Shell::powershell:
    for_each_char(value, [&](std::string_view seq, std::uint32_t cp) {
      if (cp == '`' || cp == '$' || is_powershell_double_quote(cp)) {
        out += '`';
      }
      out.append(seq);
    });
    break;
  case Shell::cmd:
    if (std::string why = cmd_refusal(value); !why.empty()) {
      return refuse(shell, why);
    }
    out = value;
    break;
  }
  return out;
}

Command& Command::text(std::string_view trusted) {
  m_parts.push_back({Kind::text, std::string(trusted)});
  return *this;
}

Command& Command::value(std::string_view untrusted) {
  m_parts.push_back({Kind::word, std::string(untrusted)});
  return *this;
}

Command& Command::arg(std::string_view untrusted) {
  text(" ");
  return value(untrusted);
}

Command& Command::value_in_double_quotes(std::string_view untrusted) {
  m_parts.push_back({Kind::in_double_quotes, std::string(untrusted)});
  return *this;
}

Command& Command::append(const Command& other) {
  m_parts.insert(m_parts.end(), other.m_parts.begin(), other.m_parts.end());
  return *this;
}

Expected<std::string> Command::render(Shell shell) const {
  std::string out;
  for (const Part& p : m_parts) {
    if (p.kind == Kind::text) {
      out += p.text;
      continue;
    }
    auto quoted = p.kind == Kind::word ? quote_argument(shell, p.text)
                                       : quote_inside_double_quotes(shell, p.text);
    if (!quoted) {
      return tl::unexpected(quoted.error());
    }
    out += *quoted;
  }
  return out;
}

} // namespace doctor::util
