#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Command lines whose options could swallow the command's own arguments. A repeatable option
takes exactly one value per occurrence (`--env A=B libcudnn.so.9` leaves the library name to
resolve), its occurrences accumulate, and a second value after one occurrence is a usage error;
the single-valued options (--from of resolve, --snapshot, --sysroot, -o) never take two.
`crashes --from` alone takes several files after one occurrence, as its help says, and that
command has no argument of its own to lose."""
import os

import hostile as x
from hostile import expect, expect_contains, test


def empty_root(d):
    root = os.path.join(d, "root")
    os.makedirs(root)
    return root


@test
def env_value_does_not_swallow_the_library_name():
    with x.tree() as d:
        root = empty_root(d)
        for args in (["resolve", "--sysroot", root, "--env", "A=B", "libcudnn.so.9"],
                     ["resolve", "--env", "A=B", "--sysroot", root, "libcudnn.so.9"],
                     ["resolve", "--sysroot", root, "--env=A=B", "libcudnn.so.9"]):
            r = x.run(args, timeout=60)
            x.expect_no_internal_error(r)
            expect(r.code == 1, f"{args}: {r!r}")  # an empty tree: not found, and said so
            expect_contains(r.out, "libcudnn.so.9 => not found")


@test
def env_occurrences_accumulate():
    with x.tree() as d:
        root = empty_root(d)
        r = x.run(["snapshot", "--sysroot", root, "--no-nvml", "--env", "CUDA_HOME=/opt/cuda",
                   "--env", "LD_LIBRARY_PATH=/opt/cuda/lib64", "--env", "CUDA_HOME=/usr/local/cuda"],
                  timeout=60)
        expect(r.code == 0, r)
        env = r.json()["environment"]
        expect(env == {"CUDA_HOME": "/usr/local/cuda", "LD_LIBRARY_PATH": "/opt/cuda/lib64"},
               f"the last of each name wins, every name kept: {env}")


@test
def a_second_value_after_one_option_is_a_usage_error():
    with x.tree() as d:
        root = empty_root(d)
        for args, extra in ((["snapshot", "--sysroot", root, "--env", "A=B", "C=D"], "C=D"),
                            (["check", "--sysroot", root, "--env", "A=B", "C=D"], "C=D"),
                            (["check", "--snapshot", "a.json", "b.json"], "b.json"),
                            (["check", "--sysroot", root, root], root),
                            (["snapshot", "-o", "a.json", "b.json"], "b.json")):
            r = x.run(args, timeout=30)
            x.expect_usage_error(r, extra)


@test
def explain_text_after_env_is_the_text_to_explain():
    with x.tree() as d:
        root = empty_root(d)
        text = ("Could not load library libcudnn_ops.so.9. Error: libcudnn_ops.so.9: cannot open "
                "shared object file: No such file or directory")
        r = x.run(["explain", "--sysroot", root, "--no-nvml", "--env", "CUDA_HOME=/x", text,
                   "--format", "json"], timeout=60)
        expect(r.code == 0, r)
        doc = r.json()
        expect([i["name"] for i in doc["inputs"]] == ["<argument>"], doc["inputs"])
        expect([c["id"] for c in doc["causes"]][:1] == ["log.cudnn_sublibrary_missing"],
               doc["causes"])


@test
def resolve_from_takes_one_object():
    with x.tree() as d:
        root = empty_root(d)
        x.write(os.path.join(root, "usr/bin/true"), open("/bin/true", "rb").read(), 0o755)
        r = x.run(["resolve", "--sysroot", root, "--from", "/usr/bin/true", "libcudnn.so.9"],
                  timeout=60)
        x.expect_no_internal_error(r)
        expect(r.code == 1, r)
        expect_contains(r.out, "libcudnn.so.9 => not found")


@test
def crashes_from_takes_several_files():
    with x.tree() as d:
        logs = []
        for i, xid in enumerate((79, 48)):
            logs.append(x.write(os.path.join(d, f"kern{i}.log"),
                                f"Dec  1 10:0{i}:00 host kernel: [  10{i}.0] NVRM: Xid "
                                f"(PCI:0000:01:00): {xid}, pid=1234, name=python, details\n"))
        r = x.run(["crashes", "--from", logs[0], logs[1], "--format", "json"], timeout=60)
        x.expect_no_internal_error(r)
        sources = [s["source"] for s in r.json()["sources"]]
        expect(all(any(log in s for s in sources) for log in logs), sources)


if __name__ == "__main__":
    x.main()
