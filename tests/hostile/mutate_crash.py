#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation loop over crash evidence: real Windows dumps, event logs and Linux kernel logs of
../shared/testdata, the crash goldens' inputs and the parsers' fuzz corpora, each mutant read by
`crashes --from` (which types a file by its first bytes, never by its name)."""
import os

import hostile as x
from hostile import test

HERE = os.path.dirname(os.path.abspath(__file__))


def seeds():
    src = os.path.join(HERE, "..", "..")
    return x.seed_files(os.path.join(src, "..", "shared", "testdata"),
                        os.path.join(src, "tests", "crash_golden"),
                        *[os.path.join(src, "tests", "fuzz", "corpus", c)
                          for c in ("kernel_log", "evtx", "event_xml", "minidump", "kernel_dump")])


@test
def mutated_crash_evidence():
    x.mutation_loop("crash", [s for s in seeds() if not s.endswith((".txt", ".json", ".py", ".md"))
                              or "/fuzz/corpus/" in s],
                    lambda p: ["crashes", "--format", "json", "--from", p])


if __name__ == "__main__":
    x.main()
