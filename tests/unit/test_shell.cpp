// SPDX-License-Identifier: MIT
#include <doctor/util/shell.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace doctor {
namespace {

using util::Command;
using util::quote_argument;
using util::quote_inside_double_quotes;
using util::Shell;

std::string quoted(Shell shell, std::string_view v) {
  auto q = quote_argument(shell, v);
  EXPECT_TRUE(q.has_value()) << v;
  return q ? *q : std::string("<refused>");
}

std::string refusal(Shell shell, std::string_view v) {
  auto q = quote_argument(shell, v);
  EXPECT_FALSE(q.has_value()) << v << " gave " << (q ? *q : "");
  return q ? std::string() : q.error().message;
}

TEST(shell, plain_values_stay_bare_in_every_shell) {
  for (Shell s : {Shell::posix, Shell::cmd, Shell::powershell}) {
    EXPECT_EQ(quoted(s, "nvidia-cudnn-cu12==9.1.0.70"), "nvidia-cudnn-cu12==9.1.0.70");
    EXPECT_EQ(quoted(s, "/usr/local/cuda-12.2/lib64"), "/usr/local/cuda-12.2/lib64");
  }
  EXPECT_EQ(quoted(Shell::cmd, "C:\\cudnn\\bin"), "C:\\cudnn\\bin");
}

TEST(shell, posix_single_quotes_everything_the_shell_would_act_on) {
  EXPECT_EQ(quoted(Shell::posix, "/usr/local/cuda-12.2;touch PWNED;#"),
            "'/usr/local/cuda-12.2;touch PWNED;#'");
  EXPECT_EQ(quoted(Shell::posix, "a'b"), "'a'\\''b'");
  EXPECT_EQ(quoted(Shell::posix, "$(id)`id`$HOME"), "'$(id)`id`$HOME'");
  EXPECT_EQ(quoted(Shell::posix, "!x *?[a] ~ & | < >"), "'!x *?[a] ~ & | < >'");
  EXPECT_EQ(quoted(Shell::posix, ""), "''");
  EXPECT_EQ(quoted(Shell::posix, "/opt/库/cuDNN"), "'/opt/库/cuDNN'");
}

TEST(shell, powershell_doubles_every_single_quote_including_typographic_ones) {
  EXPECT_EQ(quoted(Shell::powershell, "C:\\a b"), "'C:\\a b'");
  EXPECT_EQ(quoted(Shell::powershell, "it's"), "'it''s'");
  EXPECT_EQ(quoted(Shell::powershell, "a\u2019b"), "'a\u2019\u2019b'");
  EXPECT_EQ(quoted(Shell::powershell, "$(calc)`n"), "'$(calc)`n'");
  EXPECT_EQ(quoted(Shell::powershell, "-rf"), "'-rf'");
}

TEST(shell, cmd_double_quotes_and_doubles_trailing_backslashes) {
  EXPECT_EQ(quoted(Shell::cmd, "C:\\Program Files\\cuDNN"), "\"C:\\Program Files\\cuDNN\"");
  EXPECT_EQ(quoted(Shell::cmd, "C:\\R&D\\x y\\"), "\"C:\\R&D\\x y\\\\\"");
  EXPECT_EQ(quoted(Shell::cmd, "a|b<c>d(e)"), "\"a|b<c>d(e)\"");
}

TEST(shell, cmd_refuses_what_it_expands_inside_quotes) {
  EXPECT_NE(refusal(Shell::cmd, "C:\\%PATH%").find("%"), std::string::npos);
  EXPECT_NE(refusal(Shell::cmd, "C:\\wow!").find("delayed expansion"), std::string::npos);
  EXPECT_NE(refusal(Shell::cmd, "C:\\a\"b").find("cannot quote"), std::string::npos);
  EXPECT_NE(refusal(Shell::cmd, "C:\\a^b").find("escape"), std::string::npos);
  EXPECT_NE(refusal(Shell::cmd, "C:\\a^b").find("cmd.exe"), std::string::npos);
}

TEST(shell, every_shell_refuses_controls_bidi_and_invalid_utf8) {
  for (Shell s : {Shell::posix, Shell::cmd, Shell::powershell}) {
    EXPECT_NE(refusal(s, "/a\nrm -rf ~").find("U+000A"), std::string::npos);
    EXPECT_NE(refusal(s, "/a\rb").find("U+000D"), std::string::npos);
    EXPECT_NE(refusal(s, "/a\x1b]0;t\x07").find("U+001B"), std::string::npos);
    EXPECT_NE(refusal(s, "/a\u202eb").find("reorders"), std::string::npos);
    EXPECT_NE(refusal(s, "/a\u2067b").find("reorders"), std::string::npos);
    EXPECT_NE(refusal(s,
                      "/a\xc2\x9b"
                      "b")
                  .find("U+009B"),
              std::string::npos);
    EXPECT_NE(refusal(s, "/a\xff").find("not UTF-8"), std::string::npos);
  }
}

TEST(shell, inside_double_quotes_escapes_per_shell) {
  EXPECT_EQ(*quote_inside_double_quotes(Shell::posix, "a\"$b`c\\"), "a\\\"\\$b\\`c\\\\");
  EXPECT_EQ(*quote_inside_double_quotes(Shell::powershell, "a\"$b`c"), "a`\"`$b``c");
  EXPECT_EQ(*quote_inside_double_quotes(Shell::cmd, "C:\\R&D x"), "C:\\R&D x");
  EXPECT_FALSE(quote_inside_double_quotes(Shell::cmd, "C:\\%x%").has_value());
}

TEST(shell, a_command_quotes_its_values_and_keeps_its_own_text) {
  Command c("export LD_LIBRARY_PATH=");
  c.value("/opt/x;touch PWNED;#").text("${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}");
  EXPECT_EQ(*c.render(Shell::posix),
            "export LD_LIBRARY_PATH='/opt/x;touch PWNED;#'${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}");
  Command pip;
  pip.value("/v env/bin/python").text(" -m pip");
  Command full = pip;
  full.text(" install").arg("torch");
  EXPECT_EQ(*full.render(Shell::posix), "'/v env/bin/python' -m pip install torch");
  EXPECT_TRUE(Command().render(Shell::cmd)->empty());
  Command bad("set \"PATH=");
  bad.value_in_double_quotes("C:\\%USERPROFILE%").text(";%PATH%\"");
  ASSERT_FALSE(bad.render(Shell::cmd).has_value());
  EXPECT_NE(bad.render(Shell::cmd).error().message.find("no command is offered"),
            std::string::npos);
}

// The quoted word, run by a real sh, must come back as the very bytes it was made from.
TEST(shell, posix_quoting_round_trips_through_a_real_sh) {
#ifdef _WIN32
  GTEST_SKIP() << "no POSIX sh on Windows";
#endif
  for (std::string_view v : {"a b",
                             "a'b",
                             "''",
                             "$(touch /nonexistent/x)",
                             "`x`",
                             "\\",
                             "a\\'",
                             "!",
                             "*",
                             "~",
                             "#x",
                             "-n",
                             "é文字",
                             "%",
                             "{a,b}",
                             "a;b&c|d"}) {
    const std::string word = *quote_argument(Shell::posix, v);
    const std::string script = "printf '%s' " + word;
    std::string command = "sh -c " + *quote_argument(Shell::posix, script);
    FILE* p = popen(command.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[256];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) {
      out.append(buf, n);
    }
    EXPECT_EQ(pclose(p), 0) << v;
    EXPECT_EQ(out, v) << word;
  }
}

} // namespace
} // namespace doctor
