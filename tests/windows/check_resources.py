#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the resources of cudnn-doctor.exe (src/cli/windows/): the version resource carries the
project version, and the application manifest asks for what the doctor relies on.

It walks the PE resource directory itself (type -> name -> language -> data), so a manifest or
version that is only somewhere in the file, not a resource Windows reads, does not pass.

    check_resources.py EXE VERSION        (VERSION: the CMake project version, "0.1.0")
"""

from __future__ import annotations

import re
import struct
import sys
import xml.etree.ElementTree as ET

RT_VERSION = 16
RT_MANIFEST = 24
WIN10_GUID = "{8e0f7a12-bfb3-4fe8-b9a5-48fd50a15a9a}"


def fail(message: str) -> None:
    print(f"FAIL: {message}")
    sys.exit(1)


def resources(pe: bytes) -> dict[int, dict[int, bytes]]:
    """Every resource of the image as {type id: {name id: data}} (first language of each)."""
    if pe[:2] != b"MZ":
        fail("not an MZ executable")
    pe_off = struct.unpack_from("<I", pe, 0x3C)[0]
    if pe[pe_off:pe_off + 4] != b"PE\0\0":
        fail("no PE signature")
    coff = pe_off + 4
    sections, opt_size = struct.unpack_from("<H", pe, coff + 2)[0], struct.unpack_from("<H", pe, coff + 16)[0]
    opt = coff + 20
    if struct.unpack_from("<H", pe, opt)[0] != 0x20B:
        fail("not a PE32+ (64-bit) image")
    rsrc_rva, rsrc_size = struct.unpack_from("<II", pe, opt + 112 + 2 * 8)
    if rsrc_rva == 0 or rsrc_size == 0:
        fail("the image has no resource directory")
    table = opt + opt_size
    spans = []
    for i in range(sections):
        _vsize, va, raw_size, raw_ptr = struct.unpack_from("<IIII", pe, table + 40 * i + 8)
        spans.append((va, raw_size, raw_ptr))

    def offset(rva: int) -> int:
        for va, raw_size, raw_ptr in spans:
            if va <= rva < va + raw_size:
                return raw_ptr + rva - va
        fail(f"RVA {rva:#x} lies in no section")
        raise AssertionError

    base = offset(rsrc_rva)

    def entries(directory: int) -> list[tuple[int, int]]:
        named, ids = struct.unpack_from("<HH", pe, base + directory + 12)
        out = []
        for k in range(named + ids):
            ident, target = struct.unpack_from("<II", pe, base + directory + 16 + 8 * k)
            out.append((ident, target))
        return out

    out: dict[int, dict[int, bytes]] = {}
    for type_id, type_dir in entries(0):
        if not type_dir & 0x80000000:
            continue
        for name_id, name_dir in entries(type_dir & 0x7FFFFFFF):
            if not name_dir & 0x80000000:
                continue
            langs = entries(name_dir & 0x7FFFFFFF)
            if not langs or langs[0][1] & 0x80000000:
                continue
            data_rva, size = struct.unpack_from("<II", pe, base + langs[0][1])
            start = offset(data_rva)
            out.setdefault(type_id, {})[name_id] = pe[start:start + size]
    return out


def check_version(blob: bytes, version: str) -> None:
    major, minor, patch = (int(p) for p in version.split("."))
    at = blob.find(struct.pack("<I", 0xFEEF04BD))
    if at < 0:
        fail("the version resource has no VS_FIXEDFILEINFO")
    file_ms, file_ls, prod_ms, prod_ls = struct.unpack_from("<IIII", blob, at + 8)
    want_ms, want_ls = (major << 16) | minor, patch << 16
    if (file_ms, file_ls, prod_ms, prod_ls) != (want_ms, want_ls, want_ms, want_ls):
        fail(f"fixed file version {file_ms:#x}.{file_ls:#x}, product {prod_ms:#x}.{prod_ls:#x}; "
             f"want {version}.0")
    text = blob.decode("utf-16-le", errors="replace")
    for key in ("FileVersion", "ProductVersion"):
        m = re.search(key + "\0+([^\0]*)\0", text)
        if not m or m.group(1) != version:
            fail(f"{key} is {m.group(1) if m else 'absent'!r}, want {version!r}")
    for key, want in (("OriginalFilename", "cudnn-doctor.exe"), ("ProductName", "cudnn-doctor")):
        m = re.search(key + "\0+([^\0]*)\0", text)
        if not m or m.group(1) != want:
            fail(f"{key} is {m.group(1) if m else 'absent'!r}, want {want!r}")


def check_manifest(blob: bytes, version: str) -> None:
    root = ET.fromstring(blob)
    ns = {"v1": "urn:schemas-microsoft-com:asm.v1", "v3": "urn:schemas-microsoft-com:asm.v3",
          "c": "urn:schemas-microsoft-com:compatibility.v1",
          "ws19": "http://schemas.microsoft.com/SMI/2019/WindowsSettings",
          "ws16": "http://schemas.microsoft.com/SMI/2016/WindowsSettings"}
    identity = root.find("v1:assemblyIdentity", ns)
    if identity is None or identity.get("version") != version + ".0":
        fail(f"assemblyIdentity version {identity.get('version') if identity is not None else None}")
    level = root.find("v3:trustInfo/v3:security/v3:requestedPrivileges/v3:requestedExecutionLevel", ns)
    if level is None or level.get("level") != "asInvoker":
        fail("the manifest does not ask to run asInvoker")
    oses = [e.get("Id") for e in root.findall("c:compatibility/c:application/c:supportedOS", ns)]
    if WIN10_GUID not in oses:
        fail(f"supportedOS lacks Windows 10/11 {WIN10_GUID}: {oses}")
    settings = "v3:application/v3:windowsSettings/"
    code_page = root.find(settings + "ws19:activeCodePage", ns)
    if code_page is None or code_page.text != "UTF-8":
        fail("the manifest does not set activeCodePage UTF-8")
    long_paths = root.find(settings + "ws16:longPathAware", ns)
    if long_paths is None or long_paths.text != "true":
        fail("the manifest is not longPathAware")


def main() -> int:
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} EXE VERSION", file=sys.stderr)
        return 2
    exe, version = sys.argv[1], sys.argv[2]
    with open(exe, "rb") as f:
        found = resources(f.read())
    if 1 not in found.get(RT_VERSION, {}):
        fail(f"no version resource (RT_VERSION, id 1); resource types: {sorted(found)}")
    if 1 not in found.get(RT_MANIFEST, {}):
        fail(f"no application manifest (RT_MANIFEST, id 1); resource types: {sorted(found)}")
    check_version(found[RT_VERSION][1], version)
    check_manifest(found[RT_MANIFEST][1], version)
    print(f"ok: {exe}: version resource {version}, manifest asInvoker, Windows 10/11, "
          "activeCodePage UTF-8, longPathAware")
    return 0


if __name__ == "__main__":
    sys.exit(main())
