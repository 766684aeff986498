#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation loop over explain's input: the explain corpus (real-shaped logs in UTF-8, UTF-16 and
GBK) and the explain fuzz corpus, each mutant explained without the machine, as JSON (the format
that fails loudest on a broken string)."""
import os

import hostile as x
from hostile import test

HERE = os.path.dirname(os.path.abspath(__file__))


@test
def mutated_explain_input():
    seeds = x.seed_files(os.path.join(HERE, "..", "explain", "cases"),
                         os.path.join(HERE, "..", "fuzz", "corpus", "explain"))
    x.mutation_loop("explain", seeds, lambda p: ["explain", "--no-machine", "--format", "json", p],
                    suffix=".log")


if __name__ == "__main__":
    x.main()
