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


def main(probe=None):
    global BINARY_DIR
    if len(sys.argv) > 3:
        BINARY_DIR = sys.argv.pop(3)
    h.main(probe)
