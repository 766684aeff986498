#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz_fatbin (tests/fuzz/corpus/fatbin/): small hand-made fatbin
sections, laid out as src/doctor/binfmt/fatbin.cpp describes, and one minimal ELF file whose
.nv_fatbin section holds such a section. Synthetic data only, never a compiler's output. Run it from
anywhere; it rewrites the corpus directory:

    python3 tests/fuzz/make_fatbin_seeds.py
"""

import os
import struct
import sys

MAGIC = 0xBA55ED50
PTX, ELF = 1, 2
COMPRESSED, ARCH_SPECIFIC, FAMILY_SPECIFIC = 0x8000, 0x100000, 0x200000


def entry(kind, arch, flags=0x11, payload=16, header_size=64, version=(1, 8)):
    major, minor = version
    head = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x0101, header_size, payload, 0, 0, minor, major,
                       arch, 0, 0, flags, 0, 0)
    return head.ljust(header_size, b"\0") + bytes([0x5A]) * payload


def container(entries, magic=MAGIC, fat_size=None):
    body = b"".join(entries)
    return struct.pack("<IHHQ", magic, 1, 16, len(body) if fat_size is None else fat_size) + body


def minimal_elf(section):
    """An ELF64 little-endian shared object with sections: null, .nv_fatbin, .shstrtab."""
    names = b"\0.nv_fatbin\0.shstrtab\0"
    data_off = 64
    names_off = data_off + len(section)
    shoff = (names_off + len(names) + 7) & ~7
    ehdr = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + b"\0" * 9, 3, 62, 1, 0, 0,
                       shoff, 0, 64, 56, 0, 64, 3, 2)
    null = b"\0" * 64
    fatbin = struct.pack("<IIQQQQIIQQ", 1, 1, 2, 0, data_off, len(section), 0, 0, 8, 0)
    strtab = struct.pack("<IIQQQQIIQQ", 12, 3, 0, 0, names_off, len(names), 0, 0, 1, 0)
    body = ehdr + section + names
    return body.ljust(shoff, b"\0") + null + fatbin + strtab


def seeds():
    two = container([entry(ELF, 75, payload=24),
                     entry(PTX, 90, flags=0x8011, payload=40, header_size=80, version=(9, 0))])
    padded = container([entry(ELF, 120), entry(ELF, 75), entry(ELF, 89)]) + b"\0" * 8 \
        + container([entry(ELF, 75), entry(ELF, 120), entry(PTX, 120, flags=0x8011)])
    suffixes = container([entry(ELF, 90, flags=0x100011),
                          entry(ELF, 100, flags=0x1200011, header_size=112),
                          entry(PTX, 100, flags=0x108011, header_size=80),
                          entry(16, 80)])
    huge = bytearray(container([entry(ELF, 80)]))
    huge[24:32] = struct.pack("<Q", 1 << 40)
    return {
        "one_container_two_entries": two,
        "two_containers_padding": padded,
        "arch_suffixes": suffixes,
        "truncated": two[: len(two) - 30],
        "bad_magic": container([entry(ELF, 80)]) + container([entry(ELF, 86)], magic=0x12345678),
        "payload_past_end": bytes(huge),
        "empty_container": container([]),
        "elf_with_fatbin": minimal_elf(two),
    }


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fatbin")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        os.remove(os.path.join(out, name))
    for name, data in seeds().items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(seeds())} seeds to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
