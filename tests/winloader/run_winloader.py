#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Windows loader scenario driver: one rule of the Windows DLL loader per scenario.

Each directory under tests/winloader/scenarios/ holds scenario.py with
  build(tree)  makes the Windows tree (WinTree below): DLLs built here by mingw-w64 with the file
               names, import tables (import libraries made by dlltool) and version resources
               (windres) the rule needs; drive C: is a directory of the tree
  LOADER       the process's loader state (WindowsLoaderConfig's fields: application_dir,
               system32, known_dlls, path, user_dirs, dll_directory, default_dll_directories,
               current_dir, process_bits, process_machine, ...)
  PYTHON       the Python process for framework and extension cases (WindowsPythonProcess's
               fields; "list_dirs": directories listed from the tree as a collector lists them)
  CASES        each a dict with a "title", one of
                 request    {"name", "flags", "load_dir", "requested_by", "loaded"}: one
                            resolve_windows call
                 framework  {"name", "location", "version", "cuda_version", "cudnn_version"}:
                            simulate_windows_framework
                 extension  the .pyd path: simulate_python_extension
               "loader" / "python" entries override LOADER / PYTHON for this case, and what
               must come out:
                 for a request
                   found        the path chosen, or None (always checked)
                   via          how it was found ("app dir", "PATH", "KnownDLLs", ...)
                   fatal_error  LoadLibrary's error for the chosen file (default 0, always checked)
                   version      {field: value} of the chosen file (file_version, product_name,
                                product_version, bits, machine)
                   shadowed     the later copies, in order: paths or (path, file_version)
                                (default [], always checked)
                   considered   the exact list of (via, path) of the steps that name a path
                   outcomes     [(path, substring)]: the step for the path says this
                   missing_imports  the chosen DLL's imports that cannot be resolved in the same
                                load operation (default [], checked when a file was chosen)
                   imports      {import: (path, via)}: where each import resolves (None, None:
                                nowhere)
                 for a framework or an extension
                   import_failed  (default False, always checked)
                   steps        DLL loads that must appear in this order, each a dict:
                                  dll (as asked, without regard to case), reason (substring
                                  that picks the step), found (path or None), via,
                                  error (default 0 if found else 126), version (file_version of
                                  the chosen file), shadowed, not_searched (paths listed as
                                  "not searched"), notes (substrings of the step's notes)
                   lacks        DLL names that must not be asked for at all
                   notes        substrings of the context's notes

Windows paths are mapped onto the tree without regard to case, as NTFS looks names up.

  run_winloader.py WINLOAD_SCENARIO SCENARIO_DIR [--keep] [--verbose]
"""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 125
TRIPLETS = {64: "x86_64-w64-mingw32", 32: "i686-w64-mingw32"}


class Skip(Exception):
    pass


def cudnn_version(version):
    """A version resource like the one NVIDIA puts in its cuDNN DLLs."""
    return {"CompanyName": "NVIDIA Corporation", "FileDescription": "NVIDIA cuDNN Library",
            "FileVersion": version, "ProductName": "NVIDIA cuDNN Library",
            "ProductVersion": version}


def plain_version(version, product):
    return {"FileDescription": product, "FileVersion": version, "ProductName": product,
            "ProductVersion": version}


class WinTree:
    """A Windows file tree under a host directory: drive C: is ROOT/C."""

    def __init__(self, root):
        self.root = root
        self.drives = {"C:": os.path.join(root, "C")}
        self.work = os.path.join(root, ".build")
        os.makedirs(self.drives["C:"])
        os.makedirs(self.work)
        self._implibs = {}
        self._count = 0

    def host(self, winpath):
        m = re.match(r"^([A-Za-z]:)\\(.*)$", winpath)
        assert m and m.group(1).upper() in self.drives, winpath
        parts = [p for p in m.group(2).split("\\") if p]
        return os.path.join(self.drives[m.group(1).upper()], *parts)

    def mkdir(self, winpath):
        os.makedirs(self.host(winpath), exist_ok=True)

    def text(self, winpath, content):
        path = self.host(winpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)

    @staticmethod
    def tool(bits, name):
        exe = shutil.which(f"{TRIPLETS[bits]}-{name}")
        if exe is None:
            raise Skip(f"{TRIPLETS[bits]}-{name} is not installed (scripts/install-deps.sh)")
        return exe

    @staticmethod
    def symbol(dll_name):
        stem = os.path.splitext(dll_name.lower())[0]
        return re.sub(r"[^a-z0-9]", "_", stem) + "_entry"

    @staticmethod
    def run(cmd):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")

    def implib(self, dll_name, bits):
        """An import library for DLL_NAME (the name its import-table entry gets, case kept)
        with one function, <stem>_entry, which every DLL built here exports."""
        key = (dll_name, bits)
        if key not in self._implibs:
            self._count += 1
            base = os.path.join(self.work, f"imp{self._count}")
            with open(base + ".def", "w") as f:
                f.write(f"LIBRARY \"{dll_name}\"\nEXPORTS\n  {self.symbol(dll_name)}\n")
            self.run([self.tool(bits, "dlltool"), "-d", base + ".def", "-l", base + ".a",
                      "-D", dll_name, "-m", "i386:x86-64" if bits == 64 else "i386"])
            self._implibs[key] = base + ".a"
        return self._implibs[key]

    def dll(self, winpath, imports=("KERNEL32.dll",), bits=64, version=None):
        """Builds a DLL at WINPATH importing IMPORTS (in this order), with a version resource
        of the VERSION strings (see cudnn_version) if given."""
        out = self.host(winpath)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        name = os.path.basename(out)
        self._count += 1
        base = os.path.join(self.work, f"dll{self._count}")
        calls = " + ".join(f"{self.symbol(i)}()" for i in imports) or "0"
        src = "".join(f"int {self.symbol(i)}(void);\n" for i in imports)
        src += (f"__declspec(dllexport) int {self.symbol(name)}(void) {{ return {calls}; }}\n"
                "int __stdcall DllMainCRTStartup(void *h, unsigned long r, void *p) "
                "{ (void)h; (void)r; (void)p; return 1; }\n")
        with open(base + ".c", "w") as f:
            f.write(src)
        cmd = [self.tool(bits, "gcc"), "-shared", "-nostdlib", "-O1", "-o", out, base + ".c"]
        if version:
            numbers = [int(x) for x in (version["FileVersion"].split(".") + ["0"] * 4)[:4]]
            strings = "".join(f'      VALUE "{k}", "{v}"\n' for k, v in version.items())
            strings += f'      VALUE "OriginalFilename", "{name}"\n'
            with open(base + ".rc", "w") as f:
                f.write(f"1 VERSIONINFO\nFILEVERSION {','.join(map(str, numbers))}\n"
                        f"PRODUCTVERSION {','.join(map(str, numbers))}\n"
                        "FILEOS 0x40004\nFILETYPE 0x2\nBEGIN\n"
                        '  BLOCK "StringFileInfo"\n  BEGIN\n    BLOCK "040904b0"\n    BEGIN\n'
                        f"{strings}    END\n  END\n"
                        '  BLOCK "VarFileInfo"\n  BEGIN\n    VALUE "Translation", 0x409, 1200\n'
                        "  END\nEND\n")
            self.run([self.tool(bits, "windres"), "-O", "coff", "-i", base + ".rc",
                      "-o", base + ".res.o"])
            cmd.append(base + ".res.o")
        cmd += [self.implib(i, bits) for i in imports]
        self.run(cmd)
        return out

    def windows(self, bits=64):
        """C:\\Windows with System32\\kernel32.dll and ntdll.dll, and the 16-bit System dir."""
        self.dll(r"C:\Windows\System32\ntdll.dll", imports=(), bits=bits)
        self.dll(r"C:\Windows\System32\kernel32.dll", imports=("ntdll.dll",), bits=bits,
                 version=plain_version("10.0.19041.3996", "Microsoft Windows Operating System"))
        self.mkdir(r"C:\Windows\System")


BASE_LOADER = {"windows_dir": r"C:\Windows", "known_dlls": ["kernel32.dll", "ntdll.dll"]}


def load(scenario_dir):
    spec = importlib.util.spec_from_file_location("scenario",
                                                  os.path.join(scenario_dir, "scenario.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Checker:
    def __init__(self, verbose):
        self.failures = 0
        self.verbose = verbose

    def expect(self, ok, where, what, got):
        if not ok:
            self.failures += 1
            print(f"FAIL {where}: {what}\n     got: {json.dumps(got, indent=None)}")
        elif self.verbose:
            print(f"ok   {where}: {what}")


def same(a, b):
    return a is not None and b is not None and a.lower() == b.lower()


def check_resolution(c, res, case, where):
    chosen = res["chosen"]
    found = chosen["path"] if chosen else None
    c.expect(found == case["found"], where, f"found {case['found']}", found)
    if "via" in case:
        c.expect(chosen is not None and chosen["via"] == case["via"], where, f"via {case['via']}",
                 chosen and chosen["via"])
    fatal = case.get("fatal_error", 0)
    c.expect(res["fatal_error"] == fatal, where, f"fatal_error {fatal}", res["fatal_error"])
    for field, value in case.get("version", {}).items():
        got = chosen and chosen.get(field)
        c.expect(got == value, where, f"chosen {field} {value}", got)
    want = [tuple(s) if isinstance(s, (list, tuple)) else (s,) for s in case.get("shadowed", [])]
    got = [(s["path"], s.get("file_version")) for s in res["shadowed"]]
    cut = [g[:len(w)] for g, w in zip(got, want)] + got[len(want):]
    c.expect(cut == want, where, f"shadowed {want}", got)
    steps = [(s["via"], s["path"]) for s in res["steps"] if s["path"]]
    if "considered" in case:
        want = [tuple(s) for s in case["considered"]]
        c.expect(steps == want, where, f"considered {want}", steps)
    for path, text in case.get("outcomes", []):
        outs = [s["outcome"] for s in res["steps"] if s["path"] == path]
        c.expect(any(text in o for o in outs), where, f"step {path} says '{text}'", outs)


def check_request(c, res, case, where):
    check_resolution(c, res, case, where)
    if res["chosen"] and res["fatal_error"] == 0:
        want = case.get("missing_imports", [])
        c.expect(res["missing_imports"] == want, where, f"missing imports {want}",
                 res["missing_imports"])
    for name, (path, via) in case.get("imports", {}).items():
        got = [(i["found"], i["via"]) for i in res["imports"] if i["name"] == name]
        c.expect(got == [(path, via)], where, f"import {name} from {path} via {via}", got)


def check_context(c, ctx, case, where):
    want = case.get("import_failed", False)
    c.expect(ctx["import_failed"] == want, where, f"import_failed {want}", ctx["import_failed"])
    for text in case.get("notes", []):
        c.expect(any(text in n for n in ctx["notes"]), where, f"a note says '{text}'", ctx["notes"])
    asked = [s["dll"].lower() for s in ctx["steps"]]
    for dll in case.get("lacks", []):
        c.expect(dll.lower() not in asked, where, f"{dll} is never asked for", asked)
    at = 0
    for want in case.get("steps", []):
        label = f"{where} step {want['dll']}" + (f" ({want['reason']})" if "reason" in want else "")
        index = next((i for i in range(at, len(ctx["steps"]))
                      if same(ctx["steps"][i]["dll"], want["dll"])
                      and want.get("reason", "") in ctx["steps"][i]["reason"]), None)
        if index is None:
            c.expect(False, label, "is asked for (in this order)",
                     [(s["dll"], s["reason"]) for s in ctx["steps"][at:]])
            continue
        at = index + 1
        step = ctx["steps"][index]
        res = step["resolution"]
        check_resolution(c, res, {k: v for k, v in want.items() if k != "version"}, label)
        error = want.get("error", 0 if want["found"] else 126)
        c.expect(step["error"] == error, label, f"error {error}", step["error"])
        if "version" in want:
            got = res["chosen"] and res["chosen"]["file_version"]
            c.expect(got == want["version"], label, f"file_version {want['version']}", got)
        for path in want.get("not_searched", []):
            outs = [s["outcome"] for s in res["steps"] if s["path"] == path]
            c.expect(any("not searched" in o for o in outs), label, f"{path} is not searched",
                     outs)
        for text in want.get("notes", []):
            c.expect(any(text in n for n in step["notes"]), label, f"a note says '{text}'",
                     step["notes"])


KEYS = {
    "request": {"found", "via", "fatal_error", "version", "shadowed", "considered", "outcomes",
                "missing_imports", "imports"},
    "context": {"import_failed", "steps", "lacks", "notes"},
    "step": {"dll", "reason", "found", "via", "fatal_error", "error", "version", "shadowed",
             "considered", "outcomes", "not_searched", "notes"},
}


def unknown_keys(case, kind):
    """Expectation keys the driver would not check: a typo must not pass silently."""
    allowed = {"title", "loader", "python", kind} | KEYS["request" if kind == "request"
                                                          else "context"]
    bad = set(case) - allowed
    for step in case.get("steps", []):
        bad |= set(step) - KEYS["step"]
    return sorted(bad)


def main(argv):
    keep = "--keep" in argv
    verbose = "--verbose" in argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__.splitlines()[-1].strip(), file=sys.stderr)
        return 2
    tool, scenario_dir = args
    scenario = load(scenario_dir)
    root = tempfile.mkdtemp(prefix="winloader-")
    c = Checker(verbose)
    try:
        tree = WinTree(root)
        try:
            scenario.build(tree)
        except Skip as e:
            print(f"SKIP {e}")
            return SKIP
        for n, case in enumerate(scenario.CASES):
            where = f"{os.path.basename(scenario_dir)}[{n}] {case['title']}"
            desc = {"drives": tree.drives,
                    "loader": {**BASE_LOADER, **scenario.LOADER, **case.get("loader", {})},
                    "python": {**getattr(scenario, "PYTHON", {}), **case.get("python", {})}}
            kind = next(k for k in ("request", "framework", "extension") if k in case)
            if unknown_keys(case, kind):
                c.expect(False, where, "only known keys", unknown_keys(case, kind))
                continue
            desc[{"request": "requests", "framework": "frameworks",
                  "extension": "extensions"}[kind]] = [case[kind]]
            path = os.path.join(tree.work, f"case{n}.json")
            with open(path, "w") as f:
                json.dump(desc, f, indent=2)
            p = subprocess.run([tool, path], capture_output=True, text=True)
            if p.returncode != 0:
                c.expect(False, where, "winload_scenario runs", p.stderr)
                continue
            out = json.loads(p.stdout)
            if verbose:
                print(p.stdout)
            if kind == "request":
                check_request(c, out["resolutions"][0], case, where)
            else:
                check_context(c, out[kind + "s"][0], case, where)
    finally:
        if keep:
            print(f"tree kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{len(scenario.CASES)} cases, {c.failures} failed checks")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
