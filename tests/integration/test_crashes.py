# SPDX-License-Identifier: MIT
"""`cudnn-doctor crashes` as a user runs it: the real sample files of ../shared/testdata (dumps,
event logs, kernel logs, malformed ones), fixtures derived from them (a 0x116 triage dump, a
rotated and gzipped kern.log, a pstore record, a Windows disk tree), real journal files made by
systemd-journal-remote, and the live machine."""
import gzip
import json
import os
import shutil
import struct
import subprocess
import tempfile

import harness as h
from harness import expect, expect_contains, expect_exit, export_entry, journal_remote, run, test


def shared(*parts):
    return os.path.join(h.SOURCE, "..", "shared", "testdata", *parts)


def have_shared(*parts):
    """True when the shared sample `parts` (default: the whole ../shared/testdata) is here.
    Without it the calling test skips and says so; with DOCTOR_REQUIRE_TESTDATA=1 (CI) its
    absence is a failure instead, so the real-data tests cannot silently stop running."""
    if os.path.exists(shared(*parts)):
        return True
    if os.environ.get("DOCTOR_REQUIRE_TESTDATA") == "1":
        raise h.Failure(f"DOCTOR_REQUIRE_TESTDATA=1 but {shared(*parts)} is missing")
    print(f"  ({shared(*parts)} absent: skipped; DOCTOR_REQUIRE_TESTDATA=1 makes this a failure)")
    return False


def tmpdir():
    return tempfile.mkdtemp(prefix="crashes-")


def crashes_json(args, codes=(0, 1)):
    r = run(["crashes", "--format", "json"] + args)
    expect(r.code in codes, f"exit {r.code}\nstdout:{r.out[:2000]}\nstderr:{r.err[:2000]}")
    doc = r.json()
    expect(doc["schema"] == "cudnn-doctor-crashes/1", doc.get("schema"))
    return r, doc


def incidents(doc, kind=None):
    return [i for i in doc["incidents"] if kind is None or i["kind"] == kind]


# Every real sample of ../shared/testdata with its exact answer: the exit status, then the first
# incident (kind, code, catalogue name, finding, title) and what its source said, or for a refused
# file the exact message. A new sample needs its row here.
REAL_SAMPLES = {
    "linux-logs/dmesg-with-xid-119.log": (
        1, ("xid", "119", "GSP_RPC_TIMEOUT", "log.gsp_error",
            "Xid 119 on GPU 0000:9b:00: GSP RPC Timeout"),
        "kernel log, 43 message(s)"),
    "linux-logs/dmesg.decode.iso.log": (
        1, ("xid", "13", "GR_EXCEPTION", "log.gpu_app_fault",
            "Xid 13 on GPU 0000:38:00: Graphics Engine Exception"),
        "kernel log, 24 message(s)"),
    "linux-logs/kmsg.1.log": (0, None, "kernel log, 47 message(s)"),
    "linux-logs/pstore-dmesg-erst.txt": (
        1, ("kernel_oops", "", "", "crash.kernel_crash",
            "Kernel Oops: unable to handle kernel NULL pointer dereference at           (null)"),
        "kernel log, 39 message(s)"),
    "windows-dumps/calc_usermode.dmp": (
        1, ("app_crash", "0x80000003", "STATUS_BREAKPOINT", "crash.app_crash",
            "calc.exe crashed in ntdll.dll: 0x80000003 STATUS_BREAKPOINT"),
        "user-mode minidump, 28 module(s)"),
    "windows-dumps/invalid_parameter_usermode.dmp": (
        1, ("app_crash", "0xc000000d", "STATUS_INVALID_PARAMETER", "crash.app_crash",
            "CrashTest.exe crashed: 0xc000000d STATUS_INVALID_PARAMETER"),
        "user-mode minidump, 31 module(s)"),
    "windows-dumps/test_app_usermode.dmp": (
        1, ("app_crash", "0xc0000005", "STATUS_ACCESS_VIOLATION", "crash.app_crash",
            "test_app.exe crashed in test_app.exe: 0xc0000005 STATUS_ACCESS_VIOLATION"),
        "user-mode minidump, 13 module(s)"),
    "windows-dumps/triage_x64.dmp": (
        1, ("bugcheck", "0x7e", "SYSTEM_THREAD_EXCEPTION_NOT_HANDLED", "log.bugcheck",
            "Bug check 0x7e SYSTEM_THREAD_EXCEPTION_NOT_HANDLED in amdppm.sys (AMD processor power"
            " management driver)"),
        "kernel dump (type 4), 151 driver(s)"),
    "windows-dumps/fuzzed_1.mdmp": (
        2, None, "minidump: truncated minidump: stream directory at 0xffff00 outside the file"),
    "windows-dumps/fuzzed_2.mdmp": (
        2, None, "damaged user-mode minidump, 0 module(s); stream directory truncated: 285 of 1791"
                 " entries inside the file; 140 streams lie outside the file; system info stream"
                 " too small (4 bytes); no exception record"),
    "windows-dumps/malformed_invalid_range.dmp": (
        2, None, "damaged user-mode minidump, 0 module(s); 3 streams lie outside the file; no"
                 " exception record"),
    "windows-dumps/malformed_invalid_record_count.dmp": (
        2, None, "damaged user-mode minidump, 0 module(s); 13 streams lie outside the file; no"
                 " exception record"),
    "windows-evtx/system.evtx": (0, None, "event log, 1881 record(s)"),
    "windows-evtx/application_no_crc32.evtx": (0, None, "event log, 17 record(s)"),
    "windows-evtx/malformed_bad_chunk_magic.evtx": (
        0, None, "event log, 270 record(s); chunk 0: no record at offset 8600, rest of the chunk"
                 " skipped; chunk 6: bad magic, skipped; chunk 7: no record at offset 8288, rest of"
                 " the chunk skipped; chunk 9: no record at offset 57400, rest of the chunk"
                 " skipped; chunk 10: bad magic, skipped"),
}


@test
def every_real_sample_gives_its_pinned_answer():
    if not have_shared():
        return
    found = sorted(f"{sub}/{name}" for sub in ("windows-dumps", "windows-evtx", "linux-logs")
                   for name in os.listdir(shared(sub)))
    expect(found == sorted(REAL_SAMPLES), f"samples without a pinned answer, or pinned samples"
           f" missing: {sorted(set(found) ^ set(REAL_SAMPLES))}")
    for sample, (code, first, detail) in sorted(REAL_SAMPLES.items()):
        path = shared(sample)
        r = run(["crashes", "--format", "json", "--from", path])
        expect(r.code == code, f"{sample}: exit {r.code}, expected {code}\n{r.err[:2000]}")
        if code == 2:
            # Nothing readable: stderr names the file and says exactly why, and nothing else.
            expect(r.out == "", f"{sample}: stdout {r.out[:500]!r}")
            expect(r.err == f"cudnn-doctor: error: {path}: {detail}\n"
                            "cudnn-doctor: error: no input could be read as crash evidence\n",
                   f"{sample}: {r.err!r}")
            continue
        doc = r.json()
        expect([(s["source"], s["status"], s["detail"]) for s in doc["sources"]]
               == [(path, "read", detail)], f"{sample}: {doc['sources']}")
        got = doc["incidents"][0] if doc["incidents"] else None
        if first is None:
            expect(got is None, f"{sample}: {got}")
            continue
        expect(got is not None, f"{sample}: no incident")
        expect((got["kind"], got["code"], got["name"], got["finding"], got["title"]) == first,
               f"{sample}: {(got['kind'], got['code'], got['name'], got['finding'], got['title'])}")


@test
def real_triage_dump_names_the_module_of_the_exception_address():
    if not have_shared():
        return
    r, doc = crashes_json(["--from", shared("windows-dumps", "triage_x64.dmp")])
    bc = incidents(doc, "bugcheck")
    expect(len(bc) == 1, doc["incidents"])
    expect(bc[0]["code"] == "0x7e", bc[0])
    expect(bc[0]["fields"].get("raw_code") == "0x1000007e", bc[0]["fields"])
    expect(bc[0]["fields"].get("module") == "amdppm.sys", bc[0]["fields"])
    expect(bc[0]["name"] == "SYSTEM_THREAD_EXCEPTION_NOT_HANDLED", bc[0]["name"])
    expect(bc[0]["time"] is not None, bc[0])


def patched_0x116_dump():
    """The real triage dump with BugCheck 0x116 and P2 inside nvlddmkm.sys (research 7.3)."""
    data = bytearray(open(shared("windows-dumps", "triage_x64.dmp"), "rb").read())
    (drivers, count, pool) = struct.unpack_from("<III", data, 0x2000 + 0x30)
    stride = (pool - drivers) // count
    base = None
    for i in range(count):
        entry = drivers + i * stride
        name_off = struct.unpack_from("<I", data, entry)[0]
        length = struct.unpack_from("<I", data, name_off)[0]
        name = data[name_off + 4:name_off + 4 + 2 * length].decode("utf-16-le")
        if name.lower().endswith("nvlddmkm.sys"):
            base = struct.unpack_from("<Q", data, entry + 0x38)[0]
    expect(base is not None, "nvlddmkm.sys not in the driver list")
    struct.pack_into("<I", data, 0x38, 0x116)
    struct.pack_into("<Q", data, 0x40, 0xFFFFC000DEAD0000)
    struct.pack_into("<Q", data, 0x48, base + 0x1234)
    struct.pack_into("<Q", data, 0x50, 0xC000009A)
    path = os.path.join(tmpdir(), "113025-9876-01.dmp")
    open(path, "wb").write(bytes(data))
    return path


@test
def derived_0x116_dump_blames_nvlddmkm_with_its_build_date():
    if not have_shared():
        return
    r, doc = crashes_json(["--from", patched_0x116_dump()], codes=(1,))
    bc = incidents(doc, "bugcheck")[0]
    expect(bc["code"] == "0x116" and bc["name"] == "VIDEO_TDR_FAILURE", bc)
    expect(bc["cause_class"] == "os.tdr_or_bugcheck", bc["cause_class"])
    expect(bc["fields"]["module"] == "nvlddmkm.sys", bc["fields"])
    expect(bc["fields"]["module_offset"] == "0x1234", bc["fields"])
    expect_contains(bc["title"], "nvlddmkm.sys")
    expect_contains(bc["title"], "2020-12-31")
    expect(any(f["text"] for f in bc["fixes"]), bc["fixes"])


@test
def text_report_of_a_kernel_log_names_the_xid_and_its_source_line():
    if not have_shared():
        return
    r = run(["crashes", "--color", "never", "--from", shared("linux-logs", "dmesg-with-xid-119.log")])
    expect_exit(r, 1)
    expect_contains(r.out, "Xid 119")
    expect_contains(r.out, "dmesg-with-xid-119.log, line")
    expect_contains(r.out, "next steps:")
    expect_contains(r.out, "Sources")


@test
def rsyslog_012_api_mismatch_and_rotated_gzip_logs_in_a_sysroot():
    root = tmpdir()
    logs = os.path.join(root, "var", "log")
    os.makedirs(logs)
    old = ("Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 535.54.03,"
           " but#012NVRM: this kernel module has the version 530.30.02.  Please#012NVRM: make sure"
           " that this kernel module and all NVIDIA driver#012NVRM: components have the same"
           " version.\n")
    with gzip.open(os.path.join(logs, "kern.log.2.gz"), "wt") as f:
        f.write(old)
    open(os.path.join(logs, "kern.log.1"), "w").write(
        "Jul  1 09:00:00 gpu-0 kernel: [  100.000000] NVRM: Xid (PCI:0000:44:00): 79, pid='<unknown>',"
        " name=<unknown>, GPU has fallen off the bus.\n")
    open(os.path.join(logs, "kern.log"), "w").write("Jul  2 09:00:00 gpu-0 kernel: nothing\n")
    r, doc = crashes_json(["--sysroot", root], codes=(1,))
    kinds = [i["kind"] for i in doc["incidents"]]
    expect(kinds == ["driver_mismatch", "xid"], kinds)
    mm = doc["incidents"][0]
    expect(mm["fields"].get("client_version") == "535.54.03", mm["fields"])
    expect(mm["fields"].get("kernel_version") == "530.30.02", mm["fields"])
    expect(doc["incidents"][1]["cause_class"] == "hardware.unstable", doc["incidents"][1])
    read = [s["source"] for s in doc["sources"] if s["status"] == "read"]
    expect(read == ["/var/log/kern.log.2.gz", "/var/log/kern.log.1", "/var/log/kern.log"], read)
    expect(not doc["notes"], doc["notes"])


@test
def absolute_links_in_a_sysroot_never_reach_the_host():
    """An image's /var/log/kern.log that is an absolute link names the image's file at that path:
    the host file there (with its own Xid) must not be read."""
    work = tmpdir()
    host_log = os.path.join(work, "host", "kern.log")
    os.makedirs(os.path.dirname(host_log))
    open(host_log, "w").write(
        "Jul  1 09:00:00 host kernel: [  100.000000] NVRM: Xid (PCI:0000:de:00): 79,"
        " pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
    root = os.path.join(work, "image")
    inside = os.path.join(root, host_log.lstrip("/"))
    os.makedirs(os.path.dirname(inside))
    open(inside, "w").write(
        "Aug 30 11:43:09 image kernel: [  200.000000] NVRM: Xid (PCI:0000:cb:00): 13,"
        " pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, SM 0):"
        " Illegal Instruction Parameter\n")
    os.makedirs(os.path.join(root, "var", "log"))
    os.symlink(host_log, os.path.join(root, "var", "log", "kern.log"))
    r, doc = crashes_json(["--sysroot", root], codes=(0, 1))
    expect([(i["code"], i["fields"].get("pci")) for i in doc["incidents"]] == [("13", "0000:cb:00")],
           doc["incidents"])
    expect("0000:de:00" not in r.out, "the host's log was read")
    # Without the image's own file the link leads nowhere: unreadable, never the host's file.
    os.remove(inside)
    r, doc = crashes_json(["--sysroot", root], codes=(0,))
    expect(doc["incidents"] == [], doc["incidents"])
    kern = [s for s in doc["sources"] if s["source"] == "/var/log/kern.log"]
    expect(kern and kern[0]["status"] == "unreadable", doc["sources"])


@test
def pstore_record_after_a_panic():
    if not have_shared():
        return
    root = tmpdir()
    pstore = os.path.join(root, "sys", "fs", "pstore")
    os.makedirs(pstore)
    shutil.copy(shared("linux-logs", "pstore-dmesg-erst.txt"),
                os.path.join(pstore, "dmesg-erst-7530486857247752193"))
    r, doc = crashes_json(["--sysroot", root], codes=(1,))
    oops = [i for i in doc["incidents"] if i["kind"] in ("kernel_oops", "kernel_panic")]
    expect(oops, doc["incidents"])
    expect(oops[0]["boot"] == "pstore", oops[0])
    expect(oops[0]["cause_class"] == "os.tdr_or_bugcheck", oops[0])


@test
def no_earlier_boot_evidence_is_said_honestly():
    root = tmpdir()
    os.makedirs(os.path.join(root, "var", "log"))
    r, doc = crashes_json(["--sysroot", root], codes=(0,))
    expect(doc["incidents"] == [], doc["incidents"])
    expect([n["id"] for n in doc["notes"]] == ["crash.no_persistent_log"], doc["notes"])


@test
def real_journal_files_with_two_boots():
    tool = journal_remote()
    if tool is None:
        print("  (systemd-journal-remote absent: skipped)")
        return
    root = tmpdir()
    jdir = os.path.join(root, "var", "log", "journal", "0123456789abcdef0123456789abcdef")
    os.makedirs(jdir)
    boots = ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]
    lines = [
        (boots[0], 1700000000000000, 50000000,
         "NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s of waiting"
         " for RPC response from GPU4 GSP! Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4)."),
        (boots[1], 1700003600000000, 60000000,
         "NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp"
         " Exception on (GPC 9, TPC 1, SM 1): Out Of Range Address"),
    ]
    stream = b""
    for i, (boot, rt, mono, msg) in enumerate(lines):
        stream += export_entry({
            "__CURSOR": f"s=0;i={i + 1}", "__REALTIME_TIMESTAMP": str(rt),
            "__MONOTONIC_TIMESTAMP": str(mono), "_BOOT_ID": boot, "_TRANSPORT": "kernel",
            "PRIORITY": "4", "SYSLOG_IDENTIFIER": "kernel", "MESSAGE": msg,
            "_MACHINE_ID": "0123456789abcdef0123456789abcdef", "_HOSTNAME": "gpu-0"})
    stream += export_entry({
        "__CURSOR": "s=0;i=9", "__REALTIME_TIMESTAMP": "1700003700000000",
        "__MONOTONIC_TIMESTAMP": "70000000", "_BOOT_ID": boots[1], "_TRANSPORT": "stdout",
        "PRIORITY": "6", "MESSAGE": "NVRM: Xid (PCI:0000:38:00): 79, user text, not the kernel",
        "_MACHINE_ID": "0123456789abcdef0123456789abcdef", "_HOSTNAME": "gpu-0"})
    out = os.path.join(jdir, "system.journal")
    p = subprocess.run([tool, "--output=" + out, "-"], input=stream, capture_output=True)
    expect(p.returncode == 0 and os.path.exists(out), p.stderr.decode())
    r, doc = crashes_json(["--sysroot", root], codes=(1,))
    xids = incidents(doc, "xid")
    expect([(i["code"], i["boot"]) for i in xids] == [("119", boots[0]), ("13", boots[1])], xids)
    expect(xids[0]["time"] == "2023-11-14T22:13:20Z", xids[0]["time"])
    journal = [s for s in doc["sources"] if s["source"].startswith("journal")]
    expect(journal and journal[0]["status"] == "read", doc["sources"])
    expect_contains(journal[0]["detail"], "2 boot(s)")
    expect(not doc["notes"], doc["notes"])


@test
def windows_disk_tree_with_real_event_log_and_dump():
    if not have_shared():
        return
    root = tmpdir()
    logs = os.path.join(root, "Windows", "System32", "winevt", "Logs")
    os.makedirs(logs)
    os.makedirs(os.path.join(root, "Windows", "Minidump"))
    shutil.copy(shared("windows-evtx", "system.evtx"), os.path.join(logs, "System.evtx"))
    shutil.copy(patched_0x116_dump(), os.path.join(root, "Windows", "Minidump", "113025-9876-01.dmp"))
    r, doc = crashes_json(["--sysroot", root], codes=(1,))
    by_source = {s["source"]: s for s in doc["sources"]}
    expect(by_source["/Windows/System32/winevt/Logs/System.evtx"]["status"] == "read", by_source)
    expect(by_source["/Windows/System32/winevt/Logs/Application.evtx"]["status"] == "absent",
           by_source)
    expect(incidents(doc, "bugcheck")[0]["code"] == "0x116", doc["incidents"])


@test
def utf16_event_export_of_one_crash_is_one_incident():
    xml = ("<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>"
           "<Provider Name='Microsoft-Windows-Kernel-Power' Guid='{331c3b3a-2005-44c2-ac5e-77220c37d6b4}'/>"
           "<EventID>41</EventID><Version>8</Version><Level>1</Level>"
           "<TimeCreated SystemTime='2024-05-26T10:12:40.5000000Z'/><EventRecordID>9001</EventRecordID>"
           "<Channel>System</Channel><Computer>DESKTOP</Computer></System><EventData>"
           "<Data Name='BugcheckCode'>278</Data><Data Name='BugcheckParameter1'>0xffffc000dead0000</Data>"
           "<Data Name='BugcheckParameter2'>0xfffff80512341234</Data>"
           "<Data Name='BugcheckParameter3'>0xc000009a</Data><Data Name='BugcheckParameter4'>0x4</Data>"
           "<Data Name='SleepInProgress'>0</Data><Data Name='PowerButtonTimestamp'>0</Data>"
           "</EventData></Event>\r\n"
           "<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System>"
           "<Provider Name='Microsoft-Windows-WER-SystemErrorReporting' Guid='{ABCE23E7-DE45-4366-8631-84FA6C525952}' EventSourceName='BugCheck'/>"
           "<EventID Qualifiers='16384'>1001</EventID><Version>0</Version><Level>2</Level>"
           "<TimeCreated SystemTime='2024-05-26T10:12:55.0000000Z'/><EventRecordID>9002</EventRecordID>"
           "<Channel>System</Channel><Computer>DESKTOP</Computer></System><EventData>"
           "<Data Name='param1'>0x00000116 (0xffffc000dead0000, 0xfffff80512341234, 0xffffffffc000009a, 0x0000000000000004)</Data>"
           "<Data Name='param2'>C:\\Windows\\Minidump\\052624-8015-01.dmp</Data>"
           "<Data Name='param3'>7d3c8a1e-0b1f-4a8e-9c55-2f1d6c0e4b11</Data></EventData></Event>\r\n")
    path = os.path.join(tmpdir(), "system-export.xml")
    open(path, "wb").write(b"\xff\xfe" + xml.encode("utf-16-le"))
    r, doc = crashes_json(["--from", path], codes=(1,))
    expect(len(doc["incidents"]) == 1, doc["incidents"])
    inc = doc["incidents"][0]
    expect(inc["code"] == "0x116" and inc["count"] == 2, inc)
    expect(inc["time"] == "2024-05-26T10:12:40.500000Z", inc["time"])
    expect_contains(doc["sources"][0]["detail"], "utf-16le")


@test
def markdown_report_has_the_timeline_table():
    if not have_shared():
        return
    r = run(["crashes", "--format", "markdown", "--from", shared("linux-logs", "dmesg.decode.iso.log")])
    expect_exit(r, 1)
    expect_contains(r.out, "| # | time | kind | code | incident | cause class |")
    expect_contains(r.out, "| xid | 13 |")


@test
def usage_errors():
    r = run(["crashes", "--from", "/nonexistent/crash.dmp"])
    expect_exit(r, 2)
    expect_contains(r.err, "/nonexistent/crash.dmp")
    r = run(["crashes", "--from", "/tmp", "--sysroot", "/tmp"])
    expect_exit(r, 2)
    expect_contains(r.err, "--from cannot be combined with --sysroot")
    r = run(["crashes", "--help"])
    expect_exit(r, 0)
    expect_contains(r.out, "--from")


@test
def live_machine_reports_its_sources():
    r, doc = crashes_json([])
    names = [s["source"] for s in doc["sources"]]
    expect(any(n.startswith("journal") for n in names), names)
    expect("/dev/kmsg" in names, names)
    expect(doc["target"] == "this machine", doc["target"])


if __name__ == "__main__":
    h.main()
