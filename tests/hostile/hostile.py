# SPDX-License-Identifier: MIT
"""The hostile-input harness: the integration harness (TEST functions, skip with 125) plus runs under
limits that the harness enforces, so that a case asserts a bound without timing anything:

- a wall-clock limit: past it the doctor's whole process group is killed and the case fails as a
  hang (never a timing assertion: the limits are tens of times the normal run);
- a cap on stdout and stderr: past it the run is killed and the case fails as unbounded output;
- peak RSS of the doctor and its children, from wait4(), checked against a limit scaled for
  sanitized builds (DOCTOR_SANITIZED=1, set by tests/hostile/CMakeLists.txt);
- optionally another user (65534, nobody) when the suite runs as root, for cases about files
  that the examined tree's owner may not read: root reads everything.

Usage: test_<area>.py CUDNN_DOCTOR SOURCE_DIR BINARY_DIR (ctest passes all three)."""
import contextlib
import os
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness as h  # noqa: E402
from harness import Failure, expect, expect_contains, expect_exit, test  # noqa: E402,F401

SANITIZED = os.environ.get("DOCTOR_SANITIZED") == "1"
# AddressSanitizer's shadow memory and quarantine: a sanitized run's RSS is a few times the plain one.
RSS_FACTOR = 4 if SANITIZED else 1
NOBODY = 65534
BINARY_DIR = None


class Bounded(h.Result):
    def __init__(self, code, out, err, *, timed_out, output_capped, rss_mb, seconds):
        super().__init__(code, out, err)
        self.timed_out, self.output_capped = timed_out, output_capped
        self.rss_mb, self.seconds = rss_mb, seconds

    def __repr__(self):
        return (f"exit {self.code}, {self.seconds:.1f} s, {self.rss_mb:.0f} MB peak, "
                f"timed out {self.timed_out}, output capped {self.output_capped}\n"
                f"stdout:\n{self.out[:2000]}\nstderr:\n{self.err[:2000]}")


def run(args, *, timeout=60, rss_mb=None, max_output=64 << 20, env=None, drop_env=(), stdin=None,
        cwd=None, user=None, exe=None, text=True, preexec=None):
    """Runs the doctor (or `exe`) in a session of its own under the limits above. `stdin` is bytes,
    str or an open file. Fails the case (Failure) on a hang or on output past `max_output`; checks
    peak RSS against `rss_mb` (scaled for sanitizers) when given."""
    e = dict(os.environ)
    for k in drop_env:
        e.pop(k, None)
    e.update(env or {})
    if user is not None and os.geteuid() != 0:
        raise Failure("a case that runs as another user needs root")

    def before():
        if user is not None:
            os.setgroups([])
            os.setgid(user)
            os.setuid(user)
        if preexec:
            preexec()

    stdin_file = None
    if stdin is None:
        stdin_file = subprocess.DEVNULL
    elif hasattr(stdin, "fileno"):
        stdin_file = stdin
    else:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        stdin_file = tempfile.TemporaryFile()
        stdin_file.write(data)
        stdin_file.seek(0)
    start = time.monotonic()
    p = subprocess.Popen([exe or h.EXE] + [str(a) for a in args], stdin=stdin_file,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=cwd,
                         start_new_session=True, preexec_fn=before)
    out_fd, err_fd = p.stdout.fileno(), p.stderr.fileno()
    bufs = {out_fd: bytearray(), err_fd: bytearray()}
    sel = selectors.DefaultSelector()
    for f in (p.stdout, p.stderr):
        sel.register(f, selectors.EVENT_READ)
    timed_out = capped = False
    open_streams = 2
    while open_streams:
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            timed_out = True
            break
        for key, _ in sel.select(timeout=min(left, 1.0)):
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            bufs[key.fd] += chunk
            if len(bufs[key.fd]) > max_output:
                capped = True
        if capped:
            break
    if timed_out or capped:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    # The doctor's own children (the probe child) are in its session: none may outlive it.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, signal.SIGKILL)
    seconds = time.monotonic() - start
    sel.close()
    decode = (lambda b: b.decode("utf-8", "replace")) if text else bytes
    p.stdout.close()
    p.stderr.close()
    r = Bounded(p.returncode, decode(bytes(bufs[out_fd])), decode(bytes(bufs[err_fd])),
                timed_out=timed_out, output_capped=capped,
                rss_mb=usage.ru_maxrss / 1024, seconds=seconds)
    if timed_out:
        raise Failure(f"no answer within {timeout} s (a hang): {r!r}")
    if capped:
        raise Failure(f"more than {max_output} bytes of output (unbounded): {r!r}")
    if rss_mb is not None and r.rss_mb > rss_mb * RSS_FACTOR:
        raise Failure(f"peak RSS {r.rss_mb:.0f} MB over the bound of {rss_mb * RSS_FACTOR} MB: {r!r}")
    return r


def expect_usage_error(r, needle=None):
    """Exit 2 with a message on stderr (and the message containing `needle`)."""
    expect_exit(r, 2)
    expect(r.err.strip(), f"exit 2 but nothing on stderr: {r!r}")
    if needle:
        expect_contains(r.err, needle)


def expect_no_internal_error(r):
    expect(r.code in (0, 1, 2), f"exit {r.code} (3 is an internal error, negative a signal): {r!r}")
    expect("internal error" not in r.err.lower(), f"an internal error: {r!r}")


@contextlib.contextmanager
def tree(prefix="doctor-hostile-"):
    """A scratch folder, removed afterwards even where a case took away its permissions, left
    FIFOs in it or made it unreadable."""
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    try:
        yield d
    finally:
        for root, dirs, _ in os.walk(d):
            for name in dirs:
                path = os.path.join(root, name)
                # Linux has no lchmod: a link to a folder is left alone (its target is walked).
                if not os.path.islink(path):
                    with contextlib.suppress(OSError):
                        os.chmod(path, 0o755)
        shutil.rmtree(d, ignore_errors=True)


def write(path, data="", mode=None):
    """Writes `data` (str or bytes) at `path`, making its folders."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    if mode is not None:
        os.chmod(path, mode)
    return path


def fifo(path):
    """A FIFO at `path`: nothing ever writes to it, so opening it for reading without O_NONBLOCK
    blocks forever."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path)
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    return path


def build_c_library(source, soname, out_dir, *extra):
    """Compiles a C file of tests/ into a shared library with that soname; returns its path or
    raises Failure with the compiler's message."""
    out = os.path.join(out_dir, soname)
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O1", f"-Wl,-soname,{soname}", "-o", out,
                        os.path.join(h.SOURCE, source), *extra], capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure(f"cannot build {source}: {r.stderr.strip()}")
    return out


# Values that break parsers: sizes and offsets at their limits, and bytes that end strings.
_INTERESTING = [b"\x00", b"\xff", b"\x7f", b"\x80", b"\xff\xff\xff\xff", b"\x00\x00\x00\x80",
                b"\xff\xff\xff\x7f", b"\xff" * 8, b"\x00" * 8, b"\n", b"\r", b"\x1b[2J", b"%s%n",
                b"\xe9", b"\xe4\xb8", b"\"", b"{", b"[" * 64, b"1e999999", b"-1"]


def mutate(data, rng):
    """One mutant of `data` (bytes): one to four of byte flips, interesting values written or
    inserted, ranges deleted, duplicated or moved, or a cut."""
    b = bytearray(data or b"\x00")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            v = rng.choice(_INTERESTING)
            b[i:i + len(v)] = v
        elif op == 2:
            b[i:i] = rng.choice(_INTERESTING)
        elif op == 3 and len(b) > 1:
            del b[i:i + rng.randint(1, max(1, len(b) // 8))]
        elif op == 4 and b:
            n = rng.randint(1, max(1, min(len(b) - i, 4096)))
            b[i:i] = b[i:i + n] * rng.randint(1, 8)
        elif op == 5 and len(b) > 1:
            j = rng.randrange(len(b))
            n = rng.randint(1, max(1, min(len(b) - max(i, j), 256)))
            b[j:j + n] = b[i:i + n]
        elif op == 6 and len(b) > 1:
            del b[rng.randrange(1, len(b)):]
    return bytes(b)


def seed_files(*folders, max_bytes=4 << 20):
    """The regular files under `folders` (those that exist), at most `max_bytes` each, sorted."""
    out = []
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in files:
                p = os.path.join(root, name)
                if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) <= max_bytes:
                    out.append(p)
    return sorted(out)


def mutation_loop(area, seeds, args_for, *, suffix="", timeout=60, rss_mb=1024):
    """Runs the doctor on mutants of `seeds` for DOCTOR_MUTATE_MINUTES minutes (default 3) with
    the seed DOCTOR_MUTATE_SEED (default: the time, printed). `args_for(path)` gives the command
    line for one mutant. A mutant fails when the run hangs, overflows the output cap or the RSS
    bound, exits with anything but 0, 1 or 2, or leaves a sanitizer or internal-error report; it is
    kept under BINARY_DIR/mutate-failures/<area>/ to replay. Raises Failure naming the count."""
    import random
    expect(seeds, f"no seed inputs for {area}")
    minutes = float(os.environ.get("DOCTOR_MUTATE_MINUTES", "3"))
    seed = int(os.environ.get("DOCTOR_MUTATE_SEED", str(int(time.time()))))
    print(f"{area}: {len(seeds)} seeds, {minutes} min, DOCTOR_MUTATE_SEED={seed}")
    rng = random.Random(seed)
    keep = os.path.join(BINARY_DIR or tempfile.gettempdir(), "mutate-failures", area)
    datas = [open(p, "rb").read() for p in seeds]
    deadline = time.monotonic() + minutes * 60
    runs = failures = 0
    with tree() as scratch:
        path = os.path.join(scratch, "input" + suffix)
        while time.monotonic() < deadline:
            data = mutate(rng.choice(datas), rng)
            with open(path, "wb") as f:
                f.write(data)
            runs += 1
            why = None
            try:
                r = run(args_for(path), timeout=timeout, rss_mb=rss_mb)
                if r.code not in (0, 1, 2):
                    why = f"exit {r.code}"
                elif any(s in r.err for s in ("AddressSanitizer", "runtime error:", "internal error",
                                              "LeakSanitizer")):
                    why = "a sanitizer or internal-error report"
            except Failure as e:
                why = str(e).split("\n")[0]
            if why:
                failures += 1
                os.makedirs(keep, exist_ok=True)
                kept = os.path.join(keep, f"{runs:06d}{suffix}")
                shutil.copyfile(path, kept)
                print(f"FAILED ({why}): {kept}")
    print(f"{area}: {runs} mutants, {failures} failed")
    expect(failures == 0, f"{failures} of {runs} mutants failed (kept in {keep})")


def main(probe=None):
    global BINARY_DIR
    if len(sys.argv) > 3:
        BINARY_DIR = sys.argv.pop(3)
    h.main(probe)
