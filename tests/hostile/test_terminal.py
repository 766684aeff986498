#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Names and log lines that try to drive the reader's terminal or Markdown viewer, names that are
not UTF-8, and long non-ASCII evidence. Every untrusted string is escaped at the report boundary
(visibly: \\x1b, \\r), Markdown shows links and HTML as text, JSON keeps the exact bytes of a name
that is not UTF-8, and text is cut on character boundaries only."""
import json
import os
import re
import sys

import hostile as x
from hostile import expect, expect_contains, test

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import scenario_lib  # noqa: E402

# A folder name that sets the window title, clears the screen and draws a fake report line.
TERMINAL_ATTACK = "/opt/cuda-12.4\x1b]0;owned\x07\x1b[2J\nCRITICAL fake finding\r"
MARKDOWN_ATTACK = "/opt/cuda-[click](https:evil.example)<img src=x>"


def two_toolkits(root, second):
    """Two CUDA toolkits: the second folder's name is in the inventory and in the finding
    cuda.multiple_toolkits (message and evidence)."""
    scenario_lib._ELF_CACHE.clear()
    t = scenario_lib.Tree(root)
    t.ubuntu_base()
    t.cuda_toolkit("/usr/local/cuda-12.2", "12.2.2", "12.2.140")
    t.cuda_toolkit(second, "12.4.1", "12.4.127")
    return t


def expect_answer(r):
    """expect_no_internal_error for a run with text=False (stdout and stderr are bytes)."""
    expect(r.code in (0, 1, 2) and b"internal error" not in r.err.lower(), f"{r!r}")


def control_bytes(text):
    return sorted({c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0})


@test
def check_text_escapes_control_characters_in_folder_names():
    with x.tree() as root:
        two_toolkits(root, TERMINAL_ATTACK)
        r = x.run(["check", "--sysroot", root, "--no-nvml", "--color", "never"], timeout=60)
        x.expect_no_internal_error(r)
        expect(not control_bytes(r.out), f"raw control characters {control_bytes(r.out)}: {r!r}")
        expect(not any(l.startswith("CRITICAL fake") for l in r.out.splitlines()),
               f"the folder name drew a report line: {r!r}")
        expect_contains(r.out, "/opt/cuda-12.4\\x1b]0;owned\\x07\\x1b[2J\\nCRITICAL fake finding\\r")
        expect_contains(r.out, "cuda.multiple_toolkits")


@test
def check_markdown_escapes_controls_links_and_html():
    for name in (TERMINAL_ATTACK, MARKDOWN_ATTACK):
        with x.tree() as root:
            two_toolkits(root, name)
            r = x.run(["check", "--sysroot", root, "--no-nvml", "--format", "markdown"], timeout=60)
            x.expect_no_internal_error(r)
            expect(not control_bytes(r.out), f"raw control characters: {r!r}")
            # Inside a code span Markdown shows text as it is: only the rest may not hold markup.
            prose = re.sub(r"(`+)(.+?)\1", "", r.out)
            expect(not re.search(r"(?<!\\)\[click(?<!\\)\]\(", prose), f"a link survived: {r!r}")
            expect(not re.search(r"(?<!\\)<img", prose), f"HTML survived: {r!r}")
            expect(not any(l.startswith("CRITICAL fake") for l in r.out.splitlines()), f"{r!r}")
    expect_contains(r.out, "\\[click\\]\\(https:evil.example\\)\\<img src=x\\>")


@test
def explain_text_shows_bel_backspace_and_carriage_return_visibly():
    log = ("HIDDEN\rCould not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: "
           "cannot open shared object file: No such file or directory \x07\x08\n")
    for fmt in ("text", "markdown"):
        r = x.run(["explain", "-", "--format", fmt, "--color", "never"], stdin=log, timeout=30)
        x.expect_no_internal_error(r)
        expect(not control_bytes(r.out), f"raw control characters {control_bytes(r.out)}: {r!r}")
        expect_contains(r.out, "HIDDEN\\rCould not load library")
        expect_contains(r.out, "\\x07\\x08")


@test
def json_keeps_the_bytes_of_a_name_that_is_not_utf8():
    raw_name = b"/opt/cuda-\xff\xfe12.4"
    with x.tree() as root:
        two_toolkits(root, os.fsdecode(raw_name))
        r = x.run(["check", "--sysroot", root, "--no-nvml", "--format", "json"], timeout=60,
                  text=False)
        expect_answer(r)
        doc = json.loads(r.out.decode("utf-8"))  # strict: the whole document is UTF-8
        toolkits = doc["inventory"]["cuda_toolkits"]
        odd = [tk for tk in toolkits if "path_bytes" in tk]
        expect(len(odd) == 1, f"path_bytes on {len(odd)} toolkits: {toolkits}")
        expect(bytes.fromhex(odd[0]["path_bytes"]) == raw_name, f"bytes lost: {odd[0]}")
        expect(odd[0]["path"] == "/opt/cuda-\\xff\\xfe12.4", f"escaped form: {odd[0]}")
        found = [f for f in doc["findings"] if f["id"] == "cuda.multiple_toolkits"]
        expect(found and "message_bytes" in found[0], f"no message_bytes: {found}")
        expect(raw_name in bytes.fromhex(found[0]["message_bytes"]), f"{found[0]}")


CUDNN_LINE = ("Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN "
              "library needs to have matching major version and equal or higher minor version.")


@test
def explain_cuts_long_non_ascii_evidence_on_character_boundaries():
    prefixes = {"cjk": "加载运行时库失败" * 17 + "错误",  # 138 characters, 414 bytes
                "latin": "é" * 250,
                "mixed": "日本語テキスト" * 20 + "é"}
    for label, prefix in prefixes.items():
        line = prefix + " " + CUDNN_LINE + "\n"
        r = x.run(["explain", "-", "--format", "json"], stdin=line, timeout=30, text=False)
        expect_answer(r)
        doc = json.loads(r.out.decode("utf-8"))
        texts = [e["text"] for c in doc["causes"] for e in c["evidence"]]
        expect(texts, f"{label}: no evidence: {doc}")
        expect(all(line.startswith(t) and len(t.encode()) <= 400 for t in texts),
               f"{label}: evidence is not a whole-character start of the line: {texts}")
        for fmt in ("text", "markdown"):
            out = x.run(["explain", "-", "--format", fmt, "--color", "never"], stdin=line,
                        timeout=30, text=False)
            expect_answer(out)
            out.out.decode("utf-8")  # raises on a cut sequence


if __name__ == "__main__":
    x.main()
