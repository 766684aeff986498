#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Loader scenario driver: one rule of the Linux dynamic loader per scenario.

Each directory under tests/loader/scenarios/ holds scenario.py with
  build(tree)  makes the --sysroot tree (scenario_lib.Tree; ELF files compiled by gcc here, with
               the SONAME, DT_NEEDED, DT_RPATH/DT_RUNPATH and flags the rule needs)
  ENV          the examined environment, passed as --env NAME=VALUE
  CASES        `cudnn-doctor resolve` runs, each a dict:
                 name        the library asked for
                 args        more resolve arguments (["--from", OBJECT] or ["--python", ENV])
                 env         {NAME: value or None} over ENV for this case
                 requested_by  pick the resolution asked for by this object (--python runs)
                 found       the inner path the loader picks, or None (not found)
                 real_path, via, source_contains   more about the winner
                 shadowed    the loadable copies that lose, in order (inner paths)
                 considered  the exact list of (via, path) the loader tries, steps without a
                             path left out
                 considered_contains  steps that must appear in this order: a path, or a dict
                             of path / via / outcome (substring) / source (substring)
                 considered_lacks  paths the loader must not try
                 text_contains  substrings of the text output, in this order
                 exit        expected exit status (default 0 if found else 1)
                 real        also ask the real glibc of this machine (see below); "debian-lib":
                             only where its ld.so expands $LIB to lib/x86_64-linux-gnu;
                             "legacy-hwcaps": only where its glibc is older than 2.37
                 xfail       "reason": the tool is known to get this wrong; the case is printed
                             as XFAIL and does not fail the test, but passing (XPASS) does
  CHECK        `cudnn-doctor check --sysroot TREE --format json` runs (a dict or a list):
                 env, args   as for CASES (args: more check arguments)
                 ids / absent  finding ids that must / must not be reported
                 severity    {id: severity}
                 message_contains  {id: [substrings of its message]}
                 fix_commands  {id: [commands that must be among its fixes' commands]}
                 absent_subjects  {id: [subjects it must not be reported for]}
                 xfail       as above

Cases with "real": True are also run through this machine's own dynamic loader: a tiny program
dlopen()s the --from object (whose DT_NEEDED names the library) or the library itself, with
the absolute entries of LD_LIBRARY_PATH and LD_PRELOAD moved under the tree, and reports the
path the loader mapped (LD_DEBUG=libs output is shown when it differs from the case).
Only rules the tree decides completely (RPATH/RUNPATH with $ORIGIN, LD_LIBRARY_PATH, ELF class)
can be compared like this: the host's ld.so.cache and default directories are the host's.

  run_loader.py CUDNN_DOCTOR SCENARIO_DIR [--keep] [--verbose]
"""
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "golden"))
import scenario_lib  # noqa: E402

SKIP = 125

REAL_LOADER_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

/* argv[1]: the object to open first (its DT_NEEDED asks for the library), or "-" to open the
   library by name from this program (no RPATH, no RUNPATH); argv[2]: the library's name. */
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  const char *first = strcmp(argv[1], "-") == 0 ? argv[2] : argv[1];
  if (!dlopen(first, RTLD_NOW | RTLD_GLOBAL)) {
    printf("NOT FOUND %s\n", dlerror());
    return 1;
  }
  void *lib = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
  struct link_map *map = NULL;
  if (!lib || dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0) {
    printf("NOT LOADED %s was not loaded by %s\n", argv[2], first);
    return 2;
  }
  printf("FOUND %s\n", map->l_name);
  return 0;
}
"""


def load(scenario_dir):
    spec = importlib.util.spec_from_file_location("scenario", os.path.join(scenario_dir, "scenario.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def env_of(base, item):
    """The scenario's ENV with the case's or check's own "env" over it (None unsets a name)."""
    env = dict(base)
    for k, v in item.get("env", {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def env_args_of(env):
    return [a for k, v in sorted(env.items()) for a in ("--env", f"{k}={v}")]


def crashed(code, err):
    """True if the tool died (a signal, or a sanitizer report) rather than answered."""
    return code < 0 or code > 2 or "Sanitizer" in err or "runtime error:" in err


def run(exe, args):
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


class Outcome:
    def __init__(self):
        self.failed = 0
        self.xfailed = 0
        self.passed = 0

    verbose = False

    def report(self, label, problems, xfail, details="", crashed=False):
        if crashed:  # a wrong answer may be expected; a crash never is
            xfail = None
        if problems and xfail:
            self.xfailed += 1
            print(f"XFAIL {label}: {xfail}")
            for p in problems:
                print(f"      - {p}")
        elif problems:
            self.failed += 1
            print(f"FAIL  {label}")
            for p in problems:
                print(f"      - {p}")
            if details:
                print("      output:\n" + "\n".join("        " + l for l in details.splitlines()))
        elif xfail:
            self.failed += 1
            print(f"XPASS {label}: marked xfail ({xfail}) but passes; remove the mark")
        else:
            self.passed += 1
            print(f"PASS  {label}")
        if self.verbose and details and not (problems and not xfail):
            print("      output:\n" + "\n".join("        " + l for l in details.splitlines()))


def inner(root, path):
    """An output path as the examined system sees it (the tool prints inner paths; be lenient
    with host paths under the tree)."""
    if path is None:
        return None
    if path == root:
        return "/"
    if path.startswith(root + "/"):
        return path[len(root):]
    return path


def step_matches(step, want):
    if isinstance(want, str):
        return step.get("path") == want
    if "path" in want and step.get("path") != want["path"]:
        return False
    if "via" in want and step.get("via") != want["via"]:
        return False
    if "outcome" in want and want["outcome"] not in step.get("outcome", ""):
        return False
    if "source" in want and want["source"] not in step.get("source", ""):
        return False
    return True


def check_resolution(case, res, root):
    problems = []
    found = res.get("found")
    want = case.get("found")
    got = inner(root, found["path"]) if found else None
    if got != want:
        where = f" (via {found['via']}, {found['source']})" if found else ""
        problems.append(f"found {got}{where}, expected {want}")
    if found and want:
        if "via" in case and found["via"] != case["via"]:
            problems.append(f"via {found['via']}, expected {case['via']}")
        if "real_path" in case and inner(root, found["real_path"]) != case["real_path"]:
            problems.append(f"real_path {inner(root, found['real_path'])}, expected {case['real_path']}")
        if "source_contains" in case and case["source_contains"] not in found["source"]:
            problems.append(f"source {found['source']!r} lacks {case['source_contains']!r}")
    if "shadowed" in case:
        got_sh = [inner(root, s["path"]) for s in res.get("shadowed", [])]
        if got_sh != list(case["shadowed"]):
            problems.append(f"shadowed {got_sh}, expected {list(case['shadowed'])}")
    steps = res.get("considered", [])
    if "considered" in case:
        got_c = [(s["via"], inner(root, s["path"])) for s in steps if s.get("path")]
        want_c = [tuple(c) for c in case["considered"]]
        if got_c != want_c:
            problems.append("considered differs:\n" + "\n".join(
                f"          {'  ' if i < len(got_c) and i < len(want_c) and got_c[i] == want_c[i] else '!='} "
                f"got {got_c[i] if i < len(got_c) else '-'}   expected {want_c[i] if i < len(want_c) else '-'}"
                for i in range(max(len(got_c), len(want_c)))))
    for path in case.get("considered_lacks", []):
        if any(inner(root, s.get("path")) == path for s in steps):
            problems.append(f"considered {path}, which this loader never looks at")
    if "considered_contains" in case:
        i = 0
        for want_step in case["considered_contains"]:
            while i < len(steps) and not step_matches(dict(steps[i], path=inner(root, steps[i]["path"])), want_step):
                i += 1
            if i == len(steps):
                problems.append(f"considered lacks {want_step} (in this order)")
                break
            i += 1
    return problems


def summary(res, root):
    """A resolution as a few lines, for failure reports."""
    found = res.get("found")
    lines = [f"{res['name']} => {inner(root, found['path']) if found else 'not found'}"
             + (f" [{found['via']}: {found['source']}]" if found else "")]
    for n, s in enumerate(res.get("considered", []), 1):
        lines.append(f"  {n:>2}. {s['via']:<16} {inner(root, s['path']) or '-'}: {s['outcome']}")
    for s in res.get("shadowed", []):
        lines.append(f"  loses: {inner(root, s['path'])} [{s['via']}]")
    return "\n".join(lines)


def build_real_loader(work):
    src = os.path.join(work, "real_loader.c")
    exe = os.path.join(work, "real_loader")
    with open(src, "w", encoding="utf-8") as f:
        f.write(REAL_LOADER_C)
    p = subprocess.run(["gcc", src, "-o", exe, "-ldl"], capture_output=True, text=True)
    return exe if p.returncode == 0 else None


def host_lib_token(loader):
    """What this machine's ld.so makes of $LIB (from LD_DEBUG=libs), or None."""
    p = subprocess.run([loader, "-", "libdoctor-nonexistent.so.0"], capture_output=True, text=True,
                       env={"LD_DEBUG": "libs", "LD_LIBRARY_PATH": "/doctor-probe/$LIB"})
    for line in p.stderr.splitlines():
        if "search path=/doctor-probe/" in line:
            first = line.split("search path=/doctor-probe/", 1)[1].split(":", 1)[0]
            return first.split("/glibc-hwcaps", 1)[0].split("/tls", 1)[0]
    return None


def real_skip_reason(loader, kind):
    """Why the case cannot be compared with this machine's glibc, or "" if it can."""
    if not loader:
        return "cannot build the test program"
    if platform.machine() != "x86_64":
        return f"the fixtures are x86-64 and this machine is {platform.machine()}"
    if kind == "debian-lib" and host_lib_token(loader) != "lib/x86_64-linux-gnu":
        return "this machine's glibc does not expand $LIB the Debian way"
    if kind == "legacy-hwcaps":
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
        parts = version.replace("glibc ", "").split(".")
        if not (len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit()
                and (int(parts[0]), int(parts[1])) < (2, 37)):
            return f"this machine's {version or 'C library'} has no legacy hwcaps subdirectories"
    return ""


def real_answer(loader, root, env, case):
    """What this machine's glibc loads for the case, as an inner path (None: not found)."""
    args = case.get("args", [])
    first = "-"
    if "--from" in args:
        first = root + args[args.index("--from") + 1]
    run_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LD_DEBUG": "libs"}
    if env.get("LD_PRELOAD", "").strip():
        run_env["LD_PRELOAD"] = " ".join(root + e if e.startswith("/") else e
                                         for e in env["LD_PRELOAD"].replace(":", " ").split())
    if "LD_LIBRARY_PATH" in env:
        parts = [(root + e if e.startswith("/") else e) for e in env["LD_LIBRARY_PATH"].split(":")]
        run_env["LD_LIBRARY_PATH"] = ":".join(parts)
    p = subprocess.run([loader, first, case["name"]], capture_output=True, text=True, env=run_env)
    out = p.stdout.strip()
    debug = "\n".join(l for l in p.stderr.splitlines()
                      if case["name"] in l or "search path" in l)
    if out.startswith("FOUND "):
        return os.path.normpath(inner(root, out[len("FOUND "):])), out, debug
    if out.startswith("NOT FOUND") and case["name"] in out:
        return None, out, debug
    return "?", out, debug


def main():
    exe, scenario_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    keep = "--keep" in sys.argv[3:]
    Outcome.verbose = "--verbose" in sys.argv[3:]
    mod = load(scenario_dir)
    name = os.path.basename(scenario_dir)
    work = tempfile.mkdtemp(prefix="doctor-loader-")
    root = os.path.join(work, "root")
    os.makedirs(root)
    try:
        tree = scenario_lib.Tree(root)
        mod.build(tree)
        if tree.skip_reason:
            print(f"SKIP: {tree.skip_reason}")
            return SKIP
        shutil.rmtree(os.path.join(root, ".elf-cache"), ignore_errors=True)
        base_env = dict(getattr(mod, "ENV", {}))
        outcome = Outcome()
        real_loader = None

        for i, case in enumerate(getattr(mod, "CASES", [])):
            env = env_of(base_env, case)
            args = ["resolve", case["name"]] + list(case.get("args", [])) + \
                   ["--sysroot", root, "--format", "json"] + env_args_of(env)
            label = f"{name} case {i + 1}: resolve {case['name']} {' '.join(case.get('args', []))}".rstrip()
            if "env" in case:
                label += " with " + " ".join(f"{k}={v}" for k, v in sorted(case["env"].items()))
            code, out, err = run(exe, args)
            problems = []
            details = out + err
            want_exit = case.get("exit", 0 if case.get("found") else 1)
            if code != want_exit:
                problems.append(f"exit status {code}, expected {want_exit}: {err.strip()}")
            try:
                doc = json.loads(out)
            except json.JSONDecodeError:
                doc = None
                problems.append("output is not JSON")
            if doc is not None:
                if doc.get("schema") != "cudnn-doctor-resolve/1":
                    problems.append(f"schema {doc.get('schema')!r}")
                picked = [r for r in doc.get("resolutions", []) if r["name"] == case["name"] and (
                    "requested_by" not in case or inner(root, r.get("requested_by") or "") == case["requested_by"])]
                if not picked:
                    problems.append(f"no resolution of {case['name']} in the output")
                else:
                    problems += check_resolution(case, picked[0], root)
                    details = summary(picked[0], root)
            if "text_contains" in case:
                _, text, _ = run(exe, [a for a in args if a not in ("--format", "json")])
                text = text.replace(root, "")
                at = 0
                for part in case["text_contains"]:
                    found_at = text.find(part, at)
                    if found_at < 0:
                        problems.append(f"text output lacks {part!r} (in this order)")
                        break
                    at = found_at + len(part)
            outcome.report(label, problems, case.get("xfail"), details, crashed(code, err))

            if case.get("real"):
                if real_loader is None:
                    real_loader = build_real_loader(work) or ""
                why = real_skip_reason(real_loader, case["real"])
                if why:
                    print(f"SKIP  {label} [real glibc]: {why}")
                    continue
                got, out, debug = real_answer(real_loader, root, env, case)
                problems = []
                if got != case.get("found"):
                    problems.append(f"this machine's glibc loads {got}, the case expects {case.get('found')} ({out})")
                outcome.report(label + " [real glibc]", problems, None, debug)

        checks = getattr(mod, "CHECK", [])
        for i, check in enumerate([checks] if isinstance(checks, dict) else checks):
            label = f"{name} check {i + 1}"
            if "env" in check:
                label += " with " + " ".join(f"{k}={v}" for k, v in sorted(check["env"].items()))
            code, out, err = run(exe, ["check", "--sysroot", root, "--format", "json"] +
                                 env_args_of(env_of(base_env, check)) + list(check.get("args", [])))
            problems = []
            if code not in (0, 1) or crashed(code, err):
                problems.append(f"check exited {code}: {err.strip()}")
                code = -1
                findings = []
            else:
                findings = json.loads(out)["findings"]
            ids = [f["id"] for f in findings]
            for want in check.get("ids", []):
                if want not in ids:
                    problems.append(f"{want} not reported (reported: {', '.join(sorted(set(ids))) or 'nothing'})")
            for unwanted in check.get("absent", []):
                if unwanted in ids:
                    msg = next(f["message"] for f in findings if f["id"] == unwanted)
                    problems.append(f"{unwanted} reported: {inner(root, msg)}")
            for fid, sev in check.get("severity", {}).items():
                for f in findings:
                    if f["id"] == fid and f["severity"] != sev:
                        problems.append(f"{fid} has severity {f['severity']}, expected {sev}")
            for fid, parts in check.get("message_contains", {}).items():
                msgs = [f["message"].replace(root, "") for f in findings if f["id"] == fid]
                for part in parts:
                    if msgs and not any(part in m for m in msgs):
                        problems.append(f"{fid} message lacks {part!r}: {msgs[0]}")
            for fid, commands in check.get("fix_commands", {}).items():
                have = [x["command"].replace(root, "") for f in findings if f["id"] == fid
                        for x in f.get("fixes", [])]
                for command in commands:
                    if command not in have:
                        problems.append(f"{fid} has no fix {command!r}: {have}")
            for fid, subjects in check.get("absent_subjects", {}).items():
                for f in findings:
                    if f["id"] == fid and inner(root, f.get("subject", "")) in subjects:
                        problems.append(f"{fid} reported for {inner(root, f['subject'])}")
            details = "\n".join(f"{f['id']} ({f['severity']}): {f['message'].replace(root, '')}" for f in findings)
            outcome.report(label, problems, check.get("xfail"), details, code == -1)

        print(f"{name}: {outcome.passed} passed, {outcome.xfailed} xfail, {outcome.failed} failed")
        if outcome.failed:
            keep = True
            print(f"scenario tree kept at {root}", file=sys.stderr)
            return 1
        return 0
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
