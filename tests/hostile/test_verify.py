#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attacks on `check --verify`: a huge file whose size already differs from its record, links
planted in a venv towards root-only files (the doctor often runs as root, and the snapshot is
meant for sharing), files the venv's owner may not read, a library changed in place with its
mtime set back, and a hash cache damaged in every shape. Each tree is a --sysroot with a venv
(VIRTUAL_ENV=/venv) whose site-packages holds nvidia-cudnn-cu12 with its RECORD; one case runs
on the live machine as root."""
import base64
import hashlib
import json
import os
import time

import hostile as x
from hostile import expect, expect_contains, test

SP = "/venv/lib/python3.12/site-packages"
LIB = SP + "/nvidia/cudnn/lib"
RECORD = SP + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD"


def pip_digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def record_line(rel, data, size=None):
    return f"{rel},{pip_digest(data)},{len(data) if size is None else size}\n"


def venv(root, record_lines, files=()):
    """A venv at /venv of `root` with files {inner path: bytes} and a RECORD of `record_lines`."""
    x.write(os.path.join(root, "venv/pyvenv.cfg"), "home = /usr/bin\nversion = 3.12.3\n")
    for inner, data in files:
        x.write(root + inner, data)
    x.write(root + RECORD, "".join(record_lines))


def verify(root, *extra, cache=None, timeout=60, user=None, command="check"):
    args = [command, "--sysroot", root, "--env", "VIRTUAL_ENV=/venv", "--no-nvml", "--verify"]
    if command == "check":
        args += ["--format", "json"]
    env = {}
    if cache is None:
        args.append("--no-cache")
    else:
        env["XDG_CACHE_HOME"] = cache
    r = x.run(args + list(extra), timeout=timeout, env=env, user=user, rss_mb=400)
    x.expect_no_internal_error(r)
    return r


def files_of(doc):
    return {f["path"]: f for f in doc["integrity"]["files"]}


def findings(doc, fid):
    return {f["subject"]: f for f in doc["findings"] if f["id"] == fid}


GOOD = b"\x7fELF the library as installed" * 100


@test
def size_that_differs_decides_without_hashing_a_huge_file():
    """A sparse 256 GiB libcudnn_cnn.so.9 whose record says 1000 bytes: hashing it would take
    minutes (a 10 GB one took 38 s in the sanitized build before the fix); the size decides, so
    the run ends well inside the 60 s limit."""
    with x.tree() as root:
        venv(root, [record_line("nvidia/cudnn/lib/libcudnn.so.9", GOOD),
                    record_line("nvidia/cudnn/lib/libcudnn_cnn.so.9", b"x" * 1000)],
             [(LIB + "/libcudnn.so.9", GOOD)])
        huge = root + LIB + "/libcudnn_cnn.so.9"
        with open(huge, "wb") as f:
            f.truncate(256 << 30)
        snap = verify(root, command="snapshot", timeout=60).json()
        v = files_of(snap)[LIB + "/libcudnn_cnn.so.9"]
        expect(v["actual_size"] == 256 << 30, v)
        expect(v["actual"] == {"unknown": "not hashed: its size differs from the record's"}, v)
        expect(snap["integrity"]["bytes_hashed"] == len(GOOD), snap["integrity"])
        m = findings(verify(root, timeout=60).json(), "integrity.hash_mismatch")
        expect(list(m) == [LIB + "/libcudnn_cnn.so.9"], sorted(m))
        expect_contains(m[LIB + "/libcudnn_cnn.so.9"]["message"],
                        f"size {256 << 30} bytes instead of 1000, larger than recorded")


def secret_tree(root):
    """A venv whose cuDNN directory holds a link to the tree's /etc/shadow (root-only) and a
    RECORD that names it, plus a RECORD line that climbs out with '..'."""
    x.write(os.path.join(root, "etc/shadow"), b"root:$6$secret-hash:19000::::::\n", 0o600)
    x.write(os.path.join(root, "usr/bin/tool"), b"a system program\n")
    venv(root, [record_line("nvidia/cudnn/lib/libcudnn.so.9", GOOD),
                record_line("nvidia/cudnn/lib/libcudnn_leak.so.9", b"x"),
                record_line("../../../../usr/bin/tool", b"x")],
         [(LIB + "/libcudnn.so.9", GOOD)])
    os.symlink("/etc/shadow", root + LIB + "/libcudnn_leak.so.9")


def expect_nothing_of(text, secret_path, secret, size=True):
    expect(hashlib.sha256(secret).hexdigest() not in text, "the secret's digest is in the output")
    expect(hashlib.md5(secret).hexdigest() not in text, "the secret's md5 is in the output")
    expect(f'"{secret_path}"' not in text, f"{secret_path} is named in the output")
    if size:
        expect(f'"size": {len(secret)},' not in text, "the secret's size is in the output")


@test
def link_out_of_the_venv_is_reported_without_its_target():
    with x.tree() as root:
        secret_tree(root)
        secret = open(os.path.join(root, "etc/shadow"), "rb").read()
        expect_nothing_of(verify(root).out, "/etc/shadow", secret)
        r = verify(root, command="snapshot")
        expect_nothing_of(r.out, "/etc/shadow", secret)
        files = files_of(r.json())
        leak = files[LIB + "/libcudnn_leak.so.9"]
        expect(leak["actual"] == {"unknown": f"not examined: it leads out of {SP}, the package's "
                                             "tree"}, leak)
        expect(leak["actual_size"] is None, leak)
        tool = files["/usr/bin/tool"]
        expect(tool["actual_size"] is None and "leads out of" in tool["actual"]["unknown"], tool)
        expect(files[LIB + "/libcudnn.so.9"]["actual"].get("value"), "the real one is hashed")
        # Without --verify: the link is not listed as a cuDNN library, so no size, mode or owner.
        r = x.run(["snapshot", "--sysroot", root, "--env", "VIRTUAL_ENV=/venv", "--no-nvml"],
                  timeout=60)
        x.expect_no_internal_error(r)
        expect_nothing_of(r.out, "/etc/shadow", secret)
        libs = [lib["name"] for inst in r.json()["cudnn"] for lib in inst["libraries"]]
        expect("libcudnn_leak.so.9" not in libs and "libcudnn.so.9" in libs, libs)


@test
def live_run_as_root_never_reads_the_real_shadow_file():
    """The attack as reported: the live machine, the doctor run as root, a user's venv with a
    link to the real /etc/shadow."""
    if os.geteuid() != 0 or not os.path.isfile("/etc/shadow"):
        print("  skipped: needs root and /etc/shadow")
        return
    secret = open("/etc/shadow", "rb").read()
    with x.tree() as d:
        os.makedirs(d + "/venv/lib/python3.12/site-packages/nvidia/cudnn/lib")
        prefix = d + "/venv"
        sp = prefix + "/lib/python3.12/site-packages"
        x.write(prefix + "/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n")
        x.write(sp + "/nvidia/cudnn/lib/libcudnn.so.9", GOOD)
        os.symlink("/etc/shadow", sp + "/nvidia/cudnn/lib/libcudnn_leak.so.9")
        x.write(sp + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD",
                record_line("nvidia/cudnn/lib/libcudnn.so.9", GOOD)
                + record_line("nvidia/cudnn/lib/libcudnn_leak.so.9", b"x"))
        for path, _, names in os.walk(d):
            for p in [path] + [os.path.join(path, n) for n in names]:
                os.lchown(p, x.NOBODY, x.NOBODY)
        with x.tree() as cache:  # the machine's own toolkit is hashed once, then cached
            for args in (["snapshot", "--verify"], ["snapshot"],
                         ["check", "--verify", "--format", "json"]):
                r = x.run(args + ["--no-nvml", "--env", f"VIRTUAL_ENV={prefix}"], timeout=180,
                          env={"XDG_CACHE_HOME": cache})
                x.expect_no_internal_error(r)
                expect_nothing_of(r.out, "/etc/shadow", secret, size=False)
                if args == ["snapshot", "--verify"]:
                    leak = files_of(r.json())[sp + "/nvidia/cudnn/lib/libcudnn_leak.so.9"]
                    expect("leads out of" in leak["actual"]["unknown"], leak)


@test
def file_the_venv_owner_may_not_read_is_not_hashed_even_by_root():
    """A venv owned by nobody holding a root-only library (mode 0600) and one in a root-only
    directory: root could read both, the venv's owner neither, so neither is hashed."""
    if os.geteuid() != 0:
        print("  skipped: needs root to give the files away")
        return
    with x.tree() as root:
        secret = b"a root-only file planted by a hard link or a package\n"
        venv(root, [record_line("nvidia/cudnn/lib/libcudnn.so.9", GOOD),
                    record_line("nvidia/cudnn/lib/libcudnn_ops.so.9", b"y" * len(secret)),
                    record_line("nvidia/cudnn/lib/private/libcudnn_adv.so.9", GOOD)],
             [(LIB + "/libcudnn.so.9", GOOD), (LIB + "/libcudnn_ops.so.9", secret),
              (LIB + "/private/libcudnn_adv.so.9", GOOD)])
        for path, _, names in os.walk(root + "/venv"):
            for p in [path] + [os.path.join(path, n) for n in names]:
                os.lchown(p, x.NOBODY, x.NOBODY)
        os.chown(root + LIB + "/libcudnn_ops.so.9", 0, 0)
        os.chmod(root + LIB + "/libcudnn_ops.so.9", 0o600)
        os.chown(root + LIB + "/private", 0, 0)
        os.chmod(root + LIB + "/private", 0o700)
        for user in (None, x.NOBODY):
            check = verify(root, user=user)
            expect(not findings(check.json(), "integrity.hash_mismatch"), "nothing read, judged")
            snap = verify(root, user=user, command="snapshot")
            expect(hashlib.sha256(secret).hexdigest() not in snap.out + check.out, "digest shown")
            files = files_of(snap.json())
            ops = files[LIB + "/libcudnn_ops.so.9"]
            expect(ops["actual"] == {"unknown": f"not read: the owner of {SP} (uid {x.NOBODY}) "
                                                "may not read it"}, ops)
            expect(ops["actual_size"] is None, ops)
            if user is None:  # nobody cannot even list private/: the library is not found there
                adv = files[LIB + "/private/libcudnn_adv.so.9"]
                expect(adv["actual"] == {"unknown": f"not read: the owner of {SP} (uid "
                                                    f"{x.NOBODY}) may not enter {LIB}/private"},
                       adv)
            expect(files[LIB + "/libcudnn.so.9"]["actual"].get("value"), "the readable one")


@test
def library_changed_in_place_with_its_mtime_restored_is_caught():
    with x.tree() as root, x.tree() as cache:
        venv(root, [record_line("nvidia/cudnn/lib/libcudnn.so.9", GOOD)],
             [(LIB + "/libcudnn.so.9", GOOD)])
        lib = root + LIB + "/libcudnn.so.9"
        first = verify(root, cache=cache).json()
        expect(not findings(first, "integrity.hash_mismatch"), "intact at first")
        second = verify(root, cache=cache, command="snapshot").json()
        expect(files_of(second)[LIB + "/libcudnn.so.9"]["actual"]["source"].startswith("cache:"),
               "the second run answers from the cache")
        st = os.stat(lib)
        time.sleep(0.05)
        with open(lib, "r+b") as f:  # same inode, same size, other bytes
            f.write(b"\x7fELX")
        os.utime(lib, ns=(st.st_atime_ns, st.st_mtime_ns))
        after = os.stat(lib)
        expect((after.st_ino, after.st_size, after.st_mtime_ns)
               == (st.st_ino, st.st_size, st.st_mtime_ns), "the tamper is invisible to the mtime")
        third = verify(root, cache=cache, command="snapshot").json()
        v = files_of(third)[LIB + "/libcudnn.so.9"]
        expect(v["actual"]["source"].startswith("file:"), f"answered from the cache: {v}")
        m = findings(verify(root, cache=cache).json(), "integrity.hash_mismatch")
        expect(LIB + "/libcudnn.so.9" in m, f"the tampered library is not reported: {sorted(m)}")
        expect_contains(m[LIB + "/libcudnn.so.9"]["message"], "sha256 differs")


def text(data):
    return lambda path: x.write(path, data)


def huge(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b'{"schema": "cudnn-doctor-hashes/2", "entries": [')
        f.truncate(1 << 30)  # 1 GiB, sparse: too large to be ours, never read


def link(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink("/etc/passwd", path)


# Every shape a damaged cache takes, and what puts it in place.
DAMAGED_CACHES = [
    ("schema {}", text('{"schema": {}, "entries": []}')),
    ("schema a number", text('{"schema": 2, "entries": []}')),
    ("entries an object", text('{"schema": "cudnn-doctor-hashes/2", "entries": {}}')),
    ("entries of the wrong types", text(
        '{"schema": "cudnn-doctor-hashes/2", "entries": [1, null, "x", [], {"path": {}},'
        ' {"path": "/x", "device": -1, "inode": "1", "size": 1.5, "mtime_ns": null,'
        ' "ctime_ns": [], "algorithm": 7, "digest": {}}]}')),
    ("the old schema", text('{"schema": "cudnn-doctor-hashes/1", "entries": []}')),
    ("truncated JSON", text('{"schema": "cudnn-doctor-hashes/2", "entries": [{"path": "/')),
    ("binary junk", text(bytes(range(256)) * 64)),
    ("deep nesting", text("[" * 200000)),
    ("empty", text("")),
    ("a huge file", huge),
    ("a FIFO", x.fifo),
    ("a link to /etc/passwd", link),
]


@test
def damaged_cache_is_ignored_and_rewritten():
    with x.tree() as root:
        venv(root, [record_line("nvidia/cudnn/lib/libcudnn.so.9", GOOD)],
             [(LIB + "/libcudnn.so.9", GOOD)])
        passwd = open("/etc/passwd", "rb").read()
        for name, damage in DAMAGED_CACHES:
            with x.tree() as cache:
                cache_file = os.path.join(cache, "cudnn-doctor", "hashes-v1.json")
                damage(cache_file)
                doc = verify(root, cache=cache, timeout=30, command="snapshot").json()
                expect(not doc["collection"]["errors"], f"{name}: {doc['collection']['errors']}")
                v = files_of(doc)[LIB + "/libcudnn.so.9"]
                expect(v["actual"].get("source", "").startswith("file:"), f"{name}: {v}")
                expect(v["actual"]["value"] == v["expected"], f"{name}: {v}")
                expect(os.path.isfile(cache_file) and not os.path.islink(cache_file),
                       f"{name}: not rewritten as a regular file")
                written = json.load(open(cache_file))
                expect(written["schema"] == "cudnn-doctor-hashes/2", f"{name}: {written}")
                expect([e["digest"] for e in written["entries"]] == [v["expected"]],
                       f"{name}: {written}")
                expect(os.path.getsize(cache_file) < 4096, f"{name}: the junk was kept")
                again = verify(root, cache=cache, timeout=30, command="snapshot").json()
                expect(files_of(again)[LIB + "/libcudnn.so.9"]["actual"]["source"]
                       .startswith("cache:"), f"{name}: the rewritten cache is not used")
                check = verify(root, cache=cache, timeout=30).json()
                expect(not [f for f in check["findings"] if f["id"].startswith("internal.")],
                       f"{name}: {[f['id'] for f in check['findings']]}")
        expect(open("/etc/passwd", "rb").read() == passwd, "/etc/passwd was written through")


@test
def record_over_16_mb_is_named_as_unread():
    """A RECORD of 17 MB (a GPU package's is a few KB): not read, not streamed into memory, and
    said: a warning finding, the snapshot's unread_records, and the cuDNN directory's package
    "unknown, because" naming it, instead of "no package manager records these files"."""
    with x.tree() as root:
        lines = [record_line("nvidia/cudnn/lib/libcudnn.so.9", GOOD)]
        pad = record_line("nvidia/cudnn/include/" + "p" * 60 + ".h", b"h")
        lines += [pad] * ((17 << 20) // len(pad))
        venv(root, lines, [(LIB + "/libcudnn.so.9", GOOD)])
        reason = "larger than 16 MB, the most a package record is read to"
        snap = verify(root, command="snapshot").json()
        expect(snap["integrity"]["unread_records"] == [
            {"record": RECORD, "manager": "pip", "package": "nvidia-cudnn-cu12 9.1.0.70",
             "reason": reason}], snap["integrity"]["unread_records"])
        expect(snap["integrity"]["files"] == [], snap["integrity"]["files"])
        packages = [inst["package"] for inst in snap["cudnn"] if inst["dir"] == LIB]
        expect(packages == [{"unknown": f"no package record could be read: {RECORD}: {reason}"}],
               packages)
        doc = verify(root).json()
        unread = [f for f in doc["findings"] if f["id"] == "integrity.record_unread"]
        expect(len(unread) == 1 and unread[0]["subject"] == RECORD, unread)
        expect(unread[0]["severity"] == "warning", unread[0])
        expect_contains(unread[0]["message"], reason)


if __name__ == "__main__":
    x.main()
