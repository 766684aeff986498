#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hundreds of cuDNN folders on LD_LIBRARY_PATH. Each dispatcher there would load its
sub-libraries from elsewhere (a finding per folder), and each finding lists the loader's search:
one line per folder made the report grow with the square of the folders (1,000 folders: 172 MB,
2.1 GB RSS). A run of search steps that differ only in the folder is said once, so the report
grows linearly: the bound below is a few kilobytes per folder, for text and JSON."""
import os
import sys

import hostile as x
from hostile import expect, expect_contains, test

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import scenario_lib  # noqa: E402

FOLDERS = 120
# Bytes of report per folder: its finding (message, evidence, fixes) is about 2 KB of text.
PER_FOLDER = 6000


def many_dispatchers(root):
    """A complete cuDNN 9 in /usr/lib/x86_64-linux-gnu (in ld.so.cache), and FOLDERS folders
    that hold only the dispatcher libcudnn.so.9; returns the LD_LIBRARY_PATH that lists them."""
    scenario_lib._ELF_CACHE.clear()
    t = scenario_lib.Tree(root)
    t.ubuntu_base()
    t.cudnn_versioned("/usr/lib/x86_64-linux-gnu", "9.1.0", t.CUDNN9_STEMS)
    t.ldconfig()
    dirs = [f"/opt/cudnn-copy-{i}" for i in range(FOLDERS)]
    for d in dirs:
        t.elf(f"{d}/libcudnn.so.9", "libcudnn.so.9")
    return ":".join(dirs)


@test
def many_cudnn_folders_on_ld_library_path_give_a_linear_report():
    with x.tree() as root:
        path = many_dispatchers(root)
        for fmt in ("text", "json"):
            r = x.run(["check", "--sysroot", root, "--no-nvml", "--env", f"LD_LIBRARY_PATH={path}",
                       "--format", fmt, "--color", "never"],
                      timeout=600, rss_mb=400, max_output=FOLDERS * PER_FOLDER)
            x.expect_no_internal_error(r)
            expect_contains(r.out, "loader.cudnn_set_split")
            # The run of absent steps is one line, naming its size and both ends (the text
            # report wraps it).
            expect_contains(" ".join(r.out.split()), f"in each of {FOLDERS} folders, from /opt/cudnn-copy-0 to "
                                   f"/opt/cudnn-copy-{FOLDERS - 1}")
            expect("/opt/cudnn-copy-7/libcudnn_ops.so.9" not in r.out,
                   "a folder of the run is listed on its own")


if __name__ == "__main__":
    x.main()
