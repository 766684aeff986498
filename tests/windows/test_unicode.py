#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudnn-doctor.exe under wine with names and text in any script (issue 15, "Unicode").

A user's folder is often named in their own script (C:\\Users\\张伟, D:\\Gérard\\logs), and a
Chinese Windows console writes logs in GBK. Each case runs the real executable under wine with
such a path as an argument, in a temporary folder of its own, output redirected to a file:

  explain_gbk_log   `explain 张伟\\训练日志.log`, a GBK log with a TensorFlow/cuDNN error line and
                    Chinese text: the finding is found, and the report (text and JSON) is valid
                    UTF-8 holding the Chinese exactly.
  output_file       `check --snapshot ... -o 报告-张伟.json` writes the file of that name.
  sysroot           `check --sysroot Gérard-根目录` reads the tree of that name.
  crashes_from      `crashes --from 张伟` reads the kernel log 内核日志.log in that folder.
  console           the explain of the GBK log again, with standard output (and standard error,
                    for an error naming a missing Chinese file) a console: wine's
                    console, on a pseudo-terminal that `script` holds, in code page 437. Text
                    written there as UTF-8 bytes shows as mojibake ("å¼ ä¼Ÿ"); only WriteConsoleW
                    shows the Chinese. Colour is on (virtual-terminal mode), and off with NO_COLOR.
                    Skips (125) without `script`.

    test_unicode.py CASE EXE SOURCE_DIR     (wine is taken from $WINE, default "wine")
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WINE = os.environ.get("WINE", "wine")

# Real lines of a TensorFlow 2.10 run on Windows without cuDNN (tensorflow/tensorflow#40804, as in
# tests/explain/sources/win-tf210-cudnn64_8-not-found.txt) around the Chinese a user's own script
# and a Chinese Windows print: a prompt in a folder named in Chinese, the script's messages.
GBK_LOG_LINES = [
    r"(tf210) C:\Users\张伟\项目\叶片病害>python train.py --epochs 30",
    "开始训练：叶片病害分类模型（张伟）",
    "2023-06-11 19:42:03.911650: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found",
    "2023-06-11 19:42:03.911920: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1934] "
    "Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are "
    "installed properly if you would like to use GPU. Follow the guide at "
    "https://www.tensorflow.org/install/gpu for how to download and setup the required libraries "
    "for your platform.",
    "Skipping registering GPU devices...",
    "警告：未检测到 GPU，训练将在 CPU 上进行，速度会很慢。",
]


# `import tensorflow` on a Chinese Windows without the Visual C++ runtime or CUDA DLLs: Python
# prints the system's message for error 126 in Chinese. The report quotes this line as evidence.
GBK_IMPORT_LINES = [
    "Traceback (most recent call last):",
    r'  File "C:\Users\张伟\项目\train.py", line 3, in <module>',
    "    import tensorflow as tf",
    "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: 找不到指定的模块。",
]
QUOTED_CHINESE = "找不到指定的模块。"


def windows_path(path: Path) -> str:
    """The path as a Windows program sees it under wine: the Unix root is drive Z:."""
    return "Z:" + str(path).replace("/", "\\")


def run(exe: str, *args: str, cwd: Path) -> tuple[int, bytes, bytes]:
    """Runs the executable under wine with stdout and stderr redirected to files (never a
    console), and returns the exit status and both outputs as bytes."""
    out_path = cwd / "stdout.bin"
    err_path = cwd / "stderr.bin"
    env = dict(os.environ, WINEDEBUG="-all")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        status = subprocess.run(
            [WINE, exe, *args], stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
            env=env, timeout=300, check=False).returncode
    return status, out_path.read_bytes(), err_path.read_bytes()


def fail(message: str) -> None:
    print(f"FAIL: {message}")
    sys.exit(1)


def as_utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        fail(f"{what} is not valid UTF-8 ({e}): {data[:400]!r}")
    raise AssertionError  # unreachable


def case_explain_gbk_log(exe: str, _source: Path, tmp: Path) -> None:
    folder = tmp / "张伟"
    folder.mkdir()
    log = folder / "训练日志.log"
    log.write_bytes("\r\n".join(GBK_LOG_LINES).encode("gbk") + b"\r\n")
    for fmt in ("text", "json"):
        status, out, err = run(exe, "explain", "--no-machine", "--format", fmt, windows_path(log),
                               cwd=tmp)
        if status not in (0, 1):
            fail(f"explain --format {fmt} exited {status}: {err!r}")
        text = as_utf8(out, f"explain --format {fmt} output")
        if fmt == "json":
            report = json.loads(text)
            inputs = json.dumps(report, ensure_ascii=False)
            if '"encoding": "gbk"' not in inputs:
                fail(f"the log was not read as GBK: {text[:2000]}")
            if '"id": "log.cudnn_not_found"' not in inputs:
                fail(f"log.cudnn_not_found was not found: {text[:2000]}")
        else:
            if "log.cudnn_not_found" not in text and "cudnn64_8.dll" not in text:
                fail(f"the text report names neither the finding nor the DLL: {text[:2000]}")
        # The file's name in the report, and the log's own Chinese where the report quotes it:
        # exactly the characters, never mojibake or U+FFFD.
        if windows_path(log) not in text and "训练日志.log" not in text:
            fail(f"--format {fmt}: the report does not name 张伟\\训练日志.log: {text[:2000]}")
        if "\ufffd" in text:
            fail(f"--format {fmt}: the report holds U+FFFD: {text[:2000]}")
    # The log's own Chinese, decoded from GBK, in the evidence the report quotes.
    log = folder / "导入错误.log"
    log.write_bytes("\r\n".join(GBK_IMPORT_LINES).encode("gbk") + b"\r\n")
    status, out, err = run(exe, "explain", "--no-machine", windows_path(log), cwd=tmp)
    if status not in (0, 1):
        fail(f"explain exited {status}: {err!r}")
    text = as_utf8(out, "explain output")
    if "log.dll_dependency_missing" not in text or QUOTED_CHINESE not in text:
        fail(f"the report does not quote the GBK line {QUOTED_CHINESE!r}: {text[:2000]}")
    print("ok: explain of GBK logs in 张伟\\ found log.cudnn_not_found and quoted the Chinese in UTF-8")


def case_output_file(exe: str, source: Path, tmp: Path) -> None:
    folder = tmp / "Gérard"
    folder.mkdir()
    target = folder / "报告-张伟.json"
    snapshot = source / "tests" / "golden" / "snapshots" / "no_gpu_machine.json"
    status, out, err = run(exe, "check", "--snapshot", windows_path(snapshot), "--format", "json",
                           "-o", windows_path(target), cwd=tmp)
    if status not in (0, 1):
        fail(f"check -o exited {status}: {err!r}")
    if out:
        fail(f"check -o wrote to standard output: {out[:400]!r}")
    if not target.is_file():
        names = [p.name for p in folder.iterdir()]
        fail(f"-o did not write {target.name}; the folder holds {names}")
    report = json.loads(as_utf8(target.read_bytes(), target.name))
    if "gpu.not_found" not in json.dumps(report):
        fail(f"{target.name} is not the check report: {str(report)[:1000]}")
    print("ok: -o Gérard\\报告-张伟.json wrote the report there")


def case_sysroot(exe: str, _source: Path, tmp: Path) -> None:
    root = tmp / "Gérard-根目录"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "os-release").write_text(
        'NAME="Ubuntu"\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\nID=ubuntu\n',
        encoding="utf-8")
    status, out, err = run(exe, "check", "--sysroot", windows_path(root), "--no-nvml", "--format",
                           "json", cwd=tmp)
    if status not in (0, 1):
        fail(f"check --sysroot exited {status}: {err!r}")
    text = as_utf8(out, "check --sysroot output")
    if "Ubuntu 22.04.4 LTS" not in text:
        fail(f"the tree's /etc/os-release was not read: {text[:2000]}")
    if "Gérard-根目录" not in text:
        fail(f"the report does not name the sysroot as given: {text[:2000]}")
    print("ok: --sysroot Gérard-根目录 read the tree's /etc/os-release")


def console_text(exe: str, args: list[str], tmp: Path, extra_env: dict[str, str],
                 statuses: tuple[int, ...] = (0, 1)) -> str:
    """What the program showed on wine's console: the pseudo-terminal's bytes with wine's cursor
    sequences undone and every line end removed (the console breaks lines at 80 columns,
    anywhere in a word)."""
    typescript = tmp / "typescript"
    command = " ".join(shlex.quote(a) for a in [WINE, exe, *args])
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(WINEDEBUG="-all", LANG="C.UTF-8", LC_ALL="C.UTF-8", **extra_env)
    status = subprocess.run(["script", "-qfec", command, str(typescript)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp, env=env,
                            timeout=300, check=False).returncode
    if status not in statuses:
        fail(f"{command} on a console exited {status}")
    raw = as_utf8(typescript.read_bytes(), "the console's output")
    # The typescript's own first and last lines ("Script started on ...") are not the program's.
    lines = raw.split("\n")[1:-2]
    body = "\n".join(lines)
    body = re.sub(r"\x1b\[\?25[lh]|\x1b\[K", "", body)
    # Wine draws a run of blanks as a cursor move ("\x1b[5C").
    body = re.sub(r"\x1b\[([0-9]*)C", lambda m: " " * int(m.group(1) or "1"), body)
    return body.replace("\r", "").replace("\n", "")


def case_console(exe: str, _source: Path, tmp: Path) -> None:
    if shutil.which("script") is None:
        print("skip: no `script` to hold a pseudo-terminal")
        sys.exit(125)
    folder = tmp / "张伟"
    folder.mkdir()
    log = folder / "导入错误.log"
    log.write_bytes("\r\n".join(GBK_IMPORT_LINES).encode("gbk") + b"\r\n")
    args = ["explain", "--no-machine", windows_path(log)]
    shown = console_text(exe, args, tmp, {})
    if "\x1b[1m" not in shown:
        fail(f"no colour on a console in virtual-terminal mode: {shown[:1500]!r}")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown)
    for want in (windows_path(log), QUOTED_CHINESE, "log.dll_dependency_missing"):
        if want not in plain:
            fail(f"the console does not show {want!r}: {plain[:1500]!r}")
    if "å¼" in plain:
        fail(f"the console shows UTF-8 bytes read as code page 437: {plain[:1500]!r}")
    no_color = console_text(exe, args, tmp, {"NO_COLOR": "1"})
    if re.search(r"\x1b\[[0-9;]*m", no_color) or QUOTED_CHINESE not in no_color:
        fail(f"NO_COLOR: colour, or the Chinese missing, on the console: {no_color[:1500]!r}")
    # Standard error on the console too: the error names the missing file in Chinese.
    missing = windows_path(folder / "不存在.log")
    error = console_text(exe, ["explain", missing], tmp, {}, statuses=(2,))
    if f"cudnn-doctor: error: {missing}: no such file" not in error:
        fail(f"the console does not show the error naming {missing!r}: {error[:1500]!r}")
    print("ok: on a console (code page 437) the Chinese shows through WriteConsoleW, in colour; "
          "errors too")


def case_crashes_from(exe: str, source: Path, tmp: Path) -> None:
    folder = tmp / "张伟"
    folder.mkdir()
    # A real kernel log of a GPU that fell off the bus (tests/explain/cases), named in Chinese.
    kern = source / "tests" / "explain" / "cases" / "linux-dmesg-xid79-fallen-off-bus.log"
    log = folder / "内核日志.log"
    log.write_bytes(kern.read_bytes())
    status, out, err = run(exe, "crashes", "--format", "json", "--from", windows_path(folder),
                           cwd=tmp)
    if status not in (0, 1):
        fail(f"crashes --from exited {status}: {err!r}")
    report = json.loads(as_utf8(out, "crashes output"))
    read = [s for s in report.get("sources", []) if s.get("status") == "read"]
    if [s.get("source") for s in read] != [windows_path(log)]:
        fail(f"the sources read are not {windows_path(log)!r}: {report.get('sources')}")
    kinds = {i.get("kind") for i in report.get("incidents", [])}
    if "xid" not in kinds:
        fail(f"no Xid incident from {log.name}: {sorted(k for k in kinds if k)}")
    print("ok: crashes --from 张伟 read 内核日志.log and found its Xid incident")


CASES = {
    "explain_gbk_log": case_explain_gbk_log,
    "output_file": case_output_file,
    "sysroot": case_sysroot,
    "crashes_from": case_crashes_from,
    "console": case_console,
}


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} {{{','.join(CASES)}}} EXE SOURCE_DIR", file=sys.stderr)
        return 2
    case, exe, source = sys.argv[1], str(Path(sys.argv[2]).resolve()), Path(sys.argv[3]).resolve()
    with tempfile.TemporaryDirectory(prefix="doctor-unicode-") as tmp:
        CASES[case](exe, source, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
