#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile snapshots for `check --snapshot FILE|-`. A snapshot comes from someone else's bug report:
whatever its bytes, the doctor answers promptly with exit 2 and a message naming what is wrong and
where, in memory bounded by a few times the input's size, and reads the same size from a file and
from standard input. The bounds are docs/snapshot.md's (facts::k_snapshot_limits)."""
import json
import os
import resource
import subprocess

import hostile as x
from hostile import expect, expect_contains, test

CAP = 128 << 20  # k_snapshot_limits.max_bytes
HEAD = b'{"collection": {"schema": "cudnn-doctor-snapshot/1"}, "probed_paths": ['
# A small snapshot costs about 13 MB (135 under AddressSanitizer, whose factor is 4), and the
# input is held while it is parsed (twice at the moment its buffer grows): the bounds allow three
# times the input on top of that. The old reader (a DOM of any size) went far past them: 1.2 GB
# for 16 MB of {} items, 1.6 GB for 20 MB of "[", 6 GB for 240 MB.
BASE_MB = 60


def bound(input_mb):
    return BASE_MB + 3 * input_mb


def golden():
    with open(os.path.join(x.h.SOURCE, "tests", "golden", "snapshots", "no_gpu_machine.json")) as f:
        return json.load(f)


def check_file(doc_or_bytes, *, rss_mb=BASE_MB, timeout=120, via_stdin=False):
    data = doc_or_bytes if isinstance(doc_or_bytes, bytes) else json.dumps(doc_or_bytes).encode()
    with x.tree() as d:
        path = x.write(os.path.join(d, "snapshot.json"), data)
        if via_stdin:
            with open(path, "rb") as f:
                return x.run(["check", "--snapshot", "-"], stdin=f, timeout=timeout, rss_mb=rss_mb)
        return x.run(["check", "--snapshot", path], timeout=timeout, rss_mb=rss_mb)


def empty_objects(total):
    """A snapshot of `total` bytes whose probed_paths are {} items."""
    n = (total - len(HEAD) - 2) // 3
    return HEAD + b"{}," * (n - 1) + b"{}]}"


@test
def a_real_snapshot_is_still_read():
    r = check_file(golden())
    expect(r.code in (0, 1), f"the golden snapshot must be judged: {r!r}")
    expect(r.err == "", f"nothing on stderr: {r!r}")


@test
def a_cap_of_empty_objects_is_refused_in_bounded_memory():
    # 240 MB of {} took 6 GB and a minute; the cap's worth stops at the bound of objects.
    for via_stdin in (False, True):
        r = check_file(empty_objects(CAP - 64), rss_mb=bound(CAP >> 20),
                       via_stdin=via_stdin)
        x.expect_usage_error(r, "more than 131072 objects in the document")
        expect_contains(r.err, "probed_paths[")


@test
def sixteen_megabytes_of_empty_objects_cost_a_few_times_their_size():
    r = check_file(empty_objects(16 << 20), rss_mb=bound(16))
    x.expect_usage_error(r, "objects in the document")


@test
def twenty_megabytes_of_brackets_stop_at_the_depth_bound():
    r = check_file(b"[" * (20 << 20), rss_mb=bound(20))
    x.expect_usage_error(r, "nested deeper than 16 levels")


@test
def under_a_memory_limit_the_answer_is_exit_2_not_an_abort():
    # The old reader threw std::bad_alloc through nlohmann's noexcept ~basic_json (SIGABRT).
    # AddressSanitizer reserves terabytes of address space: a limit on it cannot apply there.
    if x.SANITIZED:
        print("(skipped under AddressSanitizer: RLIMIT_AS)")
        return

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))

    with x.tree() as d:
        path = x.write(os.path.join(d, "snapshot.json"), empty_objects(CAP - 64))
        r = x.run(["check", "--snapshot", path], timeout=120, preexec=limit)
    x.expect_usage_error(r)
    expect(r.code == 2 and "internal error" not in r.err, f"{r!r}")


@test
def a_number_past_a_double_is_a_usage_error_naming_the_value():
    doc = golden()
    doc["os"]["memory_total"] = {"value": 0, "source": "file:/proc/meminfo"}
    text = json.dumps(doc).replace('"memory_total": {"value": 0', '"memory_total": {"value": 1e999999')
    r = check_file(text.encode())
    x.expect_usage_error(r, "os.memory_total.value: the number 1e999999 is out of range")
    x.expect_no_internal_error(r)


@test
def numbers_must_fit_their_field():
    cases = [
        (("user",), {"uid": {"value": 4294967296, "source": "process:geteuid"}},
         "user.uid.value: 4294967296 is out of range"),
        (("os",), {"cpu_count": {"value": -1, "source": "file:/proc/cpuinfo"}},
         "os.cpu_count.value: -1 is out of range"),
        (("os",), {"swap_total": {"value": 1.5, "source": "file:/proc/meminfo"}},
         "os.swap_total.value: 1.5 is not an integer"),
    ]
    for (section,), fields, needle in cases:
        doc = golden()
        doc.setdefault(section, {}).update(fields)
        x.expect_usage_error(check_file(doc), needle)


def with_value(edit):
    doc = golden()
    edit(doc)
    return doc


ENUMS = [
    (lambda d: d["collection"].update(os_family="x"), "collection.os_family"),
    (lambda d: d["collection"].update(os_family="Linux"), "collection.os_family"),
    (lambda d: d["driver"].update(kernel_module_type={"value": "closed", "source": "file:x"}),
     "driver.kernel_module_type.value"),
    (lambda d: d["driver"].update(libraries=[{"name": "libCUDA", "path": "/usr/lib/libcuda.so.1"}]),
     "driver.libraries[0].name"),
    (lambda d: d["driver"].update(device_nodes={"value": [{"path": "/dev/nvidia0", "kind": "chr"}],
                                                "source": "dir:/dev"}),
     "driver.device_nodes.value[0].kind"),
    (lambda d: d["driver"]["nvml"].update(status="fine"), "driver.nvml.status"),
    (lambda d: d.update(python_envs=[{"prefix": "/venv", "kind": "virtualenv"}]),
     "python_envs[0].kind"),
    (lambda d: d.update(python_envs=[{"prefix": "/venv", "kind": "venv",
                                      "frameworks": [{"name": "pytorch"}]}]),
     "python_envs[0].frameworks[0].name"),
    (lambda d: d.update(binaries=[{"path": "/usr/lib/libcudnn.so.9", "format": "ELF"}]),
     "binaries[0].format"),
    (lambda d: d.update(binaries=[{"path": "/usr/lib/libcudnn.so.9", "format": "elf", "bits": 16}]),
     "binaries[0].bits"),
    (lambda d: d.update(probed_paths=[{"path": "/usr/lib", "exists": True, "kind": "dir"}]),
     "probed_paths[0].kind"),
    (lambda d: d.update(integrity={"requested": True, "files": [
        {"path": "/a", "manager": "rpm", "algorithm": "sha256"}]}), "integrity.files[0].manager"),
    (lambda d: d.update(integrity={"requested": True, "files": [
        {"path": "/a", "manager": "pip", "algorithm": "sha1"}]}), "integrity.files[0].algorithm"),
]


@test
def an_enumerated_field_outside_its_set_is_refused():
    # os_family "x" or "Linux" was accepted, and every check for Linux skipped the machine.
    for edit, where in ENUMS:
        r = check_file(with_value(edit))
        x.expect_usage_error(r, f"{where}: ")
        expect_contains(r.err, "is not one of")


@test
def stdin_and_a_file_have_the_same_cap():
    whole = json.dumps(golden()).encode()
    at_cap = whole + b" " * (CAP - len(whole))
    over = at_cap + b" "
    for via_stdin in (False, True):
        r = check_file(at_cap, rss_mb=bound(CAP >> 20), via_stdin=via_stdin)
        expect(r.code in (0, 1), f"a snapshot of exactly the cap is read: {r!r}")
        r = check_file(over, rss_mb=bound(CAP >> 20), via_stdin=via_stdin)
        x.expect_usage_error(r, "larger than 128 MiB, the most a snapshot may be")


@test
def endless_stdin_is_cut_at_the_cap():
    # The old reader read standard input to its end, whatever its length.
    feeder = subprocess.Popen(["yes", "{},"], stdout=subprocess.PIPE)
    try:
        r = x.run(["check", "--snapshot", "-"], stdin=feeder.stdout, timeout=120,
                  rss_mb=bound(CAP >> 20))
    finally:
        feeder.kill()
        feeder.wait()
        feeder.stdout.close()
    x.expect_usage_error(r, "--snapshot -: larger than 128 MiB")


@test
def a_truncated_snapshot_says_where_it_ends():
    text = json.dumps(golden(), indent=2).encode()
    cut = text[: text.index(b'"os_family"') + 5]
    r = check_file(cut)
    x.expect_usage_error(r, "not JSON (")
    expect_contains(r.err, " at collection")
    for n in (1, len(text) // 2, len(text) - 1):
        x.expect_usage_error(check_file(text[:n]), "not JSON (")


@test
def strings_keys_and_containers_are_bounded():
    doc = golden()
    doc["collection"]["tool_version"] = "9" * ((1 << 20) + 1)
    x.expect_usage_error(check_file(doc), "collection.tool_version: a string longer than")
    wide = b'{"collection": {"schema": "cudnn-doctor-snapshot/1"}, "environment": {' + b",".join(
        b'"V%d": "x"' % i for i in range(1025)) + b"}}"
    x.expect_usage_error(check_file(wide), "more than 1024 members in one object")
    many = HEAD[:-len(b'"probed_paths": [')] + b'"linker": {"default_dirs": [' + b",".join(
        [b'""'] * ((256 << 10) + 1)) + b"]}}"
    x.expect_usage_error(check_file(many), "linker.default_dirs[262144]: more than 262144 items")


@test
def a_key_twice_and_wrong_types_are_named():
    text = json.dumps(golden())
    twice = text.replace('"os_family": "linux"', '"os_family": "linux", "os_family": "windows"')
    x.expect_usage_error(check_file(twice.encode()), 'collection: the key "os_family" appears twice')
    doc = golden()
    doc["cuda_toolkits"] = [{"path": 7}]
    x.expect_usage_error(check_file(doc),
                         "cuda_toolkits[0].path: expected a string, found an integer")


@test
def odd_bytes_in_keys_do_not_reach_the_terminal():
    doc = golden()
    doc["environment"] = {"\x1b]0;pwned\x07": 1}
    r = check_file(doc)
    x.expect_usage_error(r, "environment[")
    expect("\x1b" not in r.err and "\x07" not in r.err, f"control bytes on stderr: {r!r}")


@test
def a_folder_name_that_is_not_utf8_survives_a_snapshot():
    # A folder name may be any bytes. The snapshot keeps them (k and k_bytes), and checking the
    # snapshot gives the findings of the live run, naming the same folder.
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
    import scenario_lib
    odd = "/opt/cudnn-" + os.fsdecode(b"\xff\xfe")
    with x.tree() as root:
        t = scenario_lib.Tree(root)
        t.ubuntu_base()
        t.elf(f"{odd}/libcudnn.so.9", "libcudnn.so.9")
        env = ["--env", f"LD_LIBRARY_PATH={odd}"]
        snap = os.path.join(root, "..", os.path.basename(root) + ".json")
        try:
            r = x.run(["snapshot", "--sysroot", root, "--no-nvml", *env, "-o", snap], timeout=120)
            x.expect_exit(r, 0)
            raw = open(snap, "rb").read()
            expect(b"\xef\xbf\xbd" not in raw, "the snapshot replaced bytes with U+FFFD")
            expect(b'"LD_LIBRARY_PATH_bytes": "2f6f70742f6375646e6e2dfffe"' in raw,
                   "the environment value lost its bytes")
            live = x.run(["check", "--sysroot", root, "--no-nvml", *env, "--format", "json"],
                         timeout=120)
            again = x.run(["check", "--snapshot", snap, "--format", "json"], timeout=120)
            expect(live.code == again.code, f"{live!r}\n{again!r}")

            def findings(r):
                return sorted((f["id"], f.get("subject", ""), f.get("subject_bytes", ""))
                              for f in r.json()["findings"])
            expect(findings(live) == findings(again), f"{findings(live)}\n{findings(again)}")
            expect("2f6f70742f6375646e6e2dfffe" in again.out, "no finding names the folder's bytes")
        finally:
            if os.path.exists(snap):
                os.unlink(snap)


if __name__ == "__main__":
    x.main()
