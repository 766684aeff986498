#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real Linux cuDNN 8 wheel from PyPI (nvidia-cudnn-cu11 8.9.6.50, manylinux1_x86_64) installed
by pip into a real venv, plus the lib/ directory of an older cuDNN 8 wheel (8.6.0.163) on
LD_LIBRARY_PATH: the classic mix of a framework's cuDNN with a stale copy.

What NVIDIA ships, and what the test derives its expectations from: the dispatcher libcudnn.so.8
(needs only libc & co.; it dlopen()s its six sub-libraries by bare name at run time) and six
sub-libraries libcudnn_{ops,cnn,adv}_{infer,train}.so.8, all named `.so.8` only, so the full
version is not in the file names. The `*_infer`/`ops_train` libraries export a 4-byte .rodata
object `cudnn_<sub>_version` holding (major << 16 | minor << 8 | patch): the version is in the
files even where no header or pip record is next to them. Which of RPATH and RUNPATH the
dispatcher carries decides whether LD_LIBRARY_PATH beats the wheel's own copy; the test reads it
from the file, predicts glibc's choice, checks the prediction against the real loader (LD_DEBUG),
and then holds `resolve` and `check` to it.

The wheels are about 700 MB each, so this runs only under the ctest label `realistic`. They are
kept in DOCTOR_WHEEL_CACHE (default: build/realistic/wheels), the venv in DOCTOR_CUDNN8_VENV
(default: build/realistic/cudnn8-venv); both are reused. Without network the test skips."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness as h  # noqa: E402
from harness import expect, run, test  # noqa: E402

PACKAGE = "nvidia-cudnn-cu11"
VERSION, OLD_VERSION = "8.9.6.50", "8.6.0.163"
PLATFORM = "manylinux1_x86_64"
SUBLIBS = ["libcudnn_adv_infer.so.8", "libcudnn_adv_train.so.8", "libcudnn_cnn_infer.so.8",
           "libcudnn_cnn_train.so.8", "libcudnn_ops_infer.so.8", "libcudnn_ops_train.so.8"]
LIBRARIES = ["libcudnn.so.8"] + SUBLIBS
VENV = LIB = OLD_LIB = None


def wheel_name(version):
    return f"{PACKAGE.replace('-', '_')}-{version}-py3-none-{PLATFORM}.whl"


def three(version):
    return ".".join(version.split(".")[:3])


def download(cache, version):
    wheel = os.path.join(cache, wheel_name(version))
    if not os.path.exists(wheel):
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                            "--platform", PLATFORM, "--platform", "manylinux2014_x86_64",
                            "--python-version", "3.11", "--progress-bar", "off", "-d", cache,
                            f"{PACKAGE}=={version}"], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(wheel):
            return None, f"cannot download {PACKAGE}=={version} for {PLATFORM}: {r.stderr.strip()[-300:]}"
    return wheel, None


def setup():
    """Downloads both wheels (once), pip-installs the new one into a venv and extracts the old
    one's lib/; returns a skip reason or None."""
    global VENV, LIB, OLD_LIB
    if not shutil.which("readelf"):
        return "readelf (binutils) is needed to read the wheels' dynamic sections"
    cache = os.environ.get("DOCTOR_WHEEL_CACHE") or os.path.join(h.SOURCE, "build", "realistic", "wheels")
    os.makedirs(cache, exist_ok=True)
    new_wheel, why = download(cache, VERSION)
    if why:
        return why
    old_wheel, why = download(cache, OLD_VERSION)
    if why:
        return why

    VENV = os.environ.get("DOCTOR_CUDNN8_VENV") or os.path.join(h.SOURCE, "build", "realistic", "cudnn8-venv")
    if not os.path.exists(os.path.join(VENV, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    if not glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages",
                                  f"{PACKAGE.replace('-', '_')}-{VERSION}.dist-info")):
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "--no-deps", "--no-index",
                        "--progress-bar", "off", new_wheel], check=True, capture_output=True)
    LIB = glob.glob(os.path.join(VENV, "lib", "python3*", "site-packages", "nvidia", "cudnn", "lib"))[0]

    # The stale copy: only the old wheel's libraries, in a directory of their own (no header, no
    # pip record next to them), as when someone copies lib/ somewhere and exports LD_LIBRARY_PATH.
    # Its directory's name does not carry the version, so that no message can name it by chance.
    OLD_LIB = os.path.join(cache, "stale-cudnn8", "lib")
    with zipfile.ZipFile(old_wheel) as z:
        for info in z.infolist():
            if not re.fullmatch(r"nvidia/cudnn/lib/libcudnn[^/]*\.so[.0-9]*", info.filename):
                continue
            target = os.path.join(OLD_LIB, os.path.basename(info.filename))
            if not os.path.exists(target) or os.path.getsize(target) != info.file_size:
                os.makedirs(OLD_LIB, exist_ok=True)
                with z.open(info) as src, open(target + ".part", "wb") as dst:
                    while chunk := src.read(1 << 20):
                        dst.write(chunk)
                os.replace(target + ".part", target)
    return None


# ---- facts about the files, read independently of the doctor -------------------------------

def dynamic(path):
    """RPATH, RUNPATH (None when absent) and NEEDED of an ELF file, from readelf."""
    out = subprocess.run(["readelf", "-dW", path], capture_output=True, text=True, check=True).stdout
    tags = {"RPATH": None, "RUNPATH": None, "NEEDED": []}
    for tag, value in re.findall(r"\((RPATH|RUNPATH|NEEDED)\)\s+\S+(?: \S+)*?: \[(.*)\]", out):
        if tag == "NEEDED":
            tags["NEEDED"].append(value)
        else:
            tags[tag] = value
    return tags


def embedded_version(path):
    """The `cudnn_<sub>_version` object a cuDNN 8 sub-library defines in .rodata, as "M.m.p";
    None when the file defines none (the dispatcher and the *_train libraries but ops_train)."""
    syms = subprocess.run(["readelf", "--dyn-syms", "-W", path],
                          capture_output=True, text=True, check=True).stdout
    m = re.search(r"^\s*\d+: ([0-9a-f]+)\s+4 OBJECT\s+GLOBAL\s+DEFAULT\s+\d+ (cudnn_\w+_version)@@",
                  syms, re.M)
    if not m:
        return None
    addr = int(m.group(1), 16)
    sections = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    for name, kind, sec_addr, off, size in re.findall(
            r"\]\s+(\S+)\s+(\S+)\s+([0-9a-f]{16})\s+([0-9a-f]+)\s+([0-9a-f]+)", sections):
        sec_addr, off, size = int(sec_addr, 16), int(off, 16), int(size, 16)
        if sec_addr <= addr < sec_addr + size and kind == "PROGBITS":
            with open(path, "rb") as f:
                f.seek(off + addr - sec_addr)
                v = int.from_bytes(f.read(4), "little")
            return f"{v >> 16}.{(v >> 8) & 0xff}.{v & 0xff}"
    return None


def glibc_choice(dispatcher, name, ld_library_path):
    """What the real loader does when the dispatcher dlopen()s NAME: loads the dispatcher through
    ctypes with LD_DEBUG=libs, calls cudnnGetVersion() (which makes cuDNN 8 open
    libcudnn_ops_infer.so.8; no GPU needed) and reads the search. Returns (file glibc opened, the
    label of the search list it came from, the process's return code, stderr). The old 8.6 copy
    needs libcublas.so.11, which is not here: its load fails after glibc picked it, cuDNN prints
    "Could not load library ..." and aborts, which is fine: the choice is already in the log."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env["LD_DEBUG"] = "libs"
    if ld_library_path:
        env["LD_LIBRARY_PATH"] = ld_library_path
    p = subprocess.run([sys.executable, "-c",
                        "import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).cudnnGetVersion())", dispatcher],
                       capture_output=True, text=True, env=env)
    lines = p.stderr.splitlines()
    start = [i for i, line in enumerate(lines) if f"find library={name} " in line]
    expect(start, f"the loader never searched for {name}:\n{p.stdout}\n{p.stderr[-3000:]}")
    label = None
    for line in lines[start[0] + 1:]:
        m = re.search(r"search path=.*\t\((.*)\)$", line)
        if m:
            label = m.group(1)
        m = re.search(r"trying file=(.*)$", line)
        if m and os.path.exists(m.group(1)):
            return m.group(1), label, p.returncode, p.stdout + p.stderr
        if "find library=" in line:
            break
    raise h.Failure(f"no file of {name} opened:\n{p.stderr[-3000:]}")


def resolve(name, frm, ld_library_path):
    r = run(["resolve", name, "--from", frm, "--format", "json"],
            env={"LD_LIBRARY_PATH": ld_library_path} if ld_library_path else None,
            drop_env=("LD_LIBRARY_PATH",))
    h.expect_exit(r, 0)
    doc = r.json()
    expect(len(doc["resolutions"]) == 1, doc)
    return doc["resolutions"][0]


def check(*args, ld_library_path=None, venv=None):
    venv = venv or VENV
    env = ["--env", f"VIRTUAL_ENV={venv}", "--env", f"PATH={venv}/bin:{os.environ.get('PATH', '')}"]
    if ld_library_path:
        env += ["--env", f"LD_LIBRARY_PATH={ld_library_path}"]
    r = run(["check", "--format", "json", "--no-nvml"] + env + list(args), drop_env=("LD_LIBRARY_PATH",))
    expect(r.code in (0, 1), f"exit {r.code}: {r.err}")
    doc = r.json()
    h.validate(doc, "report.schema.json")
    return doc


def dispatcher():
    return os.path.join(LIB, "libcudnn.so.8")


# ---- the wheels themselves -----------------------------------------------------------------

@test
def wheel_installs_the_dispatcher_and_six_sublibraries():
    dist = glob.glob(os.path.join(LIB, "..", "..", "..", f"{PACKAGE.replace('-', '_')}-*.dist-info"))
    expect([os.path.basename(d) for d in dist] == [f"nvidia_cudnn_cu11-{VERSION}.dist-info"], dist)
    record = open(os.path.join(dist[0], "RECORD")).read().splitlines()
    libs = {os.path.basename(line.split(",")[0]): int(line.split(",")[2])
            for line in record if re.match(r"nvidia/cudnn/lib/libcudnn[^,]*\.so", line)}
    expect(sorted(libs) == sorted(LIBRARIES), sorted(libs))
    for name, size in libs.items():
        expect(os.path.getsize(os.path.join(LIB, name)) == size, name)
    expect(sorted(n for n in os.listdir(OLD_LIB) if n.startswith("libcudnn")) == sorted(LIBRARIES),
           os.listdir(OLD_LIB))
    # Only the names' major, so the full version must come from the files' contents.
    for lib in (LIB, OLD_LIB):
        versions = {n: embedded_version(os.path.join(lib, n)) for n in LIBRARIES}
        want = three(VERSION if lib == LIB else OLD_VERSION)
        expect({n for n, v in versions.items() if v is not None} ==
               {"libcudnn_adv_infer.so.8", "libcudnn_cnn_infer.so.8", "libcudnn_ops_infer.so.8",
                "libcudnn_ops_train.so.8"}, (lib, versions))
        expect(all(v in (None, want) for v in versions.values()), (lib, versions))


@test
def dispatcher_has_runpath_origin_and_dlopens_its_sublibraries():
    d = dynamic(dispatcher())
    # What NVIDIA ships: DT_RUNPATH "$ORIGIN", no DT_RPATH, and no DT_NEEDED on any sub-library.
    expect(d["RUNPATH"] == "$ORIGIN" and d["RPATH"] is None, d)
    expect(not any(n.startswith("libcudnn") for n in d["NEEDED"]), d["NEEDED"])
    for name in SUBLIBS:
        s = dynamic(os.path.join(LIB, name))
        expect(s["RPATH"] is None and s["RUNPATH"].split(":")[0] == "$ORIGIN", (name, s))


# ---- resolve against glibc -------------------------------------------------------------------

def expected_winner():
    """glibc's order for a dlopen from the dispatcher: its DT_RPATH (only when it has no
    DT_RUNPATH), LD_LIBRARY_PATH, its DT_RUNPATH, ld.so.cache, the default directories."""
    d = dynamic(dispatcher())
    if d["RPATH"] is not None and d["RUNPATH"] is None:
        return LIB, "rpath"
    return OLD_LIB, "LD_LIBRARY_PATH"


@test
def resolve_without_ld_library_path_finds_the_wheels_copy():
    r = resolve("libcudnn_ops_infer.so.8", dispatcher(), None)
    via = "runpath" if dynamic(dispatcher())["RUNPATH"] else "rpath"
    expect(r["found"]["path"] == os.path.join(LIB, "libcudnn_ops_infer.so.8"), r["found"])
    expect(r["found"]["via"] == via, r["found"])
    expect(r["found"]["source"] == f"{via.upper()} of {dispatcher()}", r["found"])
    expect(r["shadowed"] == [], r["shadowed"])
    considered = {c["source"]: c for c in r["considered"]}
    expect(considered["LD_LIBRARY_PATH"]["outcome"] == "not set", r["considered"])
    # The real loader agrees.
    path, label, code, log = glibc_choice(dispatcher(), "libcudnn_ops_infer.so.8", None)
    expect((path, label) == (r["found"]["path"], f"{via.upper()} from file {dispatcher()}"), (path, label))
    # cuDNN 8's CUDNN_VERSION is major * 1000 + minor * 100 + patch.
    major, minor, patch = (int(x) for x in VERSION.split(".")[:3])
    expect(code == 0 and log.splitlines()[0] == str(major * 1000 + minor * 100 + patch),
           (code, log.splitlines()[:1]))


@test
def resolve_with_old_copy_on_ld_library_path_matches_glibc():
    winner, via = expected_winner()
    r = resolve("libcudnn_ops_infer.so.8", dispatcher(), OLD_LIB)
    expect(r["found"]["path"] == os.path.join(winner, "libcudnn_ops_infer.so.8"), (r["found"], winner))
    expect(r["found"]["via"] == via, r["found"])
    loser = LIB if winner == OLD_LIB else OLD_LIB
    expect([s["path"] for s in r["shadowed"]] == [os.path.join(loser, "libcudnn_ops_infer.so.8")],
           r["shadowed"])
    path, label, code, log = glibc_choice(dispatcher(), "libcudnn_ops_infer.so.8", OLD_LIB)
    expect(path == r["found"]["path"], (path, r["found"]))
    want = "LD_LIBRARY_PATH" if via == "LD_LIBRARY_PATH" else f"RPATH from file {dispatcher()}"
    expect(label == want, (label, want))
    if winner == OLD_LIB and "libcublas.so.11" in dynamic(path)["NEEDED"]:
        # 8.6's ops_infer links cuBLAS 11, which is not installed: the mixed load fails.
        expect(code != 0 and "Could not load library libcudnn_ops_infer.so.8" in log, (code, log[-500:]))


@test
def resolve_names_the_version_of_each_copy():
    # Both copies' versions are in the files (the .rodata version object) and the winner is the
    # one the user must be told about: "version unknown" is not an answer the files justify.
    r = resolve("libcudnn_ops_infer.so.8", dispatcher(), OLD_LIB)
    about = {r["found"]["path"]: r["found"]["about"]}
    about.update({s["path"]: s["about"] for s in r["shadowed"]})
    for lib, version in ((OLD_LIB, OLD_VERSION), (LIB, VERSION)):
        path = os.path.join(lib, "libcudnn_ops_infer.so.8")
        expect(three(version) in about.get(path, ""), f"{path}: about is {about.get(path)!r}, "
               f"expected it to name {three(version)} (embedded: {embedded_version(path)})")


# ---- check -----------------------------------------------------------------------------------

def copies(doc):
    return {c["dir"]: c for c in doc["inventory"]["cudnn"]}


@test
def check_inventories_both_copies_with_all_seven_libraries():
    doc = check(ld_library_path=OLD_LIB)
    found = copies(doc)
    expect(LIB in found and OLD_LIB in found, sorted(found))
    new, old = found[LIB], found[OLD_LIB]
    expect(sorted(new["libraries"]) == sorted(LIBRARIES) and new["major"] == 8, new)
    expect(new["version"] == three(VERSION), new)
    expect(new["package"] == f"pip {PACKAGE} {VERSION}", new)
    expect(f"pip:{os.path.realpath(VENV)}" in new["found_via"] or f"pip:{VENV}" in new["found_via"], new)
    expect(sorted(old["libraries"]) == sorted(LIBRARIES) and old["major"] == 8, old)
    expect(old["package"] is None and old["found_via"] == ["LD_LIBRARY_PATH"], old)
    embedded = embedded_version(os.path.join(OLD_LIB, "libcudnn_ops_infer.so.8"))
    expect(old["version"] == three(OLD_VERSION), f"old copy's version is {old['version']!r}, expected "
           f"{three(OLD_VERSION)} (embedded in libcudnn_ops_infer.so.8: {embedded})")


@test
def check_reports_the_split_set_naming_both_versions():
    doc = check(ld_library_path=OLD_LIB)
    split = [f for f in doc["findings"] if f["id"] == "loader.cudnn_set_split"]
    expect(len(split) == 1, [(f["id"], f["subject"]) for f in doc["findings"]])
    f = split[0]
    expect(f["subject"] == LIB and f["severity"] == "error", f)
    for needle in [dispatcher(), OLD_LIB, "LD_LIBRARY_PATH"] + SUBLIBS:
        expect(needle in f["message"], f"{needle!r} not in: {f['message']}")
    expect(three(VERSION) in f["message"].replace(OLD_LIB, "<old>").replace(LIB, "<lib>"), f["message"])
    # Same-directory checks stay quiet: each copy on its own is one consistent release.
    expect(not any(x["id"] in ("cudnn.sublibrary_version_mixed", "cudnn.library_set_incomplete")
                   for x in doc["findings"]), [x["id"] for x in doc["findings"]])
    expect(three(OLD_VERSION) in f["message"].replace(OLD_LIB, "<old>").replace(LIB, "<lib>"),
           f"the message does not name the stale copy's version {three(OLD_VERSION)}: {f['message']}")


@test
def check_reports_the_old_copys_missing_cublas():
    # 8.6's sub-libraries name libcublas.so.11 in DT_NEEDED (8.9.6's open cuBLAS at run time).
    # Where this machine has no CUDA 11 cuBLAS, glibc fails the load (see the LD_DEBUG run above),
    # and check must say why, once for the directory, naming the missing sonames.
    needing = sorted(n for n in SUBLIBS if "libcublas.so.11" in dynamic(os.path.join(OLD_LIB, n))["NEEDED"])
    expect(needing, "the old wheel's sub-libraries no longer need libcublas.so.11")
    _, _, code, log = glibc_choice(dispatcher(), "libcudnn_ops_infer.so.8", OLD_LIB)
    if "libcublas.so.11: cannot open shared object file" not in log:
        print("  NOTE: libcublas.so.11 is loadable here; the missing-cuBLAS assertion does not apply")
        return
    doc = check(ld_library_path=OLD_LIB)
    hits = [f for f in doc["findings"] if f["id"] == "loader.cudnn_dependency_not_found"]
    expect([f["subject"] for f in hits] == [OLD_LIB], [(f["id"], f["subject"]) for f in doc["findings"]])
    for needle in needing + ["libcublas.so.11"]:
        expect(needle in hits[0]["message"], f"{needle!r} not in: {hits[0]['message']}")
    # Without the old copy nothing is missing: 8.9.6 opens cuBLAS itself at run time.
    expect("loader.cudnn_dependency_not_found" not in [f["id"] for f in check()["findings"]],
           "reported without the old copy")


@test
def check_without_ld_library_path_has_no_mix():
    doc = check()
    expect(OLD_LIB not in copies(doc), sorted(copies(doc)))
    bad = [(f["id"], f["subject"]) for f in doc["findings"]
           if f["id"].startswith(("loader.", "cudnn.sublibrary", "cudnn.library_set"))
           and (LIB in f["subject"] or LIB in f["message"] or OLD_LIB in f["message"])]
    expect(not bad, bad)


# ---- --verify --------------------------------------------------------------------------------

def integrity(doc, root):
    return [(f["id"], f["subject"], f["message"]) for f in doc["findings"]
            if f["id"].startswith("integrity.") and f["subject"].startswith(root)]


@test
def verify_passes_on_the_intact_install():
    # The files are byte for byte what pip's RECORD lists, and glibc loads them (see above): no
    # integrity finding is justified.
    doc = check("--verify", "--no-cache")
    found = integrity(doc, VENV)
    expect(not found, "integrity findings on the pristine wheel:\n" + "\n".join(map(str, found)))


@test
def verify_names_a_truncated_sublibrary():
    # A copy of the venv of hard links, but for one sub-library, replaced (not truncated in place,
    # which would damage the cached venv) by its first half: an interrupted copy.
    parent = os.path.dirname(os.path.abspath(VENV))
    work = tempfile.mkdtemp(prefix="cudnn8-damaged-", dir=parent)
    try:
        damaged = os.path.join(work, "venv")
        subprocess.run(["cp", "-al", VENV, damaged], check=True)
        victim = os.path.join(LIB.replace(VENV, damaged, 1), "libcudnn_ops_train.so.8")
        size = os.path.getsize(victim)
        with open(victim, "rb") as f:
            head = f.read(size // 2)
        os.remove(victim)
        with open(victim, "wb") as f:
            f.write(head)
        doc = check("--verify", "--no-cache", venv=damaged)
        found = integrity(doc, damaged)
        mismatch = [x for x in found if x[0] == "integrity.hash_mismatch"]
        expect([x[1] for x in mismatch] == [victim], found)
        expect(f"{size // 2} bytes instead of {size}" in mismatch[0][2], mismatch[0][2])
        expect(f"{PACKAGE} {VERSION}" in mismatch[0][2], mismatch[0][2])
        damaged_files = [x for x in found if x[0] == "integrity.binary_damaged" and x[1] == victim]
        expect(len(damaged_files) == 1 and "truncated" in damaged_files[0][2], found)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    h.main(setup)
