#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden scenario driver.

Each directory under tests/golden/scenarios/ holds scenario.py (build(tree) makes the --sysroot
tree; ARGS lists extra arguments; ENV maps --env variables), expected.txt and expected.json. The
driver builds the tree in a temporary directory, runs `cudnn-doctor check --sysroot TREE` in text
(no colour) and JSON, replaces the temporary path with <SYSROOT>, and diffs against the expected
files. It also checks that a snapshot of the tree analysed with `check --snapshot` gives the same
findings as the direct run. A scenario of a machine no collector here reads (a Windows one)
defines edit_snapshot(doc): the driver snapshots the tree, lets the scenario edit that JSON into the
machine's facts, and checks the edited snapshot instead. A scenario with NVML_MODE gets the
driver.nvml facts of the NVML stand-in (tests/support/fake_nvml.c) in that mode the same way.

  run_golden.py CUDNN_DOCTOR SCENARIO_DIR            # check one scenario
  run_golden.py CUDNN_DOCTOR SCENARIO_DIR --update   # rewrite its expected files
"""
import difflib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario_lib  # noqa: E402


def load(scenario_dir):
    spec = importlib.util.spec_from_file_location("scenario", os.path.join(scenario_dir, "scenario.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(exe, args):
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def write_snapshot(exe, mod, root, path):
    """Writes the snapshot of the scenario's tree to `path`, edited by the scenario's
    edit_snapshot(doc) when it has one. Returns the exit status of `snapshot` and its stderr."""
    env_args = [a for k, v in sorted(getattr(mod, "ENV", {}).items()) for a in ("--env", f"{k}={v}")]
    code, _, err = run(exe, ["snapshot", "--sysroot", root, "-o", path] + env_args)
    edit = getattr(mod, "edit_snapshot", None)
    if code == 0 and edit is not None:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        edit(doc)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
    return code, err


def fake_nvml_section(exe, work, mode):
    """The `driver.nvml` facts of a live snapshot taken with the NVML stand-in
    (tests/support/fake_nvml.c, built here with gcc) answering in `mode`: what the doctor's NVML
    child and collector make of that scenario, as `check` would see it on such a machine. The
    stand-in's path is put back as the real library's; the child's confinement (which depends on
    who runs the test) is given as a root run's."""
    libdir = os.path.join(work, "fake-nvml")
    os.makedirs(libdir)
    for d in (work, libdir):
        os.chmod(d, 0o755)  # the child gives up root for nobody: it must still load the stand-in
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "fake_nvml.c")
    lib = os.path.join(libdir, "libnvidia-ml.so.1")
    r = subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-Wl,-soname,libnvidia-ml.so.1", "-o", lib, src],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cannot build the NVML stand-in: {r.stderr.strip()}")
    env = dict(os.environ, LD_LIBRARY_PATH=libdir, FAKE_NVML_MODE=mode)
    p = subprocess.run([exe, "snapshot", "--nvml", "always"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"snapshot with the NVML stand-in exited {p.returncode}: {p.stderr}")
    nvml = json.loads(p.stdout)["driver"]["nvml"]
    nvml["library"]["value"] = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
    nvml["child"] = {"value": {"uid": 65534, "gid": 65534, "capabilities_dropped": True,
                               "no_new_privs": True, "address_space_limit": nvml["child"]["value"]["address_space_limit"],
                               "notes": []}, "source": "probe:confine_child"}
    return nvml


def diff(name, expected, actual):
    lines = list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                      f"expected/{name}", f"actual/{name}"))
    return "".join(lines)


def main():
    exe, scenario_dir = sys.argv[1], sys.argv[2]
    update = "--update" in sys.argv[3:]
    mod = load(scenario_dir)
    work = tempfile.mkdtemp(prefix="doctor-golden-")
    root = os.path.join(work, "root")
    os.makedirs(root)
    keep = False
    try:
        tree = scenario_lib.Tree(root)
        mod.build(tree)
        if tree.skip_reason and "--update" not in sys.argv[3:]:
            print(f"SKIP: {tree.skip_reason}")
            return 125
        shutil.rmtree(os.path.join(root, ".elf-cache"), ignore_errors=True)
        # COMMAND: the command and its leading arguments ("explain", "{scenario}/train.log");
        # {scenario} is the scenario's directory. Default: check.
        command = [a.replace("{scenario}", scenario_dir) for a in getattr(mod, "COMMAND", ["check"])]
        target = ["--sysroot", root]
        for k, v in sorted(getattr(mod, "ENV", {}).items()):
            target += ["--env", f"{k}={v}"]
        base = command + target
        edit = getattr(mod, "edit_snapshot", None)
        nvml_mode = getattr(mod, "NVML_MODE", None)
        if nvml_mode is not None:
            # A GPU only the NVML stand-in has: its facts go into the snapshot of the tree.
            nvml = fake_nvml_section(exe, work, nvml_mode)
            scenario_edit = edit

            def edit(doc):
                doc["driver"]["nvml"] = nvml
                if scenario_edit is not None:
                    scenario_edit(doc)
            mod.edit_snapshot = edit
        if edit is not None:
            # A machine no collector here can read (a Windows one): the scenario edits the
            # snapshot of its tree into that machine's facts, and the check reads the snapshot.
            snap = os.path.join(work, "edited-snapshot.json")
            code, err = write_snapshot(exe, mod, root, snap)
            if code != 0:
                print(f"snapshot exited {code}: {err}", file=sys.stderr)
                keep = True
                return 1
            base = command + ["--snapshot", snap]
        base += list(getattr(mod, "ARGS", []))
        outputs = {}
        codes = {}
        for fmt, name in (("text", "expected.txt"), ("json", "expected.json")):
            code, out, err = run(exe, base + ["--format", fmt, "--color", "never"])
            if code not in (0, 1):
                print(f"check --format {fmt} exited {code}: {err}", file=sys.stderr)
                keep = True
                return 1
            outputs[name] = (out.replace(root, "<SYSROOT>").replace(work, "<WORK>")
                             .replace(scenario_dir, "<SCENARIO>"))
            codes[name] = code
        code_expected = getattr(mod, "EXIT", None)
        if code_expected is not None and codes["expected.json"] != code_expected:
            print(f"exit status {codes['expected.json']}, expected {code_expected}", file=sys.stderr)
            keep = True
            return 1

        # The same tree through a snapshot must give the same findings.
        if edit is None:
            snap = os.path.join(work, "snapshot.json")
            code, err = write_snapshot(exe, mod, root, snap)
            if code != 0:
                print(f"snapshot exited {code}: {err}", file=sys.stderr)
                keep = True
                return 1
            code, out, err = run(exe, command + ["--snapshot", snap, "--format", "json"] + list(getattr(mod, "ARGS", [])))
            key = "causes" if command[0] == "explain" else "findings"
            expected_doc = json.loads(outputs["expected.json"].replace("<SYSROOT>", root)
                                      .replace("<SCENARIO>", scenario_dir))
            if json.loads(out)[key] != expected_doc[key]:
                print(f"{command[0]} --snapshot gives other {key} than {command[0]} --sysroot", file=sys.stderr)
                keep = True
                return 1

        failed = False
        for name, actual in outputs.items():
            path = os.path.join(scenario_dir, name)
            if update:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(actual)
                continue
            expected = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            if expected != actual:
                failed = True
                sys.stdout.write(diff(name, expected, actual))
        if failed:
            keep = True
            print(f"\nscenario tree kept at {root}; to accept the new output run:\n"
                  f"  {sys.argv[0]} {exe} {scenario_dir} --update", file=sys.stderr)
            return 1
        return 0
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
