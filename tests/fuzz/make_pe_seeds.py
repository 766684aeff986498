#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz_pe (tests/fuzz/corpus/pe/): small hand-made PE images.

Each seed is laid out byte by byte here after the PE/COFF specification (DOS header, COFF header,
PE32 or PE32+ optional header, section table, an import directory, a delay-load directory, a
resource tree with a VS_VERSIONINFO, a certificate table, a COFF string table), so the corpus holds
synthetic data, never a compiler's output. Run it from anywhere; it rewrites the corpus directory:

    python3 tests/fuzz/make_pe_seeds.py
"""

import os
import struct
import sys

SECTION_RVA = 0x1000
SECTION_OFFSET = 0x400


def align(n, a):
    return (n + a - 1) // a * a


def pad4(b):
    return b + b"\0" * (align(len(b), 4) - len(b))


def utf16z(s):
    return s.encode("utf-16-le") + b"\0\0"


def node(key, value=b"", value_length=0, vtype=1, children=()):
    """One VS_VERSIONINFO node: wLength, wValueLength, wType, key, padding, value, children."""
    b = pad4(b"\0" * 6 + utf16z(key)) + value
    for c in children:
        b = pad4(b) + c
    return struct.pack("<HHH", len(b), value_length, vtype) + b[6:]


def text(key, value):
    return node(key, utf16z(value), len(value) + 1, 1)


def version_info(file_version=(8, 9, 4, 19), strings=None, signature=0xFEEF04BD):
    fv = file_version
    fixed = struct.pack("<13I", signature, 0x10000, (fv[0] << 16) | fv[1], (fv[2] << 16) | fv[3],
                        (fv[0] << 16) | fv[1], (fv[2] << 16) | fv[3], 0x3F, 0, 0x40004, 2, 0, 0, 0)
    strings = strings or {
        "CompanyName": "NVIDIA Corporation",
        "FileDescription": "NVIDIA cuDNN Library",
        "FileVersion": ".".join(map(str, fv)),
        "InternalName": "cudnn",
        "OriginalFilename": "cudnn64_8.dll",
        "ProductName": "NVIDIA cuDNN Library",
        "ProductVersion": ".".join(map(str, fv)),
    }
    table = node("040904E4", children=[text(k, v) for k, v in strings.items()])
    var = node("VarFileInfo", children=[node("Translation", struct.pack("<HH", 0x409, 1252), 4, 0)])
    return node("VS_VERSION_INFO", fixed, 52, 0, [node("StringFileInfo", children=[table]), var])


class Rdata:
    """The contents of the one data section, at SECTION_RVA."""

    def __init__(self):
        self.data = bytearray()

    def add(self, b):
        self.data += b"\0" * (align(len(self.data), 4) - len(self.data))
        rva = SECTION_RVA + len(self.data)
        self.data += b
        return rva

    def patch32(self, rva, value):
        struct.pack_into("<I", self.data, rva - SECTION_RVA, value)


def imports(r, dlls):
    names = [r.add(d.encode() + b"\0") for d in dlls]
    thunk = r.add(b"\0" * 16)
    table = b"".join(struct.pack("<5I", thunk, 0, 0, n, thunk) for n in names) + b"\0" * 20
    return r.add(table), len(table)


def delay_imports(r, dlls, rva_based=True, image_base=0):
    bias = 0 if rva_based else image_base
    names = [r.add(d.encode() + b"\0") for d in dlls]
    thunk = r.add(b"\0" * 16)
    table = b"".join(struct.pack("<8I", 1 if rva_based else 0, n + bias, 0, thunk + bias,
                                 thunk + bias, 0, 0, 0) for n in names) + b"\0" * 32
    return r.add(table), len(table)


def resources(r, version, loop=False, deep=False):
    """RT_ICON (empty) and RT_VERSION -> id 1 -> language 0x409 -> `version`."""
    tree = bytearray(0x80)
    struct.pack_into("<HH", tree, 12, 0, 2)
    struct.pack_into("<4I", tree, 16, 3, 0x80000060, 16, 0x80000020)
    struct.pack_into("<HH", tree, 0x20 + 12, 0, 1)
    struct.pack_into("<2I", tree, 0x20 + 16, 1, 0x80000000 if loop else 0x80000038)
    struct.pack_into("<HH", tree, 0x38 + 12, 0, 1)
    struct.pack_into("<2I", tree, 0x38 + 16, 0x409, 0x80000060 if deep else 0x50)
    rva = r.add(bytes(tree))
    data = r.add(version)
    r.patch32(rva + 0x50, data)
    r.patch32(rva + 0x54, len(version))
    return rva, len(tree)


def image(r, dirs, pe32_plus=True, machine=0x8664, characteristics=0x2022, image_base=0x180000000,
          section_name=b".rdata", symbols=0, trailer=b"", certificate=0, pad=True):
    f = bytearray(SECTION_OFFSET)
    f[0:2] = b"MZ"
    struct.pack_into("<I", f, 0x3C, 0x80)
    f[0x80:0x84] = b"PE\0\0"
    coff, opt = 0x84, 0x98
    opt_size = 240 if pe32_plus else 224
    struct.pack_into("<HHIIIHH", f, coff, machine, 2, 0x64C7A1B6, symbols, 0, opt_size,
                     characteristics)
    struct.pack_into("<H", f, opt, 0x20B if pe32_plus else 0x10B)
    if pe32_plus:
        struct.pack_into("<Q", f, opt + 24, image_base)
    else:
        struct.pack_into("<I", f, opt + 28, image_base)
    struct.pack_into("<II", f, opt + 32, 0x1000, 0x200)
    struct.pack_into("<II", f, opt + 56, 0x20000, SECTION_OFFSET)
    d = opt + (112 if pe32_plus else 96)
    struct.pack_into("<I", f, d - 4, 16)
    for index, (rva, size) in dirs.items():
        struct.pack_into("<II", f, d + index * 8, rva, size)
    raw = align(len(r.data), 0x200) if pad else len(r.data)
    t = opt + opt_size
    struct.pack_into("<8sIIII", f, t, section_name, len(r.data), SECTION_RVA, raw, SECTION_OFFSET)
    bss = SECTION_RVA + align(max(len(r.data), 1), 0x1000)
    struct.pack_into("<8sII", f, t + 40, b".bss", 0x1000, bss)
    f += r.data + b"\0" * (raw - len(r.data)) + trailer
    if certificate:
        f += b"\0" * (align(len(f), 8) - len(f))
        at = len(f)
        f += struct.pack("<IHH", 8 + certificate, 0x200, 2) + b"\x30" * certificate
        struct.pack_into("<II", f, d + 4 * 8, at, 8 + certificate)
    return bytes(f)


def seeds():
    out = {}

    r = Rdata()
    dirs = {1: imports(r, ["cudnn_ops_infer64_8.dll", "KERNEL32.dll"]),
            13: delay_imports(r, ["cublas64_11.dll", "zlibwapi.dll"]),
            2: resources(r, version_info())}
    out["x64_dll_full"] = image(r, dirs)
    out["x64_dll_signed"] = image(r, dirs, certificate=200)
    signed = out["x64_dll_signed"]
    out["x64_dll_signed_truncated"] = signed[:len(signed) - 50]
    out["x64_dll_cut_in_section"] = signed[:SECTION_OFFSET + 0x90]
    out["x64_headers_only"] = signed[:SECTION_OFFSET]

    r = Rdata()
    dirs = {1: imports(r, ["KERNEL32.dll", "USER32.dll"]),
            13: delay_imports(r, ["zlibwapi.dll"], rva_based=False, image_base=0x400000)}
    out["x86_exe_va_delay"] = image(r, dirs, pe32_plus=False, machine=0x14C,
                                    characteristics=0x0102, image_base=0x400000)

    r = Rdata()
    dirs = {2: resources(r, version_info(), loop=True)}
    out["arm64_resource_loop"] = image(r, dirs, machine=0xAA64)

    r = Rdata()
    dirs = {2: resources(r, version_info(signature=0x12345678), deep=True)}
    out["resource_too_deep"] = image(r, dirs)

    r = Rdata()
    strings = {"FileVersion": "6.14.11.9000 \u00e9\u4e2d\U0001F600", "ProductName": "x" * 300}
    dirs = {2: resources(r, version_info((6, 14, 11, 9000), strings))}
    out["version_unicode"] = image(r, dirs)

    r = Rdata()
    r.add(b"\0" * 16)
    table = b"\0\0\0\0" + b".debug_info\0" + b".debug_abbrev"  # the second name is unterminated
    out["long_section_name"] = image(r, {}, section_name=b"/4", symbols=SECTION_OFFSET + 0x200,
                                     trailer=table)

    r = Rdata()
    dirs = {1: imports(r, ["KERNEL32.dll"])}
    r.patch32(dirs[1][0] + 12, SECTION_RVA + len(r.data))
    r.data += b"unterminated.dll"  # the last bytes of the section and of the file
    out["unterminated_name"] = image(r, dirs, pad=False)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = os.path.join(here, "corpus", "pe")
    os.makedirs(corpus, exist_ok=True)
    for name in os.listdir(corpus):
        os.remove(os.path.join(corpus, name))
    for name, data in sorted(seeds().items()):
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(seeds())} seeds to {corpus}", file=sys.stderr)


if __name__ == "__main__":
    main()
