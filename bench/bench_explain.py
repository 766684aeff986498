#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Benchmarks `cudnn-doctor explain` over a large log against ripgrep given the same patterns.

Writes (once per size, into --dir) a log that looks like a long training run: progress and
metric lines, framework info lines, warnings, the known-harmless TensorFlow start-up noise every
few thousand lines, and three real failures buried at 40 %, 75 % and 99 % of the file. Then, for
each size (256 MB and 1 GB by default), runs interleaved after one warm-up each (page cache warm):

  cudnn-doctor explain --no-machine --format json LOG      every signature, ranked, with evidence
  rg --no-config -n -f PATTERNS LOG                        the same patterns, matching lines printed
  rg --no-config -c -f COMMON LOG                          31 common patterns, matching lines counted

PATTERNS holds every pattern of data/kb/signatures.json, rewritten into ripgrep's dialect only
where the dialects differ: named groups become plain groups (ripgrep joins all patterns into one
expression, where names would clash; it reports lines, not fields) and escapes of characters that
are not special lose their backslash. COMMON is the first 31 of them (the file lists the common
TensorFlow and PyTorch failures first): the cheaper grep a user would write by hand. Reports
median wall time, throughput, peak RSS and, from the same run, the ratios rg / explain (above 1:
explain is faster) and explain's throughput in GB/s. Targets (../shared/DESIGN.md): at least 2x
ripgrep and 1 GB/s.

  bench/bench_explain.py --doctor build/release/src/cli/cudnn-doctor [--sizes 256,1024] [--runs 3]
"""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import sys

from benchlib import fmt_mb, series

HERE = os.path.dirname(os.path.abspath(__file__))
SIGNATURES = os.path.join(HERE, "..", "data", "kb", "signatures.json")

NOISE = [
    "2026-11-29 10:21:33.118432: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] "
    "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one "
    "has already been registered",
    "2026-11-29 10:21:33.118501: I tensorflow/core/util/port.cc:113] oneDNN custom operations are "
    "on. You may see slightly different numerical results due to floating-point round-off errors "
    "from different computation orders.",
]
BURIED = [
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total "
    "capacity; 20.01 GiB already allocated; 1.12 GiB free; 21.90 GiB reserved in total by PyTorch)",
    "2026-11-29 11:02:12.552190: W tensorflow/compiler/xla/stream_executor/platform/default/"
    "dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: "
    "cannot open shared object file: No such file or directory",
    "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
]


def ordinary_line(rng, i):
    k = i % 7
    if k == 0:
        done = i % 5000
        bar = "=" * (done * 30 // 5000) + ">" + "." * (29 - done * 30 // 5000)
        return (f"Epoch {i // 5000 + 1}/200 {done}/5000 [{bar}] - ETA: {rng.randint(0, 9)}:"
                f"{rng.randint(10, 59)} - loss: {rng.random():.4f} - accuracy: {rng.random():.4f}")
    if k == 1:
        return (f"[2026-11-29 10:{i // 60000 % 60:02d}:{i // 1000 % 60:02d},{i % 1000:03d}][INFO] "
                f"step {i} lr {rng.random() * 1e-3:.6f} loss {rng.random() * 3:.4f} grad_norm "
                f"{rng.random():.3f} tokens/s {rng.randint(20000, 60000)}")
    if k == 2:
        return (f"  {i}/{i + rng.randint(1, 999)} samples, throughput {rng.randint(100, 900)} img/s,"
                f" data time {rng.random():.3f}s, gpu mem {rng.randint(4000, 22000)} MiB")
    if k == 3:
        return (f"2026-11-29 10:21:{i % 60:02d}.{i % 1000000:06d}: I tensorflow/core/"
                f"common_runtime/executor.cc:1197] [/job:localhost/replica:0/task:0/device:GPU:0] "
                f"(DEBUG INFO) Executor start aborting: INVALID_ARGUMENT: step {i}")
    if k == 4:
        return (f"/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py:{557 + i % 9}:"
                f" UserWarning: This DataLoader will create 8 worker processes in total.")
    if k == 5:
        return f"validation: map@0.5 {rng.random():.4f} map@0.5:0.95 {rng.random():.4f} ({i})"
    return f"saving checkpoint to /data/runs/exp{i % 17}/ckpt_{i:09d}.pt (best so far: {rng.random():.5f})"


def write_log(path, size_mb):
    rng = random.Random(20261129)
    target = size_mb * 1024 * 1024
    # About 8 MB of distinct lines, repeated with a counter so no two blocks are byte-identical.
    block = []
    for i in range(80000):
        if i % 4000 == 0:
            block.append(NOISE[(i // 4000) % len(NOISE)])
        block.append(ordinary_line(rng, i))
    block_text = "\n".join(block) + "\n"
    marks = [int(target * f) for f in (0.40, 0.75, 0.99)]
    written = 0
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < target:
            text = f"--- shard {n} ---\n" + block_text
            while marks and written + len(text) > marks[0]:
                cut = text.index("\n", max(0, marks[0] - written)) + 1
                text = text[:cut] + BURIED[3 - len(marks)] + "\n" + text[cut:]
                marks.pop(0)
            out.write(text)
            written += len(text)
            n += 1


def rg_patterns(path, limit=None):
    data = json.load(open(SIGNATURES, encoding="utf-8"))
    out = []
    for sig in data["signatures"]:
        for p in sig["patterns"]:
            p = re.sub(r"\(\?P?<\w+>", "(?:", p)
            # ripgrep (Rust regex) refuses escapes of characters that are not special.
            p = re.sub(r"\\([^A-Za-z0-9\\.+*?()|\[\]{}^$\-#&~ ])", r"\1", p)
            out.append(p)
    out = out[:limit]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return len(out)


def bench_size(args, rg, doctor, size_mb, patterns, count, common, common_count):
    """Runs the three commands over the log of `size_mb`; returns its row of the summary."""
    log = os.path.join(args.dir, f"train-{size_mb}mb.log")
    if not os.path.exists(log) or os.path.getsize(log) < size_mb * 1024 * 1024:
        print(f"writing {log} ...", file=sys.stderr)
        write_log(log, size_mb)
    size = os.path.getsize(log)
    explain = "cudnn-doctor explain"
    rg_n = f"rg -n -f PATTERNS ({count} patterns)"
    rg_c = f"rg -c -f COMMON ({common_count} patterns)"
    commands = {
        explain: ([doctor, "explain", "--no-machine", "--format", "json", log], None),
        rg_n: ([rg, "--no-config", "-n", "-f", patterns, log], None),
        rg_c: ([rg, "--no-config", "-c", "-f", common, log], None),
    }
    results, memory = series(commands, args.runs)

    print(f"log {size / 1e6:.0f} MB, {args.runs} runs each after one warm-up (page cache warm), "
          f"interleaved; median wall time; peak RSS from one more run under GNU time\n")
    print("| command | median wall (s) | throughput (MB/s) | peak RSS (MB) | exit |")
    print("|---|---|---|---|---|")
    medians = {}
    for name, rows in results.items():
        walls = [w for w, _ in rows]
        medians[name] = statistics.median(walls)
        print(f"| {name} | {medians[name]:.3f} | {size / 1e6 / medians[name]:.0f} | "
              f"{fmt_mb(memory[name])} | {rows[-1][1]} |")
    print()
    return (size, medians[explain], medians[rg_n] / medians[explain],
            medians[rg_c] / medians[explain])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--doctor", required=True)
    ap.add_argument("--sizes", default="256,1024", help="log sizes in MB, comma-separated")
    ap.add_argument("--size-mb", type=int, help="one size only (instead of --sizes)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/cudnn-doctor-bench-explain")
    args = ap.parse_args()
    rg = shutil.which("rg")
    if rg is None:
        sys.exit("ripgrep (rg) is not installed: apt-get install ripgrep")
    sizes = [args.size_mb] if args.size_mb else [int(x) for x in args.sizes.split(",") if x]

    os.makedirs(args.dir, exist_ok=True)
    patterns = os.path.join(args.dir, "patterns.txt")
    count = rg_patterns(patterns)
    common = os.path.join(args.dir, "common-patterns.txt")
    common_count = rg_patterns(common, 31)
    doctor = os.path.abspath(args.doctor)
    rows = [bench_size(args, rg, doctor, mb, patterns, count, common, common_count)
            for mb in sizes]

    print("| log (MB) | explain (s) | explain (GB/s) | rg -n / explain | rg -c / explain |")
    print("|---|---|---|---|---|")
    for size, wall, ratio_n, ratio_c in rows:
        print(f"| {size / 1e6:.0f} | {wall:.3f} | {size / 1e9 / wall:.2f} | {ratio_n:.2f} | "
              f"{ratio_c:.2f} |")
    print("\nratios from the same run (above 1: explain is faster); targets: rg -n / explain >= 2, "
          "explain >= 1 GB/s")


if __name__ == "__main__":
    main()
