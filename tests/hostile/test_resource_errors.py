#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The doctor out of a resource: address space (RLIMIT_AS, so mmap fails with ENOMEM) or file
descriptors (RLIMIT_NOFILE, so open fails with EMFILE). A resource error is a resource error: the
answer is "cannot tell" (exit 3, the doctor failed), never "not found" or "not an ELF file".

AddressSanitizer reserves terabytes of shadow memory and cannot start under RLIMIT_AS, so the
cases here run only in an unsanitized build (DOCTOR_SANITIZED=0): with four descriptors or under
RLIMIT_AS the sanitizers' runtime fails before the doctor does. In every build (CI's sanitized one
included) the unit tests input_file_resources.* (a forked child lowers its own RLIMIT_AS or
RLIMIT_NOFILE and calls the open and mapping primitives) and
linux_search.resource_error_is_undetermined_not_absent (the loader model given such a file) cover
the same path."""
import os
import resource

import hostile as x
from hostile import expect, expect_contains, test

LIBRARY = "tests/support/fake_nvml.c"  # any small C file makes a real shared library
CUBLASLT = "/usr/local/cuda/lib64/libcublasLt.so.13"


def limit(which, value):
    def set_limit():
        resource.setrlimit(which, (value, value))
    return set_limit


def library_tree(root):
    lib = os.path.join(root, "usr", "lib")
    os.makedirs(lib)
    x.build_c_library(LIBRARY, "libx.so", lib)
    return lib


def expect_cannot_tell(r, why):
    expect(r.code == 3, f"a resource error is the doctor's failure (exit 3): {r!r}")
    expect_contains(r.err, "cannot tell")
    expect_contains(r.err, why)
    expect("not found" not in r.out and "not an ELF file" not in r.err, f"{r!r}")


@test
def out_of_descriptors_resolve_says_cannot_tell():
    with x.tree() as root:
        library_tree(root)
        # stdin, stdout, stderr and one more: the library's O_PATH open takes the last
        # descriptor, and opening it for reading fails with EMFILE.
        r = x.run(["resolve", "libx.so", "--sysroot", root], timeout=60,
                  preexec=limit(resource.RLIMIT_NOFILE, 4))
        expect_cannot_tell(r, "Too many open files")


@test
def out_of_address_space_resolve_says_cannot_tell():
    if not os.path.isfile(CUBLASLT):
        print(f"  ({CUBLASLT} is not here: not run)")
        return
    lib = os.path.dirname(CUBLASLT)
    r = x.run(["resolve", "libcublasLt.so.13", "--env", f"LD_LIBRARY_PATH={lib}"], timeout=60,
              preexec=limit(resource.RLIMIT_AS, 400_000 * 1024))
    expect_cannot_tell(r, "Cannot allocate memory")


@test
def out_of_address_space_tree_is_no_elf_verdict():
    if not os.path.isfile(CUBLASLT):
        print(f"  ({CUBLASLT} is not here: not run)")
        return
    r = x.run(["resolve", "--tree", CUBLASLT], timeout=60,
              preexec=limit(resource.RLIMIT_AS, 400_000 * 1024))
    expect(r.code == 3, f"{r!r}")
    expect_contains(r.err, "Cannot allocate memory")
    expect("not an ELF file" not in r.err, f"{r!r}")


def probe():
    # A sanitized build cannot run these at all (above): the suite says it was skipped (ctest
    # shows it as not run) instead of passing without having run anything.
    if x.SANITIZED:
        return ("sanitized build: the sanitizers' runtime fails under RLIMIT_AS and with four "
                "descriptors; the unit tests input_file_resources.* and "
                "linux_search.resource_error_is_undetermined_not_absent cover these paths here")
    return None


if __name__ == "__main__":
    x.main(probe)
