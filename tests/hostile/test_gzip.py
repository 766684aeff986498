#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rotated kernel logs compressed with gzip. A gzip bomb (a few MB that expand to GiBs) must be
inflated as a stream up to the plain log's cap (256 MiB): memory stays bounded, the incidents of
the part that was kept are reported, and the source says it was truncated. It must never be read
whole into memory and then dropped as invalid."""
import gzip
import json
import os

import hostile as x
from hostile import expect, test

XID = ("Jul  1 09:00:00 gpu-0 kernel: [  100.000000] NVRM: Xid (PCI:0000:44:00): 79, pid='<unknown>',"
       " name=<unknown>, GPU has fallen off the bus.\n")
FILLER = "Jul  1 09:00:01 gpu-0 kernel: [  101.000000] usb 1-1: new high-speed USB device number 2\n"


def bomb(path, total):
    """A kern.log.1.gz whose text is the Xid line, then `total` bytes of harmless kernel lines: one
    64 MiB member compressed once and repeated (a multi-member gzip file, as `cat a.gz b.gz`
    makes), so writing it takes a fraction of a second."""
    block = FILLER * ((64 << 20) // len(FILLER))
    member = gzip.compress(block.encode(), compresslevel=9, mtime=0)
    with open(path, "wb") as f:
        f.write(gzip.compress(XID.encode(), mtime=0))
        for _ in range(total // len(block)):
            f.write(member)
    return os.path.getsize(path)


@test
def gzip_bomb_is_read_up_to_the_cap_and_says_truncated():
    with x.tree() as root:
        path = os.path.join(root, "var", "log", "kern.log.1.gz")
        os.makedirs(os.path.dirname(path))
        size = bomb(path, 2 << 30)
        expect(size < 16 << 20, f"the bomb is {size} bytes")
        with gzip.open(path, "rb") as f:  # it really is gzip that expands past the cap
            expect(f.read(1 << 20).startswith(XID.encode()), "the bomb starts with the Xid line")
        # The kept text alone is 256 MiB; reading the whole bomb would need 2 GiB.
        r = x.run(["crashes", "--sysroot", root, "--format", "json"], timeout=600, rss_mb=600)
        x.expect_no_internal_error(r)
        expect(r.code == 1, f"exit {r.code}, want 1 (an incident): {r!r}")
        doc = json.loads(r.out)
        kinds = [i["kind"] for i in doc["incidents"]]
        expect(kinds == ["xid"], kinds)
        src = [s for s in doc["sources"] if s["source"] == "/var/log/kern.log.1.gz"]
        expect(len(src) == 1, doc["sources"])
        expect(src[0]["status"] == "read", src[0])
        expect("truncated: only the first 256 MiB of its uncompressed text were read"
               in src[0]["detail"], src[0])


@test
def gzip_log_under_the_cap_is_read_whole_and_not_called_truncated():
    with x.tree() as root:
        path = os.path.join(root, "var", "log", "kern.log.1.gz")
        os.makedirs(os.path.dirname(path))
        with open(path, "wb") as f:
            f.write(gzip.compress((FILLER * 1000 + XID).encode(), mtime=0))
        r = x.run(["crashes", "--sysroot", root, "--format", "json"], timeout=120, rss_mb=200)
        x.expect_no_internal_error(r)
        doc = json.loads(r.out)
        expect([i["kind"] for i in doc["incidents"]] == ["xid"], doc["incidents"])
        src = [s for s in doc["sources"] if s["source"] == "/var/log/kern.log.1.gz"][0]
        expect(src["status"] == "read" and "truncated" not in src["detail"], src)
        expect("1001 message(s)" in src["detail"], src)


if __name__ == "__main__":
    x.main()
