# SPDX-License-Identifier: MIT
"""A small scenario harness for CLI integration tests (after ccache's test/run): each suite
registers TEST functions, may declare a probe that returns a skip reason, and exits 0 when all
pass, 1 when any fails, 125 when skipped (ctest SKIP_RETURN_CODE)."""
import json
import os
import struct
import subprocess
import sys
import traceback

_TESTS = []


def test(fn):
    _TESTS.append(fn)
    return fn


class Failure(Exception):
    pass


class Result:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def json(self):
        try:
            return json.loads(self.out)
        except json.JSONDecodeError as e:
            raise Failure(f"stdout is not JSON ({e}):\n{self.out[:2000]}")


def run(args, env=None, stdin=None, drop_env=()):
    e = dict(os.environ)
    for k in drop_env:
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run([EXE] + list(args), capture_output=True, text=True, env=e, input=stdin)
    return Result(p.returncode, p.stdout, p.stderr)


def expect(cond, what):
    if not cond:
        raise Failure(what)


def expect_exit(r, code):
    expect(r.code == code, f"exit status {r.code}, expected {code}\nstdout:\n{r.out[:3000]}\nstderr:\n{r.err[:3000]}")


def expect_contains(text, needle):
    expect(needle in text, f"expected to find {needle!r} in:\n{text[:4000]}")


def finding_ids(doc):
    """The ids of a JSON report's findings, in order."""
    return [f["id"] for f in doc["findings"]]


def only_finding(doc, fid):
    """The one finding `fid` of a JSON report (a failure unless it is there exactly once)."""
    found = [f for f in doc["findings"] if f["id"] == fid]
    expect(len(found) == 1, f"{fid} not once in {finding_ids(doc)}")
    return found[0]


def journal_remote():
    """systemd-journal-remote, which turns an export stream into a real journal file; None if absent."""
    for p in ("/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote"):
        if os.access(p, os.X_OK):
            return p
    return None


def export_entry(fields):
    """One journal entry in the export format (systemd.io JOURNAL_EXPORT_FORMATS): text fields,
    or the binary form for a value with a newline."""
    out = b""
    for k, v in fields.items():
        v = v.encode() if isinstance(v, str) else v
        if b"\n" in v:
            out += k.encode() + b"\n" + struct.pack("<Q", len(v)) + v + b"\n"
        else:
            out += k.encode() + b"=" + v + b"\n"
    return out + b"\n"


def validate(instance, schema_file):
    import jsonschema
    schema = json.load(open(os.path.join(SOURCE, "docs", schema_file)))
    jsonschema.validate(instance, schema, cls=jsonschema.Draft202012Validator)


def main(probe=None):
    global EXE, SOURCE
    EXE, SOURCE = sys.argv[1], sys.argv[2]
    if probe:
        reason = probe()
        if reason:
            print(f"SKIP: {reason}")
            sys.exit(125)
    failed = 0
    for fn in _TESTS:
        try:
            fn()
            print(f"PASS {fn.__name__}")
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL {fn.__name__}: {e}")
            if not isinstance(e, Failure):
                traceback.print_exc()
    print(f"{len(_TESTS) - failed}/{len(_TESTS)} passed")
    sys.exit(1 if failed else 0)


EXE = None
SOURCE = None
