#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Builds a real Windows registry hive file for the tests: an empty hive written here, then the
keys and values of a .reg file merged into it by Debian's hivexregedit (libwin-hivex-perl), the
same libhivex code that reads hives. hivexregedit can only merge into an existing hive and libhivex
ships none, so the empty one is written from the format (a base block, one hbin holding the root
key, its security cell and a free cell), as hivex's own test image "minimal" is.

  make_hive.py OUT.hive [FILE.reg]     # the .reg keys are relative to the hive root: [\\Select]
"""
import re
import shutil
import struct
import subprocess
import sys

PAGE = 0x1000


def empty_hive() -> bytes:
    root_off, sk_off = 0x20, 0x78  # offsets relative to the first hbin
    name = b"ROOT"
    nk = struct.pack(
        "<2sHQIIIIIIIIIIIIIIIHH",
        b"nk", 0x2C, 0, 0, 0xFFFFFFFF,  # flags: hive entry | no delete | compressed name
        0, 0, 0xFFFFFFFF, 0xFFFFFFFF,   # subkeys, volatile subkeys and their lists
        0, 0xFFFFFFFF,                   # values and their list
        sk_off, 0xFFFFFFFF,              # security cell, class name
        0, 0, 0, 0, 0,                   # maxima, work var
        len(name), 0) + name
    nk_cell = struct.pack("<i", -88) + nk.ljust(84, b"\0")
    # A self-relative security descriptor with a NULL DACL (SE_SELF_RELATIVE | SE_DACL_PRESENT).
    sd = struct.pack("<BBHIIII", 1, 0, 0x8004, 0, 0, 0, 0)
    sk = struct.pack("<2sHIIII", b"sk", 0, sk_off, sk_off, 1, len(sd)) + sd
    sk_cell = struct.pack("<i", -48) + sk.ljust(44, b"\0")
    used = 0x20 + len(nk_cell) + len(sk_cell)
    free_cell = struct.pack("<i", PAGE - used).ljust(PAGE - used, b"\0")
    hbin = struct.pack("<4sIIQQI", b"hbin", 0, PAGE, 0, 0, 0) + nk_cell + sk_cell + free_cell
    assert len(hbin) == PAGE
    base = bytearray(PAGE)
    struct.pack_into("<4sIIQIIIIIII", base, 0, b"regf", 1, 1, 0, 1, 3, 0, 1, root_off, PAGE, 1)
    checksum = 0
    for (word,) in struct.iter_unpack("<I", bytes(base[:508])):
        checksum ^= word
    struct.pack_into("<I", base, 508, checksum)
    return bytes(base) + hbin


def as_utf16_if_needed(line: str) -> str:
    """A `"name"="text"` line whose text is not ASCII as REG_SZ bytes (hex(1), UTF-16LE):
    hivexregedit reads the .reg file byte by byte, so UTF-8 text would arrive as mojibake."""
    m = re.fullmatch(r'("(?:[^"\\]|\\.)*")="((?:[^"\\]|\\.)*)"', line.rstrip())
    if not m or m.group(2).isascii():
        return line
    text = re.sub(r"\\(.)", r"\1", m.group(2))
    data = (text + "\0").encode("utf-16-le")
    return m.group(1) + "=hex(1):" + ",".join(f"{b:02x}" for b in data)


def with_parents(reg: str) -> str:
    """`reg` with an empty section for every missing parent key: hivexregedit creates a key only
    under a parent that exists."""
    out, seen = [], set()
    for line in reg.splitlines():
        if line.startswith("[") and line.rstrip().endswith("]") and not line.startswith("[-"):
            parts = line.strip()[2:-1].split("\\")
            for i in range(1, len(parts)):
                parent = "\\".join(parts[:i])
                if parent.lower() not in seen:
                    seen.add(parent.lower())
                    out += ["[\\" + parent + "]", ""]
            seen.add("\\".join(parts).lower())
        out.append(as_utf16_if_needed(line))
    return "\n".join(out) + "\n"


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    with open(out, "wb") as f:
        f.write(empty_hive())
    if len(sys.argv) == 3:
        tool = shutil.which("hivexregedit")
        if tool is None:
            print("make_hive.py: hivexregedit is not installed (libwin-hivex-perl)", file=sys.stderr)
            return 3
        with open(sys.argv[2], encoding="utf-8") as f:
            text = with_parents(f.read())
        subprocess.run([tool, "--merge", out], input=text.encode(),
                       check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
