# SPDX-License-Identifier: MIT
"""`cudnn-doctor kb`: the listing, its JSON form, and --check of an edited copy of data/kb."""
import json
import os
import shutil
import tempfile

import harness as h
from harness import expect, expect_contains, expect_exit, run, test

COMPAT_FILES = ("cuda_drivers.json", "cudnn_releases.json", "frameworks.json", "gpus.json")


def kb_copy():
    d = tempfile.mkdtemp(prefix="doctor-kb-")
    for name in os.listdir(os.path.join(h.SOURCE, "data", "kb")):
        if name.endswith(".json"):
            shutil.copy(os.path.join(h.SOURCE, "data", "kb", name), d)
    return d


@test
def kb_lists_version_files_and_sources():
    r = run(["kb"])
    expect_exit(r, 0)
    manifest = json.load(open(os.path.join(h.SOURCE, "data", "kb", "kb.json")))
    expect_contains(r.out, f"knowledge base {manifest['version']}")
    for name in COMPAT_FILES + ("findings.json", "library_sets.json"):
        expect_contains(r.out, name)
    expect_contains(r.out, "embedded")
    expect_contains(r.out, "distinct sources")


@test
def kb_json_counts_rows_of_every_file():
    r = run(["kb", "--format", "json"])
    expect_exit(r, 0)
    doc = r.json()
    names = {f["name"]: f for f in doc["files"]}
    for name in COMPAT_FILES:
        expect(name in names, f"{name} missing from {sorted(names)}")
        expect(names[name]["rows"] > 0, f"{name} has no rows")
        expect(names[name]["origin"] == "embedded", names[name])
    gpus = json.load(open(os.path.join(h.SOURCE, "data", "kb", "gpus.json")))
    expect(names["gpus.json"]["rows"] == len(gpus["architectures"]) + len(gpus["pci_ids"]), names["gpus.json"])
    expect(0 < doc["distinct_sources"] <= doc["rows"], doc)
    expect("valid" not in doc, doc)


@test
def kb_check_accepts_a_copy_of_the_shipped_files():
    d = kb_copy()
    r = run(["kb", "--check", d])
    expect_exit(r, 0)
    expect(r.out.startswith("valid"), r.out[:200])
    expect_contains(r.out, os.path.join(d, "gpus.json"))
    r = run(["kb", "--check", d, "--format", "json"])
    expect_exit(r, 0)
    doc = r.json()
    expect(doc["valid"] is True, doc)
    origins = {f["name"]: f["origin"] for f in doc["files"]}
    expect(origins["cudnn_releases.json"] == os.path.join(d, "cudnn_releases.json"), origins)


@test
def kb_check_rejects_a_row_without_source():
    d = kb_copy()
    path = os.path.join(d, "cudnn_releases.json")
    doc = json.load(open(path))
    del doc["releases"][3]["source"]
    json.dump(doc, open(path, "w"))
    r = run(["kb", "--check", d])
    expect_exit(r, 2)
    expect_contains(r.err, "cudnn_releases.json: releases[3]")
    expect_contains(r.err, '"source"')
    expect(r.out == "", f"stdout should be empty: {r.out[:500]}")


@test
def kb_check_rejects_a_missing_directory():
    r = run(["kb", "--check", os.path.join(tempfile.mkdtemp(), "absent")])
    expect_exit(r, 2)


if __name__ == "__main__":
    h.main()
