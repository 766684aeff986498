#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Files and folders the doctor's user may not read. Unreadable is its own answer: a library of
mode 000 is unreadable (permission.library_unreadable), never "structurally damaged"; a lib folder
the user may not list is "could not read" in the facts with a finding, never a cuDNN that is not
there; a --sysroot the user may not read is a usage error, never "none found" and exit 0. CI runs
as root, who reads everything, so each case runs the doctor as nobody."""
import os

import hostile as x
from hostile import expect, expect_contains, test

LIBRARY = "tests/support/fake_nvml.c"  # any small C file makes a real shared library
TOOLKIT = os.path.join("usr", "local", "cuda-13.0")


def probe():
    if os.geteuid() != 0:
        return "these cases run the doctor as another user, which needs root"
    return None


def findings(r, fid):
    return [f for f in r.json()["findings"] if f["id"] == fid]


def toolkit_tree(root):
    """A toolkit that the CUDA and cuDNN collectors recognise, with a real libcudnn.so.9."""
    tk = os.path.join(root, TOOLKIT)
    x.write(os.path.join(tk, "include", "cuda.h"), "#define CUDA_VERSION 13000\n")
    os.makedirs(os.path.join(tk, "lib64"))
    return x.build_c_library(LIBRARY, "libcudnn.so.9", os.path.join(tk, "lib64"))


@test
def mode_000_library_is_unreadable_not_damaged():
    with x.tree() as root:
        lib = toolkit_tree(root)
        os.chmod(lib, 0)
        r = x.run(["check", "--sysroot", root, "--no-nvml", "--format", "json"], timeout=60,
                  user=x.NOBODY)
        x.expect_no_internal_error(r)
        inner = "/" + os.path.relpath(lib, root)
        unreadable = [f["subject"] for f in findings(r, "permission.library_unreadable")]
        expect(inner in unreadable, f"no permission.library_unreadable for {inner}: {unreadable}")
        damaged = [f["subject"] for f in findings(r, "integrity.binary_damaged")]
        expect(inner not in damaged, f"an unreadable library was called damaged: {damaged}")
        s = x.run(["snapshot", "--sysroot", root, "--no-nvml"], timeout=60, user=x.NOBODY)
        binary = [b for b in s.json()["binaries"] if b["path"] == inner]
        expect(binary and binary[0]["read_error"] == "permission_denied",
               f"the binary's read_error is not permission_denied: {binary}")


@test
def unreadable_lib_folder_is_could_not_read():
    with x.tree() as root:
        lib = toolkit_tree(root)
        folder = os.path.dirname(lib)
        os.chmod(folder, 0o700)  # root's; nobody may not list it
        r = x.run(["snapshot", "--sysroot", root, "--no-nvml"], timeout=60, user=x.NOBODY)
        x.expect_no_internal_error(r)
        inner = "/" + os.path.relpath(folder, root)
        listed = [u for u in r.json()["unreadable"] if u["path"] == inner]
        expect(listed, f"{inner} is not among the unreadable paths: {r.json()['unreadable']}")
        expect(listed[0]["error"] == "permission_denied", f"{listed}")
        c = x.run(["check", "--sysroot", root, "--no-nvml", "--format", "json"], timeout=60,
                  user=x.NOBODY)
        x.expect_no_internal_error(c)
        subjects = [f["subject"] for f in findings(c, "permission.path_unreadable")]
        expect(inner in subjects, f"no permission.path_unreadable for {inner}: {subjects}")


@test
def unreadable_sysroot_is_a_usage_error():
    with x.tree() as root:
        tree = os.path.join(root, "image")
        toolkit_tree(tree)
        os.chmod(tree, 0o700)  # root's; nobody may not list it
        r = x.run(["check", "--sysroot", tree, "--no-nvml"], timeout=60, user=x.NOBODY)
        x.expect_usage_error(r, f"--sysroot {tree}: cannot be read (permission denied)")


@test
def unreadable_tree_file_for_resolve():
    """resolve --tree on a library the user may not read: says so (exit 2), never "not an ELF
    file"."""
    with x.tree() as root:
        lib = toolkit_tree(root)
        os.chmod(lib, 0)
        inner = "/" + os.path.relpath(lib, root)
        r = x.run(["resolve", "--tree", inner, "--sysroot", root], timeout=60, user=x.NOBODY)
        x.expect_usage_error(r, "cannot be read")
        expect("not an ELF file" not in r.err, f"{r!r}")
        expect_contains(r.err, "Permission denied")


if __name__ == "__main__":
    x.main(probe)
