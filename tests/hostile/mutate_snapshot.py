#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A mutation loop over the real snapshots of tests/golden/snapshots: for DOCTOR_MUTATE_MINUTES
(default 3) it mutates one of them (bytes, or a value somewhere in the tree: another type, an
extreme number, a value outside an enumerated set, a container repeated or nested deep, a key
twice, the text cut) and runs `check --snapshot` on it, from a file or from standard input. Every
run must end with 0, 1 or 2 within the harness's limits, a 2 must say why on stderr, and nothing
on stderr may look like a crash, a sanitizer's report or an internal error. A failing input is kept
under the build folder with the seed that made it (DOCTOR_MUTATE_SEED replays a run)."""
import json
import os
import random
import time

import hostile as x
from hostile import Failure, expect, test

CRASH_SIGNS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "terminate called",
               "Segmentation fault", "internal error", "Aborted", "core dumped")
EXTREMES = [0, -1, 1.5, 2 ** 32, 2 ** 63, 2 ** 64, -2 ** 63 - 1, "1e999999", "-1e999999", "1e-999",
            "", "\u0000", "\x1b[31m", "ｘ" * 3, None, True, [], {}, "9" * 400]
ENUM_FIELDS = ["os_family", "kind", "status", "format", "manager", "algorithm", "name", "bits",
               "kernel_module_type"]


def seeds():
    folder = os.path.join(x.h.SOURCE, "tests", "golden", "snapshots")
    out = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as f:
                out.append(f.read())
    return out


def nodes(tree, path=()):
    """Every (container, key) of the tree, so that a mutation can replace any value."""
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else []
    for k, v in items:
        yield tree, k, path + (k,)
        yield from nodes(v, path + (k,))


def raw(value):
    """A JSON text for `value`; strings starting with a digit or '-' go in bare (numbers that
    json.dumps would not write, such as 1e999999)."""
    if isinstance(value, str) and value[:1] in "-0123456789":
        return value
    return json.dumps(value)


def mutate_tree(rng, text):
    tree = json.loads(text)
    places = list(nodes(tree))
    if not places:
        return text
    container, key, _ = rng.choice(places)
    kind = rng.randrange(6)
    marker = "\u2063MUTATION\u2063"
    if kind == 0:  # another type or an extreme value
        container[key] = marker
        return json.dumps(tree).replace(json.dumps(marker), raw(rng.choice(EXTREMES)))
    if kind == 1:  # a value outside an enumerated set, where one is
        for c, k, _ in places:
            if k in ENUM_FIELDS and rng.random() < 0.5:
                c[k] = rng.choice(["Linux", "x", "", "ELF", "OK", 16, "regular "])
        return json.dumps(tree)
    if kind == 2:  # a value repeated many times, up to about the size cap
        size = len(json.dumps(container[key])) + 2
        container[key] = [container[key]] * min(rng.choice([2, 1000, 200000]), (120 << 20) // size)
        return json.dumps(tree)
    if kind == 3:  # nested deep
        depth = rng.choice([15, 16, 17, 64, 100000])
        container[key] = marker
        return json.dumps(tree).replace(json.dumps(marker), "[" * depth + "1" + "]" * depth)
    if kind == 4:  # a key twice
        if isinstance(container, dict):
            body = json.dumps(tree)
            k = json.dumps(key)
            return body.replace(k + ":", k + ": null, " + k + ":", 1)
        return json.dumps(tree)
    del container[key]  # a member or item missing
    return json.dumps(tree)


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(5)
        i = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(i, len(data) - 1)] = rng.randrange(256)
        elif op == 1:
            del data[i:i + rng.randint(1, 64)]
        elif op == 2:
            j = rng.randrange(len(data) + 1)
            data[i:i] = data[min(i, j):max(i, j)][:4096]
        elif op == 3:
            data[i:i] = rng.choice([b"[", b"{", b"1e999999", b"-", b'"', b"\\u0000", b"\xff\xfe",
                                    b",,", b"null", b"\"a\":1,"])
        else:
            del data[i:]
    return bytes(data)


def one_run(rng, base, workdir, n):
    if rng.random() < 0.6:
        data = mutate_tree(rng, base.decode()).encode()
    else:
        data = mutate_bytes(rng, base)
    path = x.write(os.path.join(workdir, f"mutant-{n}.json"), data)
    via_stdin = rng.random() < 0.3
    # A small run, three times the input, and the most the document's bounded counts can take
    # (1M values, 128k objects: about 150 MB, reached by a dense text of a few MB).
    rss_mb = 60 + 150 + 3 * (len(data) >> 20)
    try:
        if via_stdin:
            with open(path, "rb") as f:
                r = x.run(["check", "--snapshot", "-", "--format", "json"], stdin=f, timeout=120,
                          rss_mb=rss_mb)
        else:
            r = x.run(["check", "--snapshot", path, "--format", "json"], timeout=120, rss_mb=rss_mb)
        expect(r.code in (0, 1, 2), f"exit {r.code}")
        expect(r.code != 2 or r.err.strip(), "exit 2 without a message")
        for sign in CRASH_SIGNS:
            expect(sign not in r.err, f"{sign!r} on stderr")
        if r.code in (0, 1):
            r.json()
    except Failure as e:
        return data, str(e)[:2000]
    finally:
        os.unlink(path)
    return None


@test
def mutated_snapshots_never_crash():
    minutes = float(os.environ.get("DOCTOR_MUTATE_MINUTES", "3"))
    seed = int(os.environ.get("DOCTOR_MUTATE_SEED", str(int(time.time()))))
    rng = random.Random(seed)
    bases = seeds()
    expect(bases, "no snapshots in tests/golden/snapshots")
    out_dir = os.path.join(x.BINARY_DIR or ".", "mutate_snapshot_failures")
    deadline = time.monotonic() + minutes * 60
    runs, failures = 0, []
    with x.tree() as workdir:
        while time.monotonic() < deadline and len(failures) < 5:
            failed = one_run(rng, rng.choice(bases), workdir, runs)
            runs += 1
            if failed:
                data, why = failed
                os.makedirs(out_dir, exist_ok=True)
                keep = os.path.join(out_dir, f"seed{seed}-run{runs}.json")
                with open(keep, "wb") as f:
                    f.write(data)
                failures.append(f"{keep}: {why}")
    print(f"seed {seed}: {runs} mutants in {minutes} min, {len(failures)} failing")
    expect(not failures, "\n".join(failures))


if __name__ == "__main__":
    x.main()
