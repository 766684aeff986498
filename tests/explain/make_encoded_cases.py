#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the corpus cases whose bytes cannot be typed as plain UTF-8 text files.

Two kinds of case come from here:

1. Encoded cases: a UTF-8 source text in sources/ is written to cases/ in the encoding and line
   ending a real machine produces for it (a Chinese Windows console redirected to a file writes
   GBK with CRLF; Windows PowerShell 5.1 `>` and `Tee-Object` write UTF-16LE with a BOM and CRLF;
   Notepad's "UTF-8 with BOM" and `Out-File -Encoding utf8` write a UTF-8 BOM; ...).
2. Long logs: several thousand lines of training progress, kernel chatter or service logs with
   the one line that matters buried in the middle or near the end. They are built from fixed
   templates with a seeded random generator, so every run writes the same bytes.

Run it once after editing a source or a generator and commit the outputs:

    python3 tests/explain/make_encoded_cases.py          # (re)write the generated cases
    python3 tests/explain/make_encoded_cases.py --check  # exit 1 if a committed output differs
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
CASES = HERE / "cases"

MAX_LONG_BYTES = 1_500_000

# (source file in sources/, output file in cases/, encoding, line ending, byte order mark)
ENCODED: list[tuple[str, str, str, str, bool]] = [
    # cmd.exe / Anaconda Prompt output saved by the user: UTF-8 (Python 3.7+ with -X utf8 off but
    # redirected through a UTF-8 editor), Windows line endings.
    ("win-tf210-cudnn64_8-not-found.txt", "win-tf210-cudnn64_8-not-found.log", "utf-8", "\r\n", False),
    ("win-tf210-success.txt", "win-neg-tf210-training-ok.log", "utf-8", "\r\n", False),
    # Chinese Windows: `python x.py > log.txt 2>&1` in cmd writes the console code page (936).
    ("win-paddleocr-cudnn64_8-126-gbk.txt", "win-paddleocr-cudnn64_8-126-gbk.log", "gbk", "\r\n", False),
    ("win-torch-winerror126-cnn-infer-gbk.txt", "win-torch-winerror126-cnn-infer-gbk.log", "gbk", "\r\n", False),
    ("win-torch-winerror1455-gbk.txt", "win-yolov5-winerror1455-gbk.log", "gbk", "\r\n", False),
    ("win-tf-cudart64_110-gbk.txt", "win-tf-cudart64_110-gbk.log", "gbk", "\r\n", False),
    # Windows PowerShell 5.1: `python x.py 2>&1 > log.txt` and `| Tee-Object` write UTF-16LE + BOM.
    ("win-ps-tf210-cudnn-version-mismatch-utf16le.txt", "win-ps-tf210-cudnn-version-mismatch-utf16le.log", "utf-16-le", "\r\n", True),
    ("win-ps-torch-cuda-oom-utf16le.txt", "win-ps-torch-cuda-oom-utf16le.log", "utf-16-le", "\r\n", True),
    ("win-ps-faster-whisper-zlibwapi-utf16le.txt", "win-ps-faster-whisper-zlibwapi-utf16le.log", "utf-16-le", "\r\n", True),
    ("win-ps-ctranslate2-cudnn_ops64_9-utf16le.txt", "win-ps-ctranslate2-cudnn_ops64_9-utf16le.log", "utf-16-le", "\r\n", True),
    # Event Viewer "Copy details as text" pasted into Notepad and saved as "UTF-16 BE".
    ("win-event-display-4101-utf16be.txt", "win-event-display-4101-utf16be.txt", "utf-16-be", "\r\n", True),
    # PowerShell 5.1 `Out-File -Encoding utf8` and Notepad "UTF-8 with BOM".
    ("win-event-kernel-power-41-utf8bom.txt", "win-event-kernel-power-41-utf8bom.txt", "utf-8", "\r\n", True),
    ("win-tf29-jupyter-cudnn64_8-utf8bom.txt", "win-tf29-jupyter-cudnn64_8-utf8bom.log", "utf-8", "\r\n", True),
]

BOMS = {"utf-8": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}


def encode_text(text: str, encoding: str, newline: str, bom: bool) -> bytes:
    text = text.replace("\r\n", "\n")
    if newline != "\n":
        text = text.replace("\n", newline)
    data = text.encode(encoding)  # strict: a character the encoding lacks is an error here
    return (BOMS[encoding] if bom else b"") + data


# --- long logs ---------------------------------------------------------------------------------


def long_keras_oom() -> tuple[str, str]:
    """TF 2.15 custom training loop on Linux, ~6,300 lines; OOM in the evaluation of epoch 27."""
    rng = random.Random(20240219)
    out: list[str] = []
    ts = [9, 14, 55, 101826]

    def stamp() -> str:
        ts[3] += rng.randint(50, 90000)
        if ts[3] >= 1_000_000:
            ts[3] -= 1_000_000
            ts[2] += 1
        if ts[2] >= 60:
            ts[2] -= 60
            ts[1] += 1
        if ts[1] >= 60:
            ts[1] -= 60
            ts[0] += 1
        return f"2024-02-19 {ts[0]:02d}:{ts[1]:02d}:{ts[2]:02d}.{ts[3]:06d}"

    out += [
        "(tf) omar@dgx-ws:~/proj/segformer-tf$ nohup python train.py --config configs/ade20k_b2.yaml > train.log 2>&1 &",
        f"{stamp()}: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
        f"{stamp()}: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:607] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered",
        f"{stamp()}: E external/local_xla/xla/stream_executor/cuda/cuda_blas.cc:1515] Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered",
        f"{stamp()}: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.",
        "To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.",
        f"{stamp()}: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
        f"{stamp()}: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1929] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22282 MB memory:  -> device: 0, name: NVIDIA RTX A5000, pci bus id: 0000:41:00.0, compute capability: 8.6",
        "I0219 09:15:02.118273 140231887546176 train.py:61] config: model=segformer_b2 crop=512x512 batch=16 eval_batch=8 lr=6e-05 epochs=40",
        "I0219 09:15:02.118402 140231887546176 train.py:74] train samples 20210, val samples 2000, steps/epoch 1263",
    ]
    loss = 2.9
    hh, mm, ss = 9, 15, 10
    stopped = False
    for epoch in range(1, 41):
        out.append(f"I0219 {hh:02d}:{mm:02d}:{ss:02d}.{rng.randint(0, 999999):06d} 140231887546176 train.py:102] epoch {epoch}/40 start, lr={6e-05 * (1 - (epoch - 1) / 40):.3e}")
        for step in range(5, 1264, 5):
            loss = max(0.18, loss * (0.9993 + rng.uniform(-0.002, 0.0015)))
            ss += 2
            if ss >= 60:
                ss -= 60
                mm += 1
            if mm >= 60:
                mm -= 60
                hh += 1
            out.append(f"I0219 {hh:02d}:{mm:02d}:{ss:02d}.{rng.randint(0, 999999):06d} 140231887546176 train.py:131] epoch {epoch} step {step:4d}/1263 loss={loss:.4f} mIoU(train)={min(0.61, 0.05 + (1 - loss / 2.9) * 0.7):.4f} imgs/s={rng.uniform(51.0, 56.5):.1f}")
            if epoch == 1 and step == 5:
                out.append("WARNING: All log messages before absl::InitializeLog() is called are written to STDERR")
                out.append("I0000 00:00:1708334120.553071   48211 device_compiler.h:186] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.")
                out.append(f"2024-02-19 {hh:02d}:{mm:02d}:{ss:02d}.{rng.randint(0, 999999):06d}: I external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:454] Loaded cuDNN version 8906")
        out.append(f"I0219 {hh:02d}:{mm:02d}:{ss:02d}.{rng.randint(0, 999999):06d} 140231887546176 train.py:148] epoch {epoch} done, mean loss {loss:.4f}; evaluating on 2000 images")
        if epoch == 27:
            out += [
                f"2024-02-19 {hh:02d}:{mm:02d}:{ss:02d}.812043: W external/local_tsl/tsl/framework/bfc_allocator.cc:485] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to 2147483648)requested by op segformer/decode_head/linear_fuse/Conv2D",
                "If the cause is memory fragmentation maybe the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. ",
                "Current allocation summary follows.",
                "Current allocation summary follows.",
                f"2024-02-19 {hh:02d}:{mm:02d}:{ss:02d}.812790: W external/local_tsl/tsl/framework/bfc_allocator.cc:497] *************************************************************************************************___",
                f"2024-02-19 {hh:02d}:{mm:02d}:{ss:02d}.812841: W tensorflow/core/framework/op_kernel.cc:1827] OP_REQUIRES failed at conv_ops_impl.h:1199 : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[8,768,512,512] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
                "Traceback (most recent call last):",
                '  File "/home/omar/proj/segformer-tf/train.py", line 212, in <module>',
                "    main()",
                '  File "/home/omar/proj/segformer-tf/train.py", line 156, in main',
                "    metrics = evaluate(model, val_ds, num_classes=150)",
                '  File "/home/omar/proj/segformer-tf/train.py", line 88, in evaluate',
                "    logits = model(images, training=False)",
                "tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node __wrapped__Conv2D_device_/job:localhost/replica:0/task:0/device:GPU:0}} OOM when allocating tensor with shape[8,768,512,512] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:Conv2D] name: ",
                "[1]+  Exit 1                  nohup python train.py --config configs/ade20k_b2.yaml > train.log 2>&1",
            ]
            stopped = True
            break
        miou = min(0.47, 0.12 + epoch * 0.013 + rng.uniform(-0.004, 0.004))
        out.append(f"I0219 {hh:02d}:{mm:02d}:{ss:02d}.{rng.randint(0, 999999):06d} 140231887546176 train.py:166] epoch {epoch} val mIoU={miou:.4f} pixAcc={0.62 + miou * 0.5:.4f}")
        if epoch % 5 == 0:
            out.append(f"I0219 {hh:02d}:{mm:02d}:{ss:02d}.{rng.randint(0, 999999):06d} 140231887546176 checkpoint.py:40] saved checkpoints/segformer_b2/ckpt-{epoch}")
    assert stopped
    return "linux-long-tf-segformer-oom.log", "\n".join(out) + "\n"


def long_windows_pagefile() -> tuple[str, str]:
    """Windows PyTorch training log (CRLF), ~8,700 lines; WinError 1455 in a DataLoader worker
    at the start of epoch 7, then the user resumes with fewer workers and training goes on."""
    rng = random.Random(1455)
    out: list[str] = []
    t = [14, 2, 11]

    def clock(adv: int) -> str:
        t[2] += adv
        while t[2] >= 60:
            t[2] -= 60
            t[1] += 1
        while t[1] >= 60:
            t[1] -= 60
            t[0] += 1
        return f"2024-03-02 {t[0]:02d}:{t[1]:02d}:{t[2]:02d},{rng.randint(0, 999):03d}"

    def header(run: int, workers: int, resume: str) -> None:
        out.extend([
            f"{clock(0)} INFO ===== run {run} =====",
            f"{clock(1)} INFO args: data=D:\\datasets\\fundus_v3 arch=efficientnet_b4 img=512 batch=24 workers={workers} amp=True epochs=30{resume}",
            f"{clock(0)} INFO torch 2.1.2+cu121, cuda True, device NVIDIA GeForce RTX 3080 Ti (12287 MiB), cudnn 8801",
            f"{clock(2)} INFO train images 29960, val images 3540, iters/epoch 1249",
        ])

    def epoch_lines(ep: int) -> None:
        loss = 1.1 * (0.93 ** ep)
        for it in range(1, 1250):
            if it % 2:
                continue
            loss = max(0.05, loss * (1 + rng.uniform(-0.012, 0.011)))
            out.append(f"{clock(rng.choice((0, 1)))} INFO epoch {ep:2d} iter {it:4d}/1249 loss {loss:.4f} lr {0.001 * (0.97 ** ep):.6f} {rng.uniform(8.1, 8.9):.2f} it/s")
            if it % 400 == 0:
                out.append(f"{clock(0)} WARNING C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\site-packages\\torch\\optim\\lr_scheduler.py:149: UserWarning: The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed form is used instead of the new `get_lr()` method.")
        acc = min(0.93, 0.61 + ep * 0.021 + rng.uniform(-0.01, 0.01))
        out.append(f"{clock(25)} INFO epoch {ep:2d} val acc {acc:.4f} auc {min(0.98, acc + 0.05):.4f}")
        out.append(f"{clock(1)} INFO saved checkpoints\\effb4_e{ep:02d}.pt")

    out.append("(fundus) PS C:\\Users\\amir\\work\\fundus> python train.py --workers 12 *>> train_log.txt")
    header(1, 12, "")
    for ep in range(1, 7):
        epoch_lines(ep)
    out += [
        f"{clock(3)} INFO epoch  7 starting",
        "Traceback (most recent call last):",
        '  File "<string>", line 1, in <module>',
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\multiprocessing\\spawn.py", line 116, in spawn_main',
        "    exitcode = _main(fd, parent_sentinel)",
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\multiprocessing\\spawn.py", line 125, in _main',
        "    prepare(preparation_data)",
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\multiprocessing\\spawn.py", line 236, in prepare',
        "    _fixup_main_from_path(data['init_main_from_path'])",
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\runpy.py", line 87, in _run_code',
        "    exec(code, run_globals)",
        '  File "C:\\Users\\amir\\work\\fundus\\train.py", line 4, in <module>',
        "    import torch",
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\site-packages\\torch\\__init__.py", line 130, in <module>',
        "    raise err",
        'OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its dependencies.',
        "Traceback (most recent call last):",
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 1132, in _try_get_data',
        "    data = self._data_queue.get(timeout=timeout)",
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\queue.py", line 179, in get',
        "    raise Empty",
        "_queue.Empty",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "C:\\Users\\amir\\work\\fundus\\train.py", line 188, in <module>',
        "    main()",
        '  File "C:\\Users\\amir\\work\\fundus\\train.py", line 141, in main',
        "    for it, (x, y) in enumerate(train_loader, 1):",
        '  File "C:\\Users\\amir\\miniconda3\\envs\\fundus\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 1145, in _try_get_data',
        "    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e",
        "RuntimeError: DataLoader worker (pid(s) 18244) exited unexpectedly",
        "(fundus) PS C:\\Users\\amir\\work\\fundus> python train.py --workers 4 --resume checkpoints\\effb4_e06.pt *>> train_log.txt",
    ]
    clock(600)
    header(2, 4, " resume=checkpoints\\effb4_e06.pt")
    out.append(f"{clock(1)} INFO resumed from epoch 6")
    for ep in range(7, 14):
        epoch_lines(ep)
    return "win-long-torch-pagefile-1455.log", "\r\n".join(out) + "\r\n"


_KERN_NOISE = [
    "[UFW BLOCK] IN=enp5s0 OUT= MAC=01:00:5e:00:00:01:{m}:08:00 SRC=192.168.1.{a} DST=224.0.0.1 LEN=36 TOS=0x00 PREC=0xC0 TTL=1 ID=0 DF PROTO=2",
    "[UFW BLOCK] IN=enp5s0 OUT= MAC=ff:ff:ff:ff:ff:ff:{m}:08:00 SRC=192.168.1.{a} DST=192.168.1.255 LEN={l} TOS=0x00 PREC=0x00 TTL=64 ID={i} DF PROTO=UDP SPT=57621 DPT=57621 LEN={l2}",
    "audit: type=1400 audit({e}.{ms}:{n}): apparmor=\"DENIED\" operation=\"open\" class=\"file\" profile=\"snap.firefox.firefox\" name=\"/proc/pressure/memory\" pid={p} comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=0",
    "usb 1-{u}: new full-speed USB device number {n2} using xhci_hcd",
    "usb 1-{u}: USB disconnect, device number {n2}",
    "EXT4-fs (nvme1n1p1): mounted filesystem 6e1c5d2a-3b94-4f0e-a1d7-9c8b2e4f0a15 r/w with ordered data mode. Quota mode: none.",
    "igc 0000:05:00.0 enp5s0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX/TX",
    "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
    "nvme nvme1: using unchecked data buffer",
    "Bluetooth: hci0: ACL packet for unknown connection handle {h}",
]

_BOOT_LINES = [
    "Linux version 6.5.0-28-generic (buildd@lcy02-amd64-098) (x86_64-linux-gnu-gcc-12 (Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #29~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Thu Apr  4 14:39:20 UTC 2",
    "Command line: BOOT_IMAGE=/boot/vmlinuz-6.5.0-28-generic root=UUID=d1f2e3c4-5b6a-4978-8a9b-0c1d2e3f4a5b ro quiet splash vt.handoff=7",
    "pci 0000:41:00.0: [10de:2204] type 00 class 0x030000",
    "pci 0000:41:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x16 link at 0000:40:01.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)",
    "nvidia: loading out-of-tree module taints kernel.",
    "nvidia: module license 'NVIDIA' taints kernel.",
    "Disabling lock debugging due to kernel taint",
    "nvidia-nvlink: Nvlink Core is being initialized, major device number 511",
    "nvidia 0000:41:00.0: vgaarb: changed VGA decodes: olddecodes=io+mem,decodes=none:owns=io+mem",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.171.04  Tue Mar 19 20:30:00 UTC 2024",
    "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.171.04  Tue Mar 19 20:22:50 UTC 2024",
    "[drm] [nvidia-drm] [GPU ID 0x00004100] Loading driver",
    "[drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:41:00.0 on minor 1",
    "nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from proprietary module nvidia, inheriting taint.",
    "nvidia-uvm: Loaded the UVM driver, major device number 509.",
]


def long_kern_log_xid79() -> tuple[str, str]:
    """/var/log/kern.log of a workstation over four days, ~8,300 lines; Xid 79 once in the
    middle (then a reboot and more ordinary lines)."""
    rng = random.Random(79)
    out: list[str] = []
    day = [17]
    up = [0.0]
    t = [8 * 3600]

    def line(text: str, adv: float) -> None:
        t[0] += int(adv)
        up[0] += adv
        if t[0] >= 86400:
            t[0] -= 86400
            day[0] += 1
        hh, rem = divmod(t[0], 3600)
        mm, ss = divmod(rem, 60)
        out.append(f"Apr {day[0]} {hh:02d}:{mm:02d}:{ss:02d} threadripper kernel: [{up[0]:12.6f}] {text}")

    def noise(count: int) -> None:
        for _ in range(count):
            tmpl = rng.choice(_KERN_NOISE)
            line(tmpl.format(m=f"{rng.randint(0, 255):02x}:{rng.randint(0, 255):02x}", a=rng.randint(2, 250),
                             l=rng.randint(60, 300), l2=rng.randint(40, 280), i=rng.randint(1000, 65000),
                             e=1713340000 + int(up[0]), ms=rng.randint(100, 999), n=rng.randint(100, 9999),
                             p=rng.randint(2000, 90000), u=rng.randint(1, 9), n2=rng.randint(2, 40),
                             h=f"0x{rng.randint(1, 4095):04x}"), rng.uniform(5, 60))

    def boot() -> None:
        up[0] = 0.0
        for i, text in enumerate(_BOOT_LINES):
            line(text, 0.000001 if i == 0 else rng.uniform(0.01, 0.9))

    boot()
    noise(4300)
    line("pcieport 0000:40:01.1: AER: Corrected error received: 0000:41:00.0", 3)
    line("nvidia 0000:41:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)", 0)
    line("nvidia 0000:41:00.0:   device [10de:2204] error status/mask=00000001/0000e000", 0)
    line("nvidia 0000:41:00.0:    [ 0] RxErr                  (First)", 0)
    noise(40)
    line("NVRM: GPU at PCI:0000:41:00: GPU-6a0e4c91-2b7d-48f3-9e15-c0d8a7b3f264", 2)
    line("NVRM: GPU Board Serial Number: ", 0)
    line("NVRM: Xid (PCI:0000:41:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", 0)
    line("NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.", 0)
    line("NVRM: A GPU crash dump has been created. If possible, please run", 0)
    line("NVRM: nvidia-bug-report.sh as root to collect this data before", 0)
    line("NVRM: the NVIDIA kernel module is unloaded.", 0)
    for _ in range(6):
        line(f"NVRM: Xid (PCI:0000:41:00): 45, pid={rng.randint(10000, 99999)}, name=python3, Ch 0000000{rng.randint(0, 9)}", rng.uniform(0, 2))
    noise(30)
    t[0] += 3600
    boot()
    noise(3900)
    return "linux-long-kern-log-xid79.log", "\n".join(out) + "\n"


def long_journal_api_mismatch() -> tuple[str, str]:
    """`journalctl -b` of a server after unattended-upgrades replaced the NVIDIA user-space
    libraries, ~5,200 lines; the kernel's API-mismatch message appears once."""
    rng = random.Random(550144)
    out: list[str] = ["-- Logs begin at Mon 2025-01-20 06:12:31 UTC, end at Wed 2025-01-29 07:02:10 UTC. --"]
    t = [6 * 3600 + 12 * 60 + 40]
    day = [28]

    def line(unit: str, text: str, adv: int) -> None:
        t[0] += adv
        if t[0] >= 86400:
            t[0] -= 86400
            day[0] += 1
        hh, rem = divmod(t[0], 3600)
        mm, ss = divmod(rem, 60)
        out.append(f"Jan {day[0]} {hh:02d}:{mm:02d}:{ss:02d} gpu-srv-03 {unit}: {text}")

    svc_lines = [
        ("sshd[{p}]", "Accepted publickey for deploy from 10.8.0.{a} port {port} ssh2: ED25519 SHA256:Qm3f8a1nV0cJ2x7rT9yKpL4sW6uE5dH1bZ0oG8iN2vA"),
        ("sshd[{p}]", "pam_unix(sshd:session): session opened for user deploy(uid=1001) by (uid=0)"),
        ("systemd-logind[911]", "New session {s} of user deploy."),
        ("systemd-logind[911]", "Session {s} logged out. Waiting for processes to exit."),
        ("CRON[{p}]", "(root) CMD (/usr/local/bin/node_exporter_textfile.sh >/dev/null 2>&1)"),
        ("dcgm-exporter[1522]", "time=\"2025-01-{d}T{hh}:{mm}:00Z\" level=info msg=\"Collecting metrics\" count=42"),
        ("dockerd[1288]", "time=\"2025-01-{d}T{hh}:{mm}:{ss}.{ms}Z\" level=info msg=\"ignoring event\" container={cid} module=libcontainerd namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\""),
        ("systemd[1]", "Started session-{s}.scope - Session {s} of User deploy."),
        ("systemd[1]", "run-docker-runtime\\x2drunc-moby-{cid}-runc.{r}.mount: Deactivated successfully."),
        ("kernel", "docker0: port 1(veth{v}) entered forwarding state"),
        ("kernel", "eth0: renamed from veth{v}"),
    ]

    def noise(count: int) -> None:
        for _ in range(count):
            unit, text = rng.choice(svc_lines)
            hh, rem = divmod(t[0], 3600)
            line(unit.format(p=rng.randint(20000, 99999)),
                 text.format(d=day[0], p=rng.randint(20000, 99999), a=rng.randint(2, 40), port=rng.randint(30000, 65000),
                             s=rng.randint(100, 999), hh=f"{hh:02d}", mm=f"{rem // 60:02d}", ss=f"{rem % 60:02d}",
                             ms=rng.randint(100000000, 999999999), cid="".join(rng.choice("0123456789abcdef") for _ in range(64)),
                             r=rng.choice("ABCDEFGHabcdefgh") * 1 + str(rng.randint(1000, 9999)), v=f"{rng.randint(0, 0xffffff):06x}"),
                 rng.randint(1, 50))

    noise(2400)
    line("systemd[1]", "Starting apt-daily-upgrade.service - Daily apt upgrade and clean activities...", 30)
    line("kernel", "audit: type=1400 audit(1738045832.411:611): apparmor=\"STATUS\" operation=\"profile_replace\" profile=\"unconfined\" name=\"nvidia_modprobe\" pid=2044718 comm=\"apparmor_parser\"", 40)
    line("systemd[1]", "apt-daily-upgrade.service: Deactivated successfully.", 38)
    line("systemd[1]", "Finished apt-daily-upgrade.service - Daily apt upgrade and clean activities.", 0)
    noise(300)
    line("kernel", "NVRM: API mismatch: the client has the version 550.144.03, but", 20)
    line("kernel", "NVRM: this kernel module has the version 550.127.05.  Please", 0)
    line("kernel", "NVRM: make sure that this kernel module and all NVIDIA driver", 0)
    line("kernel", "NVRM: components have the same version.", 0)
    hh, rem = divmod(t[0] + 1, 3600)
    line("dcgm-exporter[1522]", f"time=\"2025-01-{day[0]}T{hh:02d}:{rem // 60:02d}:{rem % 60:02d}Z\" level=error msg=\"Failed to collect metrics\" error=\"error getting device count: RM has detected an NVML/RM version mismatch.\"", 1)
    noise(2450)
    return "linux-long-journal-api-mismatch.log", "\n".join(out) + "\n"


def long_whisper_batch_oom() -> tuple[str, str]:
    """A faster-whisper batch job over many recordings, ~3,600 lines of segments; CTranslate2
    runs out of GPU memory on file 37 of 41 (a second job had started on the same GPU)."""
    rng = random.Random(37)
    words = ("the model budget meeting quarter results customer feedback release schedule team "
             "agenda update question answer project risk timeline design review next steps "
             "thank you everyone okay so let's start with the numbers from last week").split()
    out: list[str] = ["$ python3 batch_transcribe.py /srv/recordings/2024-10 --model large-v3 --batch-size 16 --out /srv/transcripts"]
    out.append("2024-10-31 22:00:03,118 INFO faster-whisper 1.0.3 (ctranslate2 4.4.0), device cuda:0 NVIDIA L4, compute_type float16")
    for f in range(1, 42):
        dur = rng.randint(600, 3600)
        name = f"/srv/recordings/2024-10/call_{f:03d}.wav"
        out.append(f"2024-10-31 22:{(f * 3) % 60:02d}:{rng.randint(0, 59):02d},{rng.randint(0, 999):03d} INFO [{f}/41] {name} ({dur // 60:d}:{dur % 60:02d})")
        if f == 37:
            out += [
                "Traceback (most recent call last):",
                '  File "/opt/asr/batch_transcribe.py", line 97, in <module>',
                "    main()",
                '  File "/opt/asr/batch_transcribe.py", line 81, in main',
                "    segments = list(pipeline.transcribe(path, batch_size=args.batch_size))",
                '  File "/opt/asr/.venv/lib/python3.10/site-packages/faster_whisper/transcribe.py", line 508, in transcribe',
                "    for segment in segments:",
                '  File "/opt/asr/.venv/lib/python3.10/site-packages/faster_whisper/transcribe.py", line 120, in forward',
                "    encoder_output, outputs = self.generate_segment_batched(",
                '  File "/opt/asr/.venv/lib/python3.10/site-packages/faster_whisper/transcribe.py", line 214, in generate_segment_batched',
                "    encoder_output = self.model.encode(features)",
                "RuntimeError: CUDA failed with error out of memory",
            ]
            break
        pos = 0.0
        n = 0
        while pos < dur and n < 95:
            seg = rng.uniform(2.0, 9.5)
            text = " ".join(rng.choice(words) for _ in range(rng.randint(5, 16)))
            a, b = pos, min(dur, pos + seg)
            out.append(f"[{int(a // 60):02d}:{a % 60:06.3f} --> {int(b // 60):02d}:{b % 60:06.3f}]  {text[0].upper()}{text[1:]}.")
            pos = b + rng.uniform(0.0, 1.5)
            n += 1
        out.append(f"2024-10-31 22:{(f * 3 + 2) % 60:02d}:{rng.randint(0, 59):02d},{rng.randint(0, 999):03d} INFO wrote /srv/transcripts/call_{f:03d}.srt ({n} segments, RTF {rng.uniform(0.03, 0.06):.3f})")
    return "linux-long-faster-whisper-batch-oom.log", "\n".join(out) + "\n"


LONG: list[Callable[[], tuple[str, str]]] = [
    long_keras_oom,
    long_windows_pagefile,
    long_kern_log_xid79,
    long_journal_api_mismatch,
    long_whisper_batch_oom,
]


def outputs() -> dict[str, bytes]:
    result: dict[str, bytes] = {}
    for source, target, encoding, newline, bom in ENCODED:
        text = (SOURCES / source).read_text(encoding="utf-8")
        result[target] = encode_text(text, encoding, newline, bom)
    for make in LONG:
        name, text = make()
        data = text.encode("utf-8")  # long logs are already in their final line endings
        lines = text.count("\n")
        if not 3000 <= lines <= 20000:
            raise SystemExit(f"{name}: {lines} lines, expected 3,000-20,000")
        if len(data) > MAX_LONG_BYTES:
            raise SystemExit(f"{name}: {len(data)} bytes, over {MAX_LONG_BYTES}")
        result[name] = data
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = parser.parse_args()
    stale = []
    for name, data in outputs().items():
        path = CASES / name
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
            print(f"wrote cases/{name} ({len(data)} bytes)")
    if stale:
        print("out of date (run make_encoded_cases.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
