#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The live file access collector and its findings under wine, in a prefix this test owns.

  test_file_access.py CUDNN_DOCTOR_EXE WORK_DIR [--keep]

mingw-built DLLs named and versioned like cuDNN 8.9.4's Windows set go into C:\\cudnn\\bin (on
PATH through WINEPATH). Then:

- cudnn_cnn_infer64_8.dll loses every right: `check` must record it in windows.file_access as
  neither readable nor executable (api:AccessCheck) and report windows.dll_access_denied with an
  icacls grant for PowerShell.
- cudnn_ops_infer64_8.dll gets a Zone.Identifier stream with ZoneId=3: recorded with zone 3 and
  reported as windows.dll_marked_downloaded, a warning (the mingw DLL is unsigned), with
  Unblock-File.
- cudnn64_8.dll is left alone: no entry, no finding.
- `check --verify` asks WinVerifyTrust about NVIDIA's DLLs: each mingw DLL is "unsigned", which
  makes no finding. With osslsigncode and openssl, cudnn_adv_infer64_8.dll is signed with a
  self-signed certificate (wine's WinVerifyTrust then answers "valid": it does not insist on a
  trusted root) and cudnn_adv_train64_8.dll signed and then changed in one byte of its code,
  which must be "invalid: 0x80096010 TRUST_E_BAD_DIGEST" and windows.dll_signature_invalid.

What wine cannot express (wine 8, measured): wine keeps no security descriptor that
SetNamedSecurityInfoW sets on a file here; it derives the DACL from the Unix mode bits and grants
FILE_EXECUTE with read (a DACL that denies only FILE_EXECUTE comes back granting it). So the test
takes every right away the one way wine honours: mode 000 on the Unix file, which wine reads as a
DACL with only SYSTEM, and AccessCheck with the user's token then denies read and execute. The
execute-only denial is covered by the unit tests (tests/unit/test_windows_access.cpp). Wine keeps
an alternate data stream as a Unix file named "<file>:<stream>", so the test plants the mark as
that file; the doctor reads it as on NTFS, through CreateFileW("<file>:Zone.Identifier").
Exits 125 (skip) without wine or mingw-w64.
"""
import json
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "winloader"))
import run_winloader  # noqa: E402  (WinTree: mingw DLLs with version resources)
from test_live_collectors import CUDNN_SET, run_in_fresh_prefix  # noqa: E402

CUDNN_BIN = r"C:\cudnn\bin"
DENIED = CUDNN_BIN + r"\cudnn_cnn_infer64_8.dll"
MARKED = CUDNN_BIN + r"\cudnn_ops_infer64_8.dll"
PLAIN = CUDNN_BIN + r"\cudnn64_8.dll"
SIGNED = CUDNN_BIN + r"\cudnn_adv_infer64_8.dll"
TAMPERED = CUDNN_BIN + r"\cudnn_adv_train64_8.dll"

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}")


def run_json(wine, exe, args, env, phase):
    p = wine.run([exe] + args, env, check=False)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        expect(False, f"{phase}: stdout is not JSON (exit {p.returncode}):\n{p.stdout[:2000]}\n"
                      f"{p.stderr[:2000]}")
        return None


def entries(snap):
    return {a["path"].lower(): a for a in snap["windows"]["file_access"]}


def findings_of(report, fid):
    return [f for f in report["findings"] if f["id"] == fid]


def sign(work, host_path, tamper):
    """Signs the DLL at HOST_PATH with a self-signed certificate; with TAMPER, then flips one byte
    a quarter into the file (in its sections, well before the signature appended at the end)."""
    key, cert = os.path.join(work, "key.pem"), os.path.join(work, "cert.pem")
    if not os.path.exists(cert):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "30", "-subj", "/CN=cudnn-doctor test signer"],
                       check=True, capture_output=True)
    signed = host_path + ".signed"
    subprocess.run(["osslsigncode", "sign", "-certs", cert, "-key", key, "-in", host_path,
                    "-out", signed], check=True, capture_output=True)
    data = bytearray(open(signed, "rb").read())
    if tamper:
        data[len(data) // 4] ^= 0xFF
    with open(host_path, "wb") as f:
        f.write(data)
    os.remove(signed)


def examine(wine, work, prefix, exe):
    tree = run_winloader.WinTree(os.path.join(work, "tree"))
    tree.drives["C:"] = os.path.join(prefix, "drive_c")
    for name in CUDNN_SET:
        tree.dll(CUDNN_BIN + "\\" + name, version=run_winloader.cudnn_version("8.9.4.25"))
    env = {"WINEPATH": CUDNN_BIN}
    can_sign = shutil.which("osslsigncode") is not None and shutil.which("openssl") is not None
    if can_sign:
        sign(work, tree.host(SIGNED), tamper=False)
        sign(work, tree.host(TAMPERED), tamper=True)
    else:
        print("note: osslsigncode or openssl is missing; the signed and tampered DLLs are not made")

    # Nothing planted yet: the collector has nothing to say about any DLL.
    snap = run_json(wine, exe, ["snapshot"], env, "before")
    if snap is None:
        return 1
    expect(snap["windows"]["file_access"] == [], f"before: {snap['windows']['file_access']}")

    denied_host = tree.host(DENIED)
    os.chmod(denied_host, 0)
    with open(tree.host(MARKED) + ":Zone.Identifier", "w", newline="") as f:
        f.write("[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://example.invalid/cudnn.zip\r\n")
    try:
        snap = run_json(wine, exe, ["snapshot"], env, "snapshot")
        report = run_json(wine, exe, ["check", "--format", "json", "--fail-on", "critical"], env,
                          "check")
        verified = run_json(wine, exe, ["snapshot", "--verify"], env, "snapshot --verify")
        verified_report = run_json(wine, exe, ["check", "--verify", "--format", "json",
                                               "--fail-on", "critical"], env, "check --verify")
    finally:
        os.chmod(denied_host, stat.S_IRUSR | stat.S_IWUSR | stat.S_IXUSR)
    if None in (snap, report, verified, verified_report):
        return 1

    got = entries(snap)
    print("file_access:", json.dumps(snap["windows"]["file_access"], indent=1))
    d = got.get(DENIED.lower())
    expect(d is not None and d["readable"] is False and d["executable"] is False
           and d["source"].startswith("api:AccessCheck") and d["authenticode"] == "",
           f"denied entry {d}")
    m = got.get(MARKED.lower())
    expect(m is not None and m["zone"] == 3 and m["readable"] and m["executable"]
           and "ads:Zone.Identifier" in m["source"], f"marked entry {m}")
    expect(PLAIN.lower() not in got, f"{PLAIN} has an entry: {got.get(PLAIN.lower())}")

    denied = findings_of(report, "windows.dll_access_denied")
    expect(len(denied) == 1 and denied[0]["subject"].lower() == DENIED.lower()
           and denied[0]["severity"] == "error", f"access findings {denied}")
    if denied:
        commands = [x["command"] for x in denied[0]["fixes"] if x["command"]]
        expect(any(c.startswith("icacls ") and c.lower().find(DENIED.lower()) > 0
                   and c.endswith('/grant "$($env:USERNAME):(RX)"') for c in commands),
               f"icacls fix {commands}")
    marked = findings_of(report, "windows.dll_marked_downloaded")
    expect(len(marked) == 1 and marked[0]["subject"].lower() == MARKED.lower()
           and marked[0]["severity"] == "warning", f"mark findings {marked}")
    if marked:
        commands = [x["command"] for x in marked[0]["fixes"] if x["command"]]
        expect(any(c.startswith("Unblock-File -LiteralPath ") for c in commands),
               f"Unblock-File fix {commands}")
    inv = report["inventory"]["windows"].get("file_access") or []
    expect(sorted(a["path"].lower() for a in inv) == sorted([DENIED.lower(), MARKED.lower()]),
           f"inventory file_access {inv}")

    # --verify: WinVerifyTrust says "unsigned" for every cuDNN DLL (mingw signs nothing), which is
    # kept in the facts and makes no finding.
    got = entries(verified)
    signed = {SIGNED.lower(): "valid", TAMPERED.lower(): "invalid: 0x80096010 TRUST_E_BAD_DIGEST"}
    for name in CUDNN_SET:
        path = (CUDNN_BIN + "\\" + name).lower()
        want = signed.get(path, "unsigned") if can_sign else "unsigned"
        a = got.get(path)
        expect(a is not None and a["authenticode"] == want
               and "api:WinVerifyTrust" in a["source"], f"--verify {name}: {a}, not {want!r}")
    invalid = findings_of(verified_report, "windows.dll_signature_invalid")
    if can_sign:
        expect(len(invalid) == 1 and invalid[0]["subject"].lower() == TAMPERED.lower()
               and invalid[0]["severity"] == "warning"
               and "TRUST_E_BAD_DIGEST" in invalid[0]["message"], f"signature findings {invalid}")
    else:
        expect(not invalid, f"signature findings {invalid}")
    # Without --verify nothing was asked: no entry has an Authenticode answer.
    expect(all(a["authenticode"] == "" for a in snap["windows"]["file_access"]),
           f"authenticode without --verify: {snap['windows']['file_access']}")
    return None


def main():
    return run_in_fresh_prefix(__doc__, failures, examine)


if __name__ == "__main__":
    sys.exit(main())
