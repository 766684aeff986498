// SPDX-License-Identifier: MIT
// Text copied out of a console that cuts lines at its width (the Windows console host, a
// PowerShell error record, a terminal without reflow) carries a line break wherever a message
// reached the last column, often mid-word: "Could not load library cudnn_cnn_infer64_8.dl" then
// "l. Error code 126". Matched line by line, neither half names the failure.
//
// join_hard_wraps() finds the width a block of lines was cut at and joins each cut line with the
// line after it. The width is the widest line's, in display columns (an East Asian wide
// character takes two; a line one column short of the width is cut too when the next line starts
// with a wide character, which did not fit), between 70 and 250 columns (a console window's). A
// line is taken as cut only when it is that wide, does not end in a run of spaces (a console
// that pads lines to its width pads the short ones so), and is followed by a line that goes on:
// not empty, not a code fence, not the same text again, not the start of the next record of a
// log (a line that starts with the same shape of digits and punctuation, a "[" timestamp), not a
// new sentence after one that ended, and not a turn between Latin and East Asian script at the
// break. Table rows (nvidia-smi's box, Markdown tables: a border at both ends) and separator rules
// are never joined: they are as wide as their table, not cut. The width must be seen on two
// distinct cut lines, or on one when it is a console's default width (80 or 120 columns); a
// single line that happens to be the widest is not evidence of wrapping.
#pragma once

#include <doctor/util/text_decode.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace doctor::explain {

// Columns a terminal gives `utf8`: wide East Asian characters two, tabs to the next multiple of
// 8, control characters and combining marks none.
std::size_t display_width(std::string_view utf8);

// The width `lines` were cut at, or 0 when they show no cutting.
std::size_t hard_wrap_width(const std::vector<util::TextLine>& lines);

// Joins each cut line with the lines it continues into (the joined line keeps the first one's
// number, and its span counts the lines joined; a join stops before the result would pass
// util::k_max_line_bytes). Returns the number
// of lines joined into others.
// `width`, when given, receives the width found (0 for none).
std::size_t join_hard_wraps(std::vector<util::TextLine>& lines, std::size_t* width = nullptr);

// Joins a shell command continued over lines with its continuation: a line that ends in a space
// and a backslash (`docker run -it \`), followed by a line that starts with blanks or a dash (the
// next arguments), becomes one line, the backslash replaced by a space, so that a command's
// options are read together ("docker run" and its --gpus on the next line). A Windows path that
// ends in a backslash has no space before it. Returns the number of lines joined into others.
std::size_t join_continued_commands(std::vector<util::TextLine>& lines);

// Joins an issue form's version field with its answer. GitHub's issue forms put each answer
// under its question as a Markdown heading, a blank line between: "### CUDA/cuDNN version", "",
// "11.2/8.1". A heading whose words name a version (short, with "version" or "版本" in it),
// followed by at most two blank lines and a short answer (not a heading, not a code fence),
// becomes one line "CUDA/cuDNN version: 11.2/8.1", so that the answer is read as the version of
// what the question names. Returns the number of lines joined into others.
std::size_t join_form_fields(std::vector<util::TextLine>& lines);

} // namespace doctor::explain
