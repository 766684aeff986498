#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz_hive (tests/fuzz/corpus/hive/): real hive files built the way
the tests build them (tests/support/make_hive.py: an empty hive, then hivexregedit --merge), and
damaged copies of them. Needs hivexregedit (libwin-hivex-perl). Rewrites the corpus directory:

    python3 tests/fuzz/make_hive_seeds.py
"""

import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_HIVE = os.path.join(HERE, "..", "support", "make_hive.py")
OUT = os.path.join(HERE, "corpus", "hive")

DISPLAY = r"ControlSet001\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"


def utf16_hex(kind, *strings):
    data = b"".join(s.encode("utf-16-le") + b"\0\0" for s in strings)
    if kind == 7:
        data += b"\0\0"
    return f"hex({kind:x}):" + ",".join(f"{b:02x}" for b in data)


MINIDUMP_DIR = utf16_hex(2, "%SystemRoot%\\Minidump")
PAGING_FILES = utf16_hex(7, "C:\\pagefile.sys 0 0", "D:\\pagefile.sys 1024 4096")
BLOB = ",".join("%02x" % (i % 251) for i in range(20000))  # a big-data (db) value

SYSTEM_REG = f"""Windows Registry Editor Version 5.00

[\\Select]
"Current"=dword:00000001

[\\ControlSet001\\Control\\GraphicsDrivers]
"TdrDelay"=dword:0000003c
"TdrLevel"=dword:00000000
"Big"=hex(b):ff,ff,ff,ff,ff,ff,ff,7f

[\\ControlSet001\\Control\\CrashControl]
"CrashDumpEnabled"=dword:00000007
"MinidumpDir"={MINIDUMP_DIR}

[\\ControlSet001\\Control\\Session Manager\\Memory Management]
"PagingFiles"={PAGING_FILES}

[\\{DISPLAY}\\0000]
"DriverDesc"="NVIDIA GeForce RTX 3090"
"ProviderName"="NVIDIA"
"DriverVersion"="32.0.15.6094"
"MatchingDeviceId"="pci\\\\ven_10de&dev_2204"
"Blob"=hex:{BLOB}

[\\{DISPLAY}\\0001]
"DriverDesc"="Intel(R) UHD Graphics 630"
"ProviderName"="Intel Corporation"
"DriverVersion"="31.0.101.2111"
"""


def hive(reg_text, path):
    with tempfile.NamedTemporaryFile("w", suffix=".reg", delete=False) as f:
        f.write(reg_text)
    try:
        subprocess.run([sys.executable, MAKE_HIVE, path, f.name], check=True)
    finally:
        os.unlink(f.name)
    with open(path, "rb") as f:
        return f.read()


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        os.unlink(os.path.join(OUT, name))
    with tempfile.TemporaryDirectory() as tmp:
        empty = hive("Windows Registry Editor Version 5.00\n", os.path.join(tmp, "empty"))
        system = hive(SYSTEM_REG, os.path.join(tmp, "system"))
    bad_checksum = bytearray(system)
    bad_checksum[508] ^= 0xFF
    overdeclared = bytearray(system)
    struct.pack_into("<I", overdeclared, 40, len(system) * 4)
    # Every value's type field set to a number no REG_* type has (libhivex passes it through).
    odd_types = bytearray(system)
    at = odd_types.find(b"vk", 4096)
    while at != -1:
        struct.pack_into("<I", odd_types, at + 12, 0x00AA0004)  # vk: id, name length, data length, data offset, type
        at = odd_types.find(b"vk", at + 2)
    seeds = {
        "empty.hive": empty,
        "system.hive": system,
        "system_truncated": system[: len(system) // 2],
        "system_bad_checksum": bytes(bad_checksum),
        "system_overdeclared": bytes(overdeclared),
        "system_hbins_only": system[4096:],
        "system_odd_value_types": bytes(odd_types),  # the fuzz target puts a base block in front
        "not_a_hive": b"Windows Registry Editor Version 5.00\r\n",
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
