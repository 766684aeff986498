# SPDX-License-Identifier: MIT
"""What the benchmarks share: timing a command, and its peak memory measured correctly.

Linux keeps a process's peak resident set across execve (exec_mmap records the old mm's high-water
mark), so the ru_maxrss that wait4 returns for a child forked from this Python interpreter is at
least the interpreter's own size (about 15 MB) even for a 2 MB program. Memory is therefore
measured in a separate run under GNU time (/usr/bin/time), whose small process forks the command:
its %M is the command's own peak."""
import os
import shutil
import subprocess
import tempfile
import time

GNU_TIME = shutil.which("time", path="/usr/bin:/bin")
PERF = shutil.which("perf")


def wall_time(argv, env=None):
    """Runs argv with its output discarded; returns (seconds, exit status)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, _ = os.wait4(p.pid, 0)
    return time.perf_counter() - start, os.waitstatus_to_exitcode(status)


def peak_rss_mb(argv, env=None):
    """The command's own peak resident set in MB, or None without GNU time."""
    if GNU_TIME is None:
        return None
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run([GNU_TIME, "-f", "%M", "-o", out.name] + list(argv), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, check=False)
        text = out.read().strip().splitlines()
    try:
        return int(text[-1]) / 1024.0
    except (IndexError, ValueError):
        return None


def instructions(argv, env=None):
    """User-space instructions the command (and its children) retired, from `perf stat`, or the
    reason there is no count: "no perf" or what perf said ("<not supported>" in most VMs, whose
    hypervisor hides the hardware counters)."""
    if PERF is None:
        return None, "no perf"
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run([PERF, "stat", "-x,", "-e", "instructions:u", "-o", out.name, "--"] + list(argv),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        for line in out.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions"):
                try:
                    return int(fields[0]), None
                except ValueError:
                    return None, fields[0] or "no count"
    return None, "no count"


def cpu_ms(argv, env=None, runs=20):
    """Mean CPU time in milliseconds the command used (perf's task-clock: user and kernel time of
    the process, not the time it waited for a CPU), over `runs` runs, or None without perf. On a
    machine shared with other work this is the steadier figure: wall time counts the waits."""
    if PERF is None:
        return None
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run([PERF, "stat", "-x,", "-r", str(runs), "-e", "task-clock", "-o", out.name,
                        "--"] + list(argv),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        for line in out.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("task-clock"):
                try:
                    return float(fields[0])
                except ValueError:
                    return None
    return None


def fmt_instructions(result):
    count, why = result
    return f"{count / 1e6:.1f} M" if count is not None else f"n/a ({why})"


def series(commands, runs):
    """Runs each command of {name: (argv, env)} once as a warm-up, then `runs` times interleaved
    (A B A B ...) so that drift of a shared machine hits all alike. Returns ({name: [(seconds,
    exit status)]}, {name: peak RSS in MB or None})."""
    results = {name: [] for name in commands}
    for argv, env in commands.values():
        wall_time(argv, env)  # warm-up: page cache, pyc files
    for _ in range(runs):
        for name, (argv, env) in commands.items():
            results[name].append(wall_time(argv, env))
    memory = {name: peak_rss_mb(argv, env) for name, (argv, env) in commands.items()}
    return results, memory


def fmt_mb(value):
    return "n/a" if value is None else f"{value:.1f}"
