// SPDX-License-Identifier: MIT
// Commands for people to paste: a command is built from parts, the doctor's own text and the
// values it found on a machine (paths, package names), and each value is quoted when the command
// is rendered, by the rules of the shell the command is meant for. No printed command is made by
// joining strings.
#pragma once

#include <doctor/util/error.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace doctor::util {

// The shell a fix's command is written for.
enum class Shell { posix, cmd, powershell };

// "sh", "cmd.exe", "PowerShell".
std::string_view shell_name(Shell s);

// Returns why `value` cannot be pasted in any shell, or "" if it can: a control character
// (newline, carriage return, ESC, …), a C1 control, a Unicode bidirectional override character
// (it reorders what the reader sees) or bytes that are not UTF-8 (they cannot be typed).
std::string unpastable(std::string_view value);

// Quotes `value` as one argument for `shell`, leaving it bare when every character is safe there.
// POSIX sh: single quotes ('\'' for a quote). PowerShell: single quotes, every quote doubled
// (the typographic ones too). cmd.exe: double quotes, trailing backslashes doubled for the C
// runtime's argument rules. Returns an error saying why when no quoting makes `value` safe: see
// `unpastable`, and for cmd.exe also % and ! (expanded inside quotes), " and ^.
Expected<std::string> quote_argument(Shell shell, std::string_view value);

// Escapes `value` for the inside of a double-quoted string of `shell`, for a value that is part of
// a quoted word the doctor writes (cmd.exe's `set "PATH=…;%PATH%"`). Returns an error as
// quote_argument does.
Expected<std::string> quote_inside_double_quotes(Shell shell, std::string_view value);

// A command line as the doctor means it: trusted text, written by the doctor, and values, quoted
// for the shell at render time. Parts are joined as they are, with no space added.
class Command {
public:
  Command() = default;
  // A command that starts with the doctor's own text (a program name, "sudo apt install").
  explicit Command(std::string_view trusted) { text(trusted); }

  // Appends the doctor's own text as it is.
  Command& text(std::string_view trusted);
  // Appends an untrusted value, quoted as one word (it may touch text before and after it).
  Command& value(std::string_view untrusted);
  // Appends a space, then `untrusted` quoted as one argument.
  Command& arg(std::string_view untrusted);
  // Appends an untrusted value inside a double-quoted string that the text around it opens and
  // closes.
  Command& value_in_double_quotes(std::string_view untrusted);
  // Appends every part of `other`.
  Command& append(const Command& other);

  bool empty() const { return m_parts.empty(); }

  // The command for `shell`, or an error naming the value and why it cannot be quoted there.
  Expected<std::string> render(Shell shell) const;

  bool operator==(const Command&) const = default;

private:
  enum class Kind { text, word, in_double_quotes };
  struct Part {
    Kind kind;
    std::string text;
    bool operator==(const Part&) const = default;
  };
  std::vector<Part> m_parts;
};

} // namespace doctor::util
