#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation loop over ELF objects: the ELF fuzz corpus and small real libraries of this machine,
each mutant resolved as a tree (`resolve --tree`, which reads its dynamic section, versions and
symbols) and as the object a library is asked from (`resolve --from`)."""
import glob
import os

import hostile as x
from hostile import test

HERE = os.path.dirname(os.path.abspath(__file__))


def seeds():
    corpus = x.seed_files(os.path.join(HERE, "..", "fuzz", "corpus", "elf"))
    real = [p for p in sorted(glob.glob("/usr/lib/x86_64-linux-gnu/lib[mz]*.so.*"))
            if os.path.isfile(p) and os.path.getsize(p) < (1 << 20)][:6]
    return corpus + real


@test
def mutated_elf_objects():
    n = 0

    def args(p):
        nonlocal n
        n += 1
        if n % 2:
            return ["resolve", "--no-nvml", "--tree", p]
        return ["resolve", "--no-nvml", "--format", "json", "--from", p, "libcudnn.so.9"]
    x.mutation_loop("elf", seeds(), args, suffix=".so")


if __name__ == "__main__":
    x.main()
