// SPDX-License-Identifier: MIT
// Lines a console cut at its width, joined again before matching (explain/hard_wrap.hpp).
#include <doctor/explain/hard_wrap.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace doctor::explain {
namespace {

std::vector<util::TextLine> lines_of(const std::vector<std::string>& texts) {
  std::vector<util::TextLine> out;
  for (const std::string& t : texts) {
    util::TextLine l;
    l.number = out.size() + 1;
    l.text = t;
    out.push_back(l);
  }
  return out;
}

// The texts of `texts`' lines after `join` ran on them.
template<class Join>
std::vector<std::string> after(Join join, const std::vector<std::string>& texts) {
  auto lines = lines_of(texts);
  join(lines);
  std::vector<std::string> out;
  for (const auto& l : lines) {
    out.push_back(l.text);
  }
  return out;
}

std::vector<std::string> joined(const std::vector<std::string>& texts) {
  return after([](std::vector<util::TextLine>& lines) { join_hard_wraps(lines); }, texts);
}

std::vector<std::string> commands_joined(const std::vector<std::string>& texts) {
  return after([](std::vector<util::TextLine>& lines) { join_continued_commands(lines); }, texts);
}

// `text` cut every `width` columns (ASCII only).
std::vector<std::string> cut(const std::string& text, std::size_t width) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); i += width) {
    out.push_back(text.substr(i, width));
  }
  return out;
}

TEST(HardWrap, DisplayWidth) {
  EXPECT_EQ(display_width(""), 0U);
  EXPECT_EQ(display_width("Error code 126"), 14U);
  EXPECT_EQ(display_width("找不到指定的模块。"), 18U); // wide characters and the ideographic stop
  EXPECT_EQ(display_width("a\tb"), 9U);
  EXPECT_EQ(display_width("e\xCC\x81"), 1U);    // e and a combining acute accent
  EXPECT_EQ(display_width("\xFF\xFE"), 2U);     // invalid bytes count one each
  EXPECT_EQ(display_width("\xE6\x89\xBE"), 2U); // 找
  EXPECT_EQ(display_width("\xE6\x89"), 2U);     // a cut sequence: two bytes of one
}

TEST(HardWrap, AMessageCutAtEightyColumnsIsJoined) {
  const std::string message =
      "2023-05-17 10:11:12.345678: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
      "Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found";
  std::vector<std::string> text = {"PS C:\\work> python train.py"};
  for (const std::string& piece : cut(message, 80)) {
    text.push_back(piece);
  }
  text.push_back("Traceback (most recent call last):");
  auto lines = lines_of(text);
  EXPECT_EQ(hard_wrap_width(lines), 80U);
  EXPECT_EQ(join_hard_wraps(lines), 2U);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[1].text, message);
  EXPECT_EQ(lines[1].number, 2U);
  EXPECT_EQ(lines[1].span, 3U);
  EXPECT_EQ(lines[2].number, 5U);
  EXPECT_EQ(lines[2].span, 1U);
}

TEST(HardWrap, OneWidestLineAtAnOddWidthIsNoEvidence) {
  const std::vector<std::string> text = {
      "RuntimeError: CUDA error: an illegal memory access was encountered at step 1200 (x)",
      "CUDA kernel errors might be asynchronously reported at some other API call"};
  EXPECT_EQ(display_width(text[0]), 83U);
  EXPECT_EQ(joined(text), text);
}

TEST(HardWrap, TwoCutLinesAtAnyWidth) {
  const std::string a(93, 'a');
  const std::string b = std::string(92, 'b') + "c";
  const std::vector<std::string> text = {a, "tail one", b, "tail two"};
  EXPECT_EQ(joined(text), (std::vector<std::string>{a + "tail one", b + "tail two"}));
}

TEST(HardWrap, TablesRulesDuplicatesAndFencesStay) {
  const std::string row1 =
      "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |";
  const std::string row2 =
      "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |";
  const std::string rule =
      "+-----------------------------------------+----------------------+----------------------+";
  const std::string same(90, 'x');
  const std::vector<std::string> table = {rule, row1, rule, row2, rule, "after the table"};
  EXPECT_EQ(joined(table), table);
  const std::vector<std::string> repeated = {same, same, same, "next"};
  EXPECT_EQ(joined(repeated), repeated); // one distinct cut line at 90: no evidence
  const std::vector<std::string> fenced = {std::string(80, 'y'), "```", std::string(80, 'z'), ""};
  EXPECT_EQ(joined(fenced), fenced);
  const std::vector<std::string> pytest = {std::string(35, '=') + " test session starts "
                                               + std::string(24, '='),
                                           "platform linux -- Python 3.11.4"};
  EXPECT_EQ(joined(pytest), pytest);
}

TEST(HardWrap, APaddedConsoleJoinsOnlyTheCutLines) {
  // The Windows console host's copy pads every line to the width with spaces.
  auto pad = [](std::string s) {
    s.resize(80, ' ');
    return s;
  };
  const std::string message =
      "OSError: [WinError 126] The specified module could not be found. "
      "Error loading \"C:\\env\\lib\\site-packages\\torch\\lib\\"
      "cudnn_cnn_infer64_8.dll\" or one of its dependencies.";
  const auto pieces = cut(message, 80);
  ASSERT_EQ(pieces.size(), 3U);
  const std::vector<std::string> text = {pad("Traceback (most recent call last):"),
                                         pieces[0],
                                         pieces[1],
                                         pad(pieces[2]),
                                         pad("C:\\work>")};
  EXPECT_EQ(joined(text),
            (std::vector<std::string>{text[0], pieces[0] + pieces[1] + pad(pieces[2]), text[4]}));
}

TEST(HardWrap, AWideCharacterThatDidNotFit) {
  // 79 columns, then a wide character that needs two: the console moved it to the next line.
  const std::string first = "RuntimeError: " + std::string(63, 'x') + "——";
  ASSERT_EQ(display_width(first), 79U);
  const std::string second = "显存不足，请减小批量大小";
  const std::vector<std::string> text = {first, second, std::string(80, 'q'), "end"};
  EXPECT_EQ(joined(text), (std::vector<std::string>{first + second, std::string(80, 'q') + "end"}));
}

TEST(HardWrap, JuliaMarginsAreNotTables) {
  const std::vector<std::string> text = {
      "│    could not load library \"C:\\Users\\user\\.julia\\artifacts\\d1e2f396182c9319f1ae",
      "2e7f020a3b969ccb8cc6\\bin\\cudnn_ops_infer64_8.dll\"",
      "│    Access is denied."};
  ASSERT_EQ(display_width(text[0]), 80U);
  EXPECT_EQ(joined(text), (std::vector<std::string>{text[0] + text[1], text[2]}));
}

TEST(HardWrap, LinesThatEndedByThemselvesStay) {
  const std::string wide(79, 'w');
  // The next record of a log, in the same shape as the line before it.
  const std::vector<std::string> syslog = {
      "Feb 15 17:37:45 host kernel: [82659.755967] NVRM: Xid (PCI:0000:3b:00): 13, " + wide,
      "Feb 15 17:37:45 host kernel: [82659.756410] NVRM: Xid (PCI:0000:3b:00): 13, " + wide,
      "Feb 15 17:37:46 host slurmd[1877]: launch task"};
  EXPECT_EQ(joined(syslog), syslog);
  // A bracketed timestamp opens the next record; a sentence ended and the next begins.
  const std::vector<std::string> records = {
      std::string(72, 'x') + " float16",
      "[2024-09-30 21:14:02] faster-whisper 1.0.3",
      std::string(70, 'y') + " library path!",
      "Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor"};
  EXPECT_EQ(joined(records), records);
  // Latin script turning to Chinese at the break: the line ended there.
  const std::vector<std::string> script = {
      "pip install paddlepaddle-gpu -f https://www.paddlepaddle.org.cn/whl/windows/mkl/avx/"
      "stable.html"
          + std::string(25, 'z'),
      "官方推荐CUDA 11.2搭配8.1.1使用"};
  ASSERT_EQ(display_width(script[0]), 120U);
  EXPECT_EQ(joined(script), script);
}

TEST(HardWrap, OnlyAConsoleWindowsWidth) {
  // Log records wider than any console window, or narrower than one, are not cut lines.
  const std::vector<std::string> long_records = {
      std::string(300, 'a'), "b", std::string(300, 'c'), "d"};
  EXPECT_EQ(joined(long_records), long_records);
  const std::vector<std::string> short_lines = {
      std::string(64, 'a'), "b", std::string(64, 'c'), "d"};
  EXPECT_EQ(joined(short_lines), short_lines);
}

TEST(HardWrap, SyslogPartsAndCutLinesStay) {
  auto lines = lines_of({std::string(80, 'a'), "b", std::string(80, 'c'), "d"});
  lines[1].part = 1;
  lines[2].cut = true;
  const auto before = lines;
  EXPECT_EQ(join_hard_wraps(lines), 0U);
  EXPECT_EQ(lines, before);
}

} // namespace
} // namespace doctor::explain

namespace doctor::explain {
namespace {

TEST(ContinuedCommands, AShellCommandOverLinesIsOneLine) {
  EXPECT_EQ(commands_joined({"docker run -it \\",
                             "    --shm-size=1g --ulimit memlock=-1 \\",
                             "    -v ${WORKSPACE}:/workspace \\",
                             "    --name ft_backend_builder ${TRITON_DOCKER_IMAGE} bash",
                             "after"}),
            (std::vector<std::string>{"docker run -it --shm-size=1g --ulimit memlock=-1 -v "
                                      "${WORKSPACE}:/workspace --name ft_backend_builder "
                                      "${TRITON_DOCKER_IMAGE} bash",
                                      "after"}));
  auto lines = lines_of({"docker run --rm \\", "  --gpus all img"});
  EXPECT_EQ(join_continued_commands(lines), 1U);
  EXPECT_EQ(lines.front().span, 2U);
  // Quoted in a reply, each line keeps the quote markers.
  EXPECT_EQ(commands_joined(
                {"> docker run -it \\", ">     --shm-size=1g \\", ">     img bash", "> after"}),
            (std::vector<std::string>{"> docker run -it --shm-size=1g img bash", "> after"}));
  EXPECT_EQ(commands_joined({"> docker run -it \\", "    --gpus all img"}),
            (std::vector<std::string>{"> docker run -it \\", "    --gpus all img"}));
}

TEST(ContinuedCommands, PathsAndProseStay) {
  // A Windows path ends in a backslash without a space; a next line that does not go on (no
  // indentation, no option) is not the command's.
  for (const std::vector<std::string>& texts :
       std::vector<std::vector<std::string>>{{"copy to C:\\Program Files\\NVIDIA\\", "  next"},
                                             {"docker run -it \\", "Then it fails."},
                                             {"docker run -it \\", ""}}) {
    EXPECT_EQ(commands_joined(texts), texts);
  }
}

std::vector<std::string> fields_joined(const std::vector<std::string>& texts) {
  return after([](std::vector<util::TextLine>& lines) { join_form_fields(lines); }, texts);
}

TEST(FormFields, AVersionQuestionTakesItsAnswer) {
  EXPECT_EQ(fields_joined({"### TensorFlow version",
                           "",
                           "2.12.0",
                           "",
                           "### CUDA/cuDNN version",
                           "",
                           "11.2/8.1",
                           "",
                           "### Current behavior?"}),
            (std::vector<std::string>{"TensorFlow version: 2.12.0",
                                      "",
                                      "CUDA/cuDNN version: 11.2/8.1",
                                      "",
                                      "### Current behavior?"}));
  EXPECT_EQ(fields_joined({"#### **CUDA 版本：**", "12.1"}),
            (std::vector<std::string>{"CUDA 版本: 12.1"}));
  auto lines = lines_of({"### Version", "", "", "v2.15.5", "next"});
  EXPECT_EQ(join_form_fields(lines), 3U);
  EXPECT_EQ(lines.front().text, "Version: v2.15.5");
  EXPECT_EQ(lines.front().span, 4U);
  EXPECT_EQ(lines.back().text, "next");
}

TEST(FormFields, OtherHeadingsAndAnswersStay) {
  for (const std::vector<std::string>& texts : std::vector<std::vector<std::string>>{
           {"### Relevant log output", "", "Could not load library cudnn_cnn_infer64_8.dll"},
           {"### Python version", "", "```shell", "3.10"},
           {"### Python version", "", "### OS"},
           {"### Python version", "", "", "", "3.10"}, // too far below its question
           {"#Python version", "3.10"},                // not a heading
           {"### Python version"}}) {
    EXPECT_EQ(fields_joined(texts), texts);
  }
}

} // namespace
} // namespace doctor::explain
