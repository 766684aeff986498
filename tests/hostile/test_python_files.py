#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A framework's version.py that binds a value in more than one statement. The doctor reads these
files without running them: a form it evaluates must give Python's value, and any other form
must make the value unknown with the reason, never leave the value of an earlier line."""
import json
import os

import hostile as x
from hostile import expect, test

SITE = "usr/lib/python3/dist-packages"


def torch_tree(root, version_py):
    x.write(os.path.join(root, SITE, "torch", "__init__.py"), "")
    x.write(os.path.join(root, SITE, "torch", "version.py"), version_py)
    x.write(os.path.join(root, SITE, "torch-2.5.1.dist-info", "METADATA"),
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n")
    x.write(os.path.join(root, "usr", "bin", "python3.12"), "")
    os.symlink("python3.12", os.path.join(root, "usr", "bin", "python3"))


def torch_facts(root):
    r = x.run(["snapshot", "--sysroot", root], timeout=60)
    x.expect_no_internal_error(r)
    doc = json.loads(r.out)
    frameworks = [f for env in doc["python_envs"] for f in env["frameworks"] if f["name"] == "torch"]
    expect(len(frameworks) == 1, doc["python_envs"])
    return frameworks[0]


@test
def augmented_string_assignment_is_evaluated():
    with x.tree() as root:
        torch_tree(root, "__version__ = '2.5.1+cu121'\ncuda = '12'\ncuda += '.1'\n")
        t = torch_facts(root)
        expect(t["cuda_version"].get("value") == "12.1", t["cuda_version"])
        expect(t["cuda_build"].get("value") is True, t["cuda_build"])


@test
def a_form_that_is_not_evaluated_makes_cuda_unknown_not_the_earlier_value():
    for later in ("cuda += suffix\n", "cuda = detect_cuda()\n", "if rocm:\n    cuda = None\n",
                  "from ._override import cuda\n", "cuda, hip = pair\n"):
        with x.tree() as root:
            torch_tree(root, "__version__ = '2.5.1+cu121'\ncuda = '12'\n" + later)
            t = torch_facts(root)
            expect("value" not in t["cuda_version"], (later, t["cuda_version"]))
            expect("value" not in t["cuda_build"], (later, t["cuda_build"]))
            why = t["cuda_version"].get("unknown", "")
            expect("version.py: cuda is" in why and later.split("\n")[-2].strip() in why,
                   (later, why))


if __name__ == "__main__":
    x.main()
