#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz_elf (tests/fuzz/corpus/elf/): small hand-made ELF files.

Each seed is laid out byte by byte here (ELF header, program headers, .interp, a build-id note,
version definitions and needs, .dynamic, .dynstr, section headers), so the corpus holds synthetic
data, never a compiler's output. Run it from anywhere; it rewrites the corpus directory:

    python3 tests/fuzz/make_elf_seeds.py
"""

import os
import struct
import sys

PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_NOTE = 1, 2, 3, 4
SHT_PROGBITS, SHT_STRTAB, SHT_DYNAMIC, SHT_NOTE = 1, 3, 6, 7
SHT_VERDEF, SHT_VERNEED = 0x6FFFFFFD, 0x6FFFFFFE
SHF_ALLOC = 2
DT = {
    "NULL": 0, "NEEDED": 1, "STRTAB": 5, "STRSZ": 10, "SONAME": 14, "RPATH": 15, "RUNPATH": 29,
    "FLAGS": 30, "FLAGS_1": 0x6FFFFFFB, "VERDEF": 0x6FFFFFFC, "VERDEFNUM": 0x6FFFFFFD,
    "VERNEED": 0x6FFFFFFE, "VERNEEDNUM": 0x6FFFFFFF,
}


def elf_hash(name):
    h = 0
    for c in name.encode():
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


class Strings:
    def __init__(self):
        self.data = b"\0"
        self.index = {"": 0}

    def add(self, s):
        if s not in self.index:
            self.index[s] = len(self.data)
            self.data += s.encode() + b"\0"
        return self.index[s]


def align(n, a):
    return (n + a - 1) // a * a


def build(is64=True, big=False, machine=62, etype=3, interp=None, needed=(), soname=None,
          rpath=None, runpath=None, flags=0, flags_1=0, verdefs=(), verneeds=(), build_id=None,
          phdrs=True, sections=True, base=0x10000, far_dynstr=False):
    e = ">" if big else "<"
    word = "Q" if is64 else "I"
    ehsize, phentsize, shentsize = (64, 56, 64) if is64 else (52, 32, 40)
    dynent = 16 if is64 else 8

    dynstr = Strings()
    for s in [*needed, soname, rpath, runpath, *verdefs]:
        if s is not None:
            dynstr.add(s)
    for file, versions in verneeds:
        dynstr.add(file)
        for v in versions:
            dynstr.add(v)

    verdef = b""
    for i, name in enumerate(verdefs):
        last = i == len(verdefs) - 1
        verdef += struct.pack(e + "HHHHIII", 1, 1 if i == 0 else 0, i + 1, 1, elf_hash(name), 20,
                              0 if last else 28)
        verdef += struct.pack(e + "II", dynstr.index[name], 0)
    verneed = b""
    ndx = len(verdefs) + 1
    for i, (file, versions) in enumerate(verneeds):
        last = i == len(verneeds) - 1
        verneed += struct.pack(e + "HHIII", 1, len(versions), dynstr.index[file], 16,
                               0 if last else 16 + 16 * len(versions))
        for k, v in enumerate(versions):
            ndx += 1
            verneed += struct.pack(e + "IHHII", elf_hash(v), 0, ndx, dynstr.index[v],
                                   0 if k == len(versions) - 1 else 16)
    note = b""
    if build_id is not None:
        note = struct.pack(e + "III", 4, len(build_id), 3) + b"GNU\0" + build_id
        note += b"\0" * (align(len(note), 4) - len(note))

    tags = [("NEEDED", dynstr.index[n]) for n in needed]
    for tag, value in (("SONAME", soname), ("RPATH", rpath), ("RUNPATH", runpath)):
        if value is not None:
            tags.append((tag, dynstr.index[value]))
    tags += [("STRTAB", None), ("STRSZ", len(dynstr.data))]
    if flags:
        tags.append(("FLAGS", flags))
    if flags_1:
        tags.append(("FLAGS_1", flags_1))
    if verdefs:
        tags += [("VERDEF", None), ("VERDEFNUM", len(verdefs))]
    if verneeds:
        tags += [("VERNEED", None), ("VERNEEDNUM", len(verneeds))]
    tags.append(("NULL", 0))

    # Layout: header, program headers, then each blob 8-aligned; .dynstr either next or far away
    # in its own PT_LOAD (as in libcudnn_graph.so.9).
    nph = (2 + (interp is not None) + bool(note) + far_dynstr) if phdrs else 0
    off = ehsize + nph * phentsize
    blobs = {}
    interp_bytes = interp.encode() + b"\0" if interp is not None else b""
    for name, size in ((".interp", len(interp_bytes)), (".note.gnu.build-id", len(note)),
                       (".gnu.version_d", len(verdef)), (".gnu.version_r", len(verneed)),
                       (".dynamic", dynent * len(tags))):
        if size:
            off = align(off, 8)
            blobs[name] = off
            off += size
    if far_dynstr:
        main_end = off
        off = align(off, 0x100)
    blobs[".dynstr"] = off
    off += len(dynstr.data)
    if not far_dynstr:
        main_end = off
    far_base = base + 0x100000

    def vaddr(name):
        o = blobs[name]
        return far_base + o if far_dynstr and name == ".dynstr" else base + o

    values = {"STRTAB": vaddr(".dynstr")}
    if verdefs:
        values["VERDEF"] = vaddr(".gnu.version_d")
    if verneeds:
        values["VERNEED"] = vaddr(".gnu.version_r")
    dynamic = b"".join(struct.pack(e + word + word, DT[t], values[t] if v is None else v)
                       for t, v in tags)

    shstr = Strings()
    section_list = []  # name, type, flags, offset, size, link, info, addralign, entsize
    if sections:
        dynstr_ndx = 1 + len(blobs) - 1  # every blob is a section; .dynstr is the last of them
        for name in blobs:
            if name == ".dynstr":
                continue
            size = {".interp": len(interp_bytes), ".note.gnu.build-id": len(note),
                    ".gnu.version_d": len(verdef), ".gnu.version_r": len(verneed),
                    ".dynamic": len(dynamic)}[name]
            kind, link, info, entsize = {
                ".interp": (SHT_PROGBITS, 0, 0, 0), ".note.gnu.build-id": (SHT_NOTE, 0, 0, 0),
                ".gnu.version_d": (SHT_VERDEF, dynstr_ndx, len(verdefs), 0),
                ".gnu.version_r": (SHT_VERNEED, dynstr_ndx, len(verneeds), 0),
                ".dynamic": (SHT_DYNAMIC, dynstr_ndx, 0, dynent)}[name]
            section_list.append((name, kind, SHF_ALLOC, blobs[name], size, link, info, 4, entsize))
        section_list.append((".dynstr", SHT_STRTAB, SHF_ALLOC, blobs[".dynstr"], len(dynstr.data),
                             0, 0, 1, 0))
        for s in section_list:
            shstr.add(s[0])
        shstr.add(".shstrtab")
        shstrtab_off = off
        off += len(shstr.data)
        section_list.append((".shstrtab", SHT_STRTAB, 0, shstrtab_off, len(shstr.data), 0, 0, 1, 0))
    shoff = align(off, 8) if sections else 0
    shnum = len(section_list) + 1 if sections else 0
    file_size = shoff + shnum * shentsize if sections else off

    out = bytearray(file_size)
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 2 if big else 1, 1, 0]) + b"\0" * 8
    out[0:16] = ident
    out[16:ehsize] = struct.pack(e + "HHI" + word + word + word + "IHHHHHH", etype, machine, 1, 0,
                                 ehsize if phdrs else 0, shoff, 0, ehsize, phentsize, nph,
                                 shentsize, shnum, shnum - 1 if sections else 0)

    def phdr(kind, offset, va, size, p_align, pflags=4):
        if is64:
            return struct.pack(e + "IIQQQQQQ", kind, pflags, offset, va, va, size, size, p_align)
        return struct.pack(e + "IIIIIIII", kind, offset, va, va, size, size, pflags, p_align)

    if phdrs:
        ph = [phdr(PT_LOAD, 0, base, main_end, 0x1000, 5)]
        if far_dynstr:
            ph.append(phdr(PT_LOAD, blobs[".dynstr"], vaddr(".dynstr"), len(dynstr.data), 0x100))
        if interp is not None:
            ph.append(phdr(PT_INTERP, blobs[".interp"], vaddr(".interp"), len(interp_bytes), 1))
        ph.append(phdr(PT_DYNAMIC, blobs[".dynamic"], vaddr(".dynamic"), len(dynamic), 8, 6))
        if note:
            ph.append(phdr(PT_NOTE, blobs[".note.gnu.build-id"], vaddr(".note.gnu.build-id"),
                           len(note), 4))
        at = ehsize
        for p in ph:
            out[at:at + phentsize] = p
            at += phentsize

    contents = {".interp": interp_bytes, ".note.gnu.build-id": note, ".gnu.version_d": verdef,
                ".gnu.version_r": verneed, ".dynamic": dynamic, ".dynstr": dynstr.data}
    for name, o in blobs.items():
        out[o:o + len(contents[name])] = contents[name]
    if sections:
        out[shstrtab_off:shstrtab_off + len(shstr.data)] = shstr.data
        at = shoff + shentsize  # section 0 stays all zeros
        for name, kind, sflags, offset, size, link, info, salign, entsize in section_list:
            addr = 0 if not sflags else (far_base if far_dynstr and name == ".dynstr" else base) \
                + offset
            if is64:
                sh = struct.pack(e + "IIQQQQIIQQ", shstr.index[name], kind, sflags, addr, offset,
                                 size, link, info, salign, entsize)
            else:
                sh = struct.pack(e + "IIIIIIIIII", shstr.index[name], kind, sflags, addr, offset,
                                 size, link, info, salign, entsize)
            out[at:at + shentsize] = sh
            at += shentsize
    return bytes(out)


BUILD_ID = bytes(range(0x10, 0x24))
FULL = dict(needed=["libz.so.1", "libc.so.6"], soname="libseed.so.9",
            runpath="$ORIGIN:$ORIGIN/../lib", flags=0x10, flags_1=0x800,
            verdefs=["libseed.so.9", "SEED_1.0"],
            verneeds=[("libc.so.6", ["GLIBC_2.2.5", "GLIBC_2.17"]), ("libz.so.1", ["ZLIB_1.2.9"])],
            build_id=BUILD_ID)


def seeds():
    yield "le64_library", build(**FULL)
    yield "be64_ppc64", build(big=True, machine=21, **FULL)
    yield "le32_i386", build(is64=False, machine=3, **FULL)
    yield "be32_mips", build(is64=False, big=True, machine=8, **FULL)
    yield "le64_executable", build(etype=2, interp="/lib64/ld-linux-x86-64.so.2",
                                   needed=["libcudnn.so.9", "libc.so.6"],
                                   rpath="$ORIGIN/../lib", build_id=BUILD_ID[:8])
    yield "le64_far_dynstr", build(far_dynstr=True, **FULL)
    yield "le64_sections_only", build(phdrs=False, **FULL)
    yield "le64_no_sections", build(sections=False, **FULL)
    yield "aarch64_minimal", build(machine=183, needed=["libcudnn_graph.so.9"], soname="libx.so")
    full = build(**FULL)
    yield "le64_truncated", full[: len(full) // 2]
    yield "header_only", full[:64]


def main():
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "elf")
    os.makedirs(out_dir, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
