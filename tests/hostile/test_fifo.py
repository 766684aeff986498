#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""FIFOs named like the files the doctor reads. Nothing ever writes to them: a reader that opens one
without O_NONBLOCK, or reads it as if it were a regular file, blocks forever. Each case must
answer promptly, say what it found there, and never call a FIFO a library."""
import os

import hostile as x
from hostile import expect, test


@test
def os_release_fifo_in_a_sysroot():
    with x.tree() as root:
        x.fifo(os.path.join(root, "etc", "os-release"))
        r = x.run(["check", "--sysroot", root, "--format", "json"], timeout=30)
        x.expect_no_internal_error(r)


if __name__ == "__main__":
    x.main()
