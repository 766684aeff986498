#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real tensorflow/python/platform/build_info.py of TensorFlow wheels from PyPI, read by the
python collector: a Linux CUDA 12 / cuDNN 8 build (2.15.0), a Linux CUDA 12 / cuDNN 9 build
(2.18.0), the last native Windows GPU build (tensorflow-gpu 2.10.0, which writes its versions the
Windows way: cuda_version '64_112', cudnn_version '64_8') and a Windows CPU build
(tensorflow-intel 2.15.0, which `pip install tensorflow` brings on Windows from 2.11).

The wheels are 300-600 MB each, but only one small member is needed: the test reads the zip's
end-of-central-directory record and central directory with an HTTP Range request on the wheel's
tail (zip64 where the wheel needs it), finds build_info.py, range-fetches its local header and
compressed bytes and inflates them (a few MB per wheel, mostly the central directory). The wheel's
URL comes from PyPI's JSON API (the per-release document, else the project's `releases`).

Each file is kept in DOCTOR_TF_BUILD_INFO_CACHE (default: build/realistic/tf-build-info) as
<wheel filename>.py, so reruns are offline; without network and cache the test skips.

For each file the test states what the real file says (so a change on PyPI or in the fetcher
shows), builds a venv in a sysroot tree with the file at its place, runs `cudnn-doctor snapshot`
and holds the tensorflow framework facts to the file, in the doctor's normalised form. The
Windows GPU build's CUDA and cuDNN, decoded, must also be what the knowledge base's Windows row
for TensorFlow 2.10 says."""
import ast
import json
import os
import re
import struct
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import harness as h  # noqa: E402
import scenario_lib  # noqa: E402
from harness import expect, run, test  # noqa: E402

PYPI = "https://pypi.org/pypi"
MEMBER = "tensorflow/python/platform/build_info.py"
TIMEOUT = 60

# What each real file says (read from the files themselves), and what the doctor must make of it.
# `normalised` is the doctor's form: Windows writes '64_112' for CUDA 11.2 and '64_8' for cuDNN 8.
WHEELS = [
    {
        "package": "tensorflow", "version": "2.15.0", "os": "linux",
        "filename": "tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "says": {"cpu_compiler": "/usr/lib/llvm-17/bin/clang",
                 "is_cuda_build": True, "is_rocm_build": False, "is_tensorrt_build": True,
                 "cuda_version": "12.2", "cudnn_version": "8",
                 "cuda_compute_capabilities": ["sm_50", "sm_60", "sm_70", "sm_75", "compute_80"]},
        "normalised": {"cuda_build": True, "cuda_version": "12.2", "cudnn_version": "8",
                       "cuda_archs": ["sm_50", "sm_60", "sm_70", "sm_75", "compute_80"]},
    },
    {
        "package": "tensorflow", "version": "2.18.0", "os": "linux",
        "filename": "tensorflow-2.18.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "says": {"cpu_compiler": "/usr/lib/llvm-18/bin/clang",
                 "is_cuda_build": True, "is_rocm_build": False, "is_tensorrt_build": False,
                 "cuda_version": "12.5.1", "cudnn_version": "9",
                 "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]},
        "normalised": {"cuda_build": True, "cuda_version": "12.5.1", "cudnn_version": "9",
                       "cuda_archs": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]},
    },
    {
        "package": "tensorflow-gpu", "version": "2.10.0", "os": "windows",
        "filename": "tensorflow_gpu-2.10.0-cp310-cp310-win_amd64.whl",
        "says": {"cpu_compiler": "C:/Program Files (x86)/Microsoft Visual Studio/2019/Community/VC/"
                                 "Tools/MSVC/14.29.30133/bin/HostX64/x64/cl.exe",
                 "is_cuda_build": True, "is_rocm_build": False, "is_tensorrt_build": False,
                 "msvcp_dll_names": "msvcp140.dll,msvcp140_1.dll", "nvcuda_dll_name": "nvcuda.dll",
                 "cudart_dll_name": "cudart64_112.dll", "cuda_version": "64_112",
                 "cudnn_dll_name": "cudnn64_8.dll", "cudnn_version": "64_8",
                 "cuda_compute_capabilities": ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75",
                                               "compute_80"]},
        "normalised": {"cuda_build": True, "cuda_version": "11.2", "cudnn_version": "8",
                       "cuda_archs": ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"]},
    },
    {
        "package": "tensorflow-intel", "version": "2.15.0", "os": "windows",
        "filename": "tensorflow_intel-2.15.0-cp311-cp311-win_amd64.whl",
        "says": {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False,
                 "msvcp_dll_names": "msvcp140.dll,msvcp140_1.dll"},
        "normalised": {"cuda_build": False, "cuda_version": None, "cudnn_version": None,
                       "cuda_archs": None},
    },
]

CACHE = None
TEXT = {}  # filename -> the build_info.py text


# ---- fetching one member of a remote zip -------------------------------------------------------

class Remote:
    """A wheel on PyPI, read by byte ranges; counts what it downloads."""

    def __init__(self, url):
        self.url, self.size, self.downloaded = url, None, 0

    def __str__(self):
        return self.url

    def get(self, start, end=None):
        """Bytes [start, end) of the file; start < 0 reads the last -start bytes."""
        spec = f"bytes={start}" if start < 0 else f"bytes={start}-{end - 1}"
        req = urllib.request.Request(self.url, headers={"Range": spec, "User-Agent": "cudnn-doctor-test"})
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            if r.status != 206:
                raise OSError(f"{self.url} ignored the Range request (HTTP {r.status}); "
                              "not downloading the whole wheel")
            m = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+)", r.headers.get("Content-Range", ""))
            if not m:
                raise OSError(f"{self.url}: no usable Content-Range ({r.headers.get('Content-Range')!r})")
            self.size = int(m.group(3))
            data = r.read()
        self.downloaded += len(data)
        want = int(m.group(2)) - int(m.group(1)) + 1
        if len(data) != want:
            raise OSError(f"{self.url}: short read ({len(data)} of {want} bytes)")
        return data


class LocalRemote(Remote):
    """The same reads over bytes in memory, to test the zip reading without network."""

    def __init__(self, name, blob):
        super().__init__(name)
        self.blob, self.size = blob, len(blob)

    def get(self, start, end=None):
        data = self.blob[start:] if start < 0 else self.blob[start:end]
        self.downloaded += len(data)
        return data


def central_directory(remote):
    """(central directory bytes, entry count): the end-of-central-directory record (and its zip64
    form when a field overflows) read from the tail, the directory itself with one more request
    when the tail does not hold it."""
    tail = remote.get(-65536)  # the EOCD (22 bytes) plus a comment of at most 65535 bytes
    tail_start = remote.size - len(tail)
    at = tail.rfind(b"PK\x05\x06")
    expect(at >= 0 and len(tail) - at >= 22, f"{remote}: no end-of-central-directory record")
    _, _, _, _, count, cd_size, cd_offset, _ = struct.unpack("<IHHHHIIH", tail[at:at + 22])
    if count == 0xFFFF or cd_size == 0xFFFFFFFF or cd_offset == 0xFFFFFFFF:
        loc = at - 20
        expect(loc >= 0 and tail[loc:loc + 4] == b"PK\x06\x07", f"{remote}: no zip64 locator")
        _, _, eocd64, _ = struct.unpack("<IIQI", tail[loc:loc + 20])
        rec = tail[eocd64 - tail_start:eocd64 - tail_start + 56] if eocd64 >= tail_start \
            else remote.get(eocd64, eocd64 + 56)
        expect(rec[:4] == b"PK\x06\x06", f"{remote}: no zip64 end-of-central-directory record")
        count, _, cd_size, cd_offset = struct.unpack("<QQQQ", rec[24:56])
    if cd_offset >= tail_start:
        cd = tail[cd_offset - tail_start:cd_offset - tail_start + cd_size]
    else:
        cd = remote.get(cd_offset, cd_offset + cd_size)
    expect(len(cd) == cd_size, f"{remote}: central directory cut short")
    return cd, count


def find_member(cd, count, name):
    """(method, crc32, compressed size, uncompressed size, local header offset) of `name`."""
    pos = 0
    for _ in range(count):
        expect(cd[pos:pos + 4] == b"PK\x01\x02", f"bad central directory entry at {pos}")
        (method, crc, csize, usize, nlen, xlen, clen, offset) = struct.unpack(
            "<10xH4xIIIHHH8xI", cd[pos:pos + 46])
        entry = cd[pos + 46:pos + 46 + nlen].decode("utf-8", "replace")
        extra = cd[pos + 46 + nlen:pos + 46 + nlen + xlen]
        pos += 46 + nlen + xlen + clen
        if entry != name:
            continue
        # Zip64: the extended-information extra field (0x0001) holds, in order, the fields that
        # are 0xFFFFFFFF in the fixed part.
        x = 0
        while x + 4 <= len(extra):
            tag, size = struct.unpack("<HH", extra[x:x + 4])
            if tag == 1:
                values = iter(struct.unpack(f"<{size // 8}Q", extra[x + 4:x + 4 + size // 8 * 8]))
                usize = next(values) if usize == 0xFFFFFFFF else usize
                csize = next(values) if csize == 0xFFFFFFFF else csize
                offset = next(values) if offset == 0xFFFFFFFF else offset
            x += 4 + size
        return method, crc, csize, usize, offset
    return None


def fetch_member(remote, name):
    """The bytes of one member of the remote zip, and the bytes downloaded to get them."""
    url = str(remote)
    cd, count = central_directory(remote)
    found = find_member(cd, count, name)
    expect(found, f"{url}: no {name} in the wheel")
    method, crc, csize, usize, offset = found
    # The local header's name and extra field may differ in length from the central copy's;
    # read it with some slack and fetch more only if the guess was short.
    head = remote.get(offset, min(remote.size, offset + 30 + len(name) + 256 + csize))
    expect(head[:4] == b"PK\x03\x04", f"{url}: no local header at {offset}")
    nlen, xlen = struct.unpack("<HH", head[26:30])
    start = 30 + nlen + xlen
    data = head[start:start + csize]
    if len(data) < csize:
        data += remote.get(offset + len(head), offset + start + csize)
    if method == 8:
        data = zlib.decompressobj(-15).decompress(data)
    else:
        expect(method == 0, f"{url}: {name} uses compression method {method}")
    expect(len(data) == usize and zlib.crc32(data) == crc, f"{url}: {name} fails its size/CRC check")
    return data, remote.downloaded


def json_get(url):
    req = urllib.request.Request(url, headers={"Accept": "application/json",
                                               "User-Agent": "cudnn-doctor-test"})
    with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
        return json.load(r), r.geturl()


def wheel_url(package, version, filename):
    """The URL of one file of a release, from PyPI's JSON API: the release's own document, else
    the project document's `releases` (some mirrors serve only that). Relative URLs (mirrors)
    are resolved against the document's address."""
    try:
        doc, at = json_get(f"{PYPI}/{package}/{version}/json")
        files = doc.get("urls", [])
    except urllib.error.HTTPError as e:
        if e.code != 404:
            raise
        doc, at = json_get(f"{PYPI}/{package}/json")
        files = doc.get("releases", {}).get(version, [])
    for f in files:
        if f.get("filename") == filename:
            return urllib.parse.urljoin(at, f["url"])
    raise h.Failure(f"PyPI lists no {filename} for {package} {version}")


def setup():
    """Fetches (once) every wheel's build_info.py into the cache; returns a skip reason or None."""
    global CACHE
    CACHE = os.environ.get("DOCTOR_TF_BUILD_INFO_CACHE") or os.path.join(
        h.SOURCE, "build", "realistic", "tf-build-info")
    os.makedirs(CACHE, exist_ok=True)
    for w in WHEELS:
        path = os.path.join(CACHE, w["filename"] + ".py")
        if not os.path.exists(path):
            try:
                url = wheel_url(w["package"], w["version"], w["filename"])
                data, downloaded = fetch_member(Remote(url), MEMBER)
            except (urllib.error.URLError, OSError) as e:  # HTTPError and timeouts included
                return (f"cannot fetch {MEMBER} of {w['filename']} from PyPI ({e}) and no copy "
                        f"is cached in {CACHE}")
            with open(path + ".part", "wb") as f:
                f.write(data)
            os.replace(path + ".part", path)
            print(f"  fetched {w['filename']}: {downloaded} bytes downloaded for "
                  f"{len(data)} bytes of build_info.py")
        TEXT[w["filename"]] = open(path, encoding="utf-8").read()
    return None


# ---- what the file says, read independently of the doctor --------------------------------------

def build_info(text):
    """The `build_info` mapping of a TF >= 2.3 build_info.py (a dict literal or
    collections.OrderedDict([...])), read with ast, never executed."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["build_info"]:
            value = node.value
            if isinstance(value, ast.Call):
                expect(len(value.args) == 1, ast.dump(value))
                value = value.args[0]
            return dict(ast.literal_eval(value))
    raise h.Failure(f"no build_info assignment in:\n{text[:2000]}")


def decode_windows(value, kind):
    """TF's Windows builds write CUDA 11.2 as '64_112' and cuDNN 8 as '64_8': the DLL suffix."""
    m = re.fullmatch(r"64_(\d+)", value)
    if not m:
        return value
    digits = m.group(1)
    if kind == "cuda" and len(digits) >= 3:
        return f"{digits[:-1]}.{digits[-1]}"
    return digits


def snapshot_of(w):
    """Builds a venv holding the wheel's real build_info.py, snapshots it with the real CLI and
    returns the tensorflow framework entry."""
    with tempfile.TemporaryDirectory(prefix="tf-build-info-") as root:
        t = scenario_lib.Tree(root)
        prefix = "/home/user/venv"
        site = t.venv(prefix, micro="3.11.7")
        t.text(f"{site}/tensorflow/__init__.py", "# stand-in for tensorflow/__init__.py\n")
        t.text(f"{site}/{MEMBER}", TEXT[w["filename"]])
        t.dist_info(site, w["package"], w["version"], ["tensorflow/__init__.py", MEMBER])
        r = run(["snapshot", "--sysroot", root, "--env", f"VIRTUAL_ENV={prefix}",
                 "--env", f"PATH={prefix}/bin:/usr/bin:/bin", "--no-nvml"])
        h.expect_exit(r, 0)
        doc = r.json()
    envs = [e for e in doc["python_envs"] if e["prefix"] == prefix]
    expect(len(envs) == 1, [e.get("prefix") for e in doc["python_envs"]])
    tf = [f for f in envs[0]["frameworks"] if f["name"] == "tensorflow"]
    expect(len(tf) == 1, envs[0]["frameworks"])
    return tf[0], f"{prefix}/lib/python3.11/site-packages/{MEMBER}"


def zip64_archive(members, comment=b"made by hand"):
    """A zip archive built byte by byte in its zip64 form, as a writer does past 4 GiB or 65535
    entries (which no small file reaches): every central entry has sizes and offset 0xFFFFFFFF
    and the real values in the zip64 extra field (after an unrelated extra field), the local
    headers carry a long extra field of their own, and the end record defers to the zip64 end
    record through its locator. `members`: (name, data, deflate?)."""
    out, central = bytearray(), bytearray()
    for name, data, deflate in members:
        packed = zlib.compress(data, 9)[2:-4] if deflate else data  # raw deflate
        crc, method, name_b = zlib.crc32(data), 8 if deflate else 0, name.encode()
        local_extra = struct.pack("<HH", 0xCAFE, 400) + b"\0" * 400
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0, 0x21, crc, len(packed),
                           len(data), len(name_b), len(local_extra)) + name_b + local_extra + packed
        extra = struct.pack("<HHBI", 0x5455, 5, 1, 0) + struct.pack("<HHQQQ", 1, 24, len(data),
                                                                    len(packed), offset)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0x21, crc,
                               0xFFFFFFFF, 0xFFFFFFFF, len(name_b), len(extra), 0, 0, 0, 0,
                               0xFFFFFFFF) + name_b + extra
    cd_offset, count = len(out), len(members)
    out += central
    eocd64 = len(out)
    out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, len(central), cd_offset)
    out += struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF,
                       len(comment)) + comment
    return bytes(out)


# ---- tests --------------------------------------------------------------------------------------

@test
def range_reader_extracts_one_member_of_zip_and_zip64_archives():
    # The reader the real wheels go through, over archives made here: a zip64 one built by hand
    # (whose central directory lies outside the 64 KiB tail, so it takes a request of its own)
    # and an ordinary one written by Python's zipfile.
    import io
    import zipfile
    text = TEXT[WHEELS[0]["filename"]].encode()
    filler = os.urandom(100_000)
    blob = zip64_archive([("tensorflow/__init__.py", b"# init\n", False), ("filler.bin", filler, False),
                          (MEMBER, text, True), ("tensorflow/zz.py", b"x = 1\n" * 1000, True)])
    with zipfile.ZipFile(io.BytesIO(blob)) as z:  # the hand-made archive is one zipfile accepts
        expect(z.read(MEMBER) == text and z.read("filler.bin") == filler, z.namelist())
    remote = LocalRemote("zip64-by-hand", blob)
    data, downloaded = fetch_member(remote, MEMBER)
    expect(data == text, data[:200])
    expect(downloaded < len(blob), (downloaded, len(blob)))
    expect(fetch_member(LocalRemote("zip64-by-hand", blob), "filler.bin")[0] == filler, "filler.bin")

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("tensorflow/__init__.py", "# init\n")
        z.writestr(MEMBER, text)
        z.comment = b"a comment"
    expect(fetch_member(LocalRemote("zipfile", buf.getvalue()), MEMBER)[0] == text, "zipfile archive")
    try:
        fetch_member(LocalRemote("zipfile", buf.getvalue()), "tensorflow/missing.py")
        raise AssertionError("a missing member was found")
    except h.Failure as e:
        expect("no tensorflow/missing.py" in str(e), str(e))


@test
def files_say_what_the_wheels_were_built_with():
    for w in WHEELS:
        info = build_info(TEXT[w["filename"]])
        print(f"  {w['filename']}: {json.dumps(info)}")
        expect(info == w["says"], f"{w['filename']}: build_info is {info}, expected {w['says']}")
        if w["os"] == "windows" and info["is_cuda_build"]:
            # The DLL names agree with the versions (cudart64_112.dll, cudnn64_8.dll).
            expect(info["cudart_dll_name"] == f"cudart{info['cuda_version']}.dll", info)
            expect(info["cudnn_dll_name"] == f"cudnn{info['cudnn_version']}.dll", info)


@test
def snapshot_records_the_files_build_facts():
    for w in WHEELS:
        fw, member = snapshot_of(w)
        info = build_info(TEXT[w["filename"]])
        want = w["normalised"]
        expect(fw["version"]["value"] == w["version"], (w["filename"], fw["version"]))
        expect(fw["cuda_build"]["value"] == info["is_cuda_build"] == want["cuda_build"],
               (w["filename"], fw["cuda_build"]))
        expect(fw["cuda_build"]["source"] == f"file:{member}", fw["cuda_build"])
        for key, kind in (("cuda_version", "cuda"), ("cudnn_version", "cudnn")):
            fact = fw[key]
            if not info["is_cuda_build"]:
                expect(want[key] is None and fact.get("value") is None, (w["filename"], key, fact))
                expect("not a CUDA build" in fact.get("unknown", ""), (w["filename"], key, fact))
                continue
            decoded = decode_windows(info[key], kind)
            expect(decoded == want[key], (w["filename"], key, decoded, want[key]))
            expect(fact.get("value") == decoded, f"{w['filename']}: {key} is {fact}, the file says "
                   f"{info[key]!r} ({decoded})")
            written = f" (written '{info[key]}')" if info[key] != decoded else ""
            expect(fact["source"] == f"file:{member}{written}", (w["filename"], key, fact))
        archs = fw["cuda_archs"]
        if info["is_cuda_build"]:
            expect(archs.get("value") == info["cuda_compute_capabilities"] == want["cuda_archs"],
                   (w["filename"], archs))
        else:
            expect(archs.get("value") is None and "not a CUDA build" in archs.get("unknown", ""),
                   (w["filename"], archs))


def covers(versions, version):
    """Whether a KB `versions` field ("2.5-2.10", "2.4") covers a release ("2.10.0")."""
    key = tuple(int(x) for x in version.split(".")[:2])
    lo, _, hi = versions.partition("-")
    return tuple(int(x) for x in lo.split(".")) <= key <= tuple(int(x) for x in (hi or lo).split("."))


@test
def knowledge_base_agrees_with_the_windows_gpu_wheel():
    # The binary's knowledge base is the one in data/kb (embedded, not overridden).
    r = run(["kb", "--format", "json"])
    h.expect_exit(r, 0)
    files = {f["name"]: f for f in r.json()["files"]}
    rows = json.load(open(os.path.join(h.SOURCE, "data", "kb", "frameworks.json")))["builds"]
    expect(files.get("frameworks.json", {}).get("origin") == "embedded", files)
    expect(files["frameworks.json"]["rows"] == len(rows), (files["frameworks.json"], len(rows)))

    w = next(w for w in WHEELS if w["package"] == "tensorflow-gpu")
    info = build_info(TEXT[w["filename"]])
    match = [b for b in rows if b["framework"] == "tensorflow" and b["os"] == "windows"
             and covers(b["versions"], w["version"])]
    expect(len(match) == 1, match)
    row = match[0]
    print(f"  KB row {row['versions']} windows: CUDA {row['cuda']}, cuDNN {row['cudnn']}; "
          f"the wheel: {info['cuda_version']} / {info['cudnn_version']}")
    expect(row.get("gpu_supported", True), row)
    expect(decode_windows(info["cuda_version"], "cuda") == row["cuda"], (row, info))
    # The file names the cuDNN major only (the DLL's suffix); the row's must start with it.
    expect(row["cudnn"].split(".")[0] == decode_windows(info["cudnn_version"], "cudnn"), (row, info))

    # And TF >= 2.11 on Windows is a CPU build, as the KB's gpu_supported: false row says.
    cpu = next(w for w in WHEELS if w["package"] == "tensorflow-intel")
    match = [b for b in rows if b["framework"] == "tensorflow" and b["os"] == "windows"
             and covers(b["versions"], cpu["version"])]
    expect(len(match) == 1 and match[0].get("gpu_supported") is False, match)
    expect(build_info(TEXT[cpu["filename"]])["is_cuda_build"] is False, cpu["filename"])


if __name__ == "__main__":
    h.main(setup)
