#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Input that `explain` must scan: logs that repeat one error millions of times, and GBK logs
with UTF-8 lines in them."""
import json
import os

import hostile as x
from hostile import expect, test

# A real TensorFlow line (tests/explain/cases/linux-colab-tf-cudnn-runtime-older.log).
TF_LINE = ("2023-06-20 14:04:14.551238: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:439]"
           " Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library"
           " needs to have matching major version and equal or higher minor version. If using a"
           " binary install, upgrade your CuDNN library.  If building from sources, make sure the"
           " library loaded at runtime is compatible with the version specified during compile"
           " configuration.\n")


@test
def one_error_repeated_is_scanned_at_the_speed_of_plain_text():
    """300 MB of one repeated line. A scanner that confirms every line again (2 MB/s under
    AddressSanitizer, about 150 s here) cannot meet the limit; one that reuses the result of a
    line it has just matched (33 MB/s sanitized, about 9 s of CPU) meets it ten times over. The
    bound is the harness's wall-clock limit, not a timing assertion."""
    with x.tree() as root:
        path = os.path.join(root, "train.log")
        count = (300 << 20) // len(TF_LINE)
        with open(path, "w") as f:
            block = TF_LINE * 1000
            for _ in range(count // 1000):
                f.write(block)
        count -= count % 1000
        r = x.run(["explain", "--no-machine", "--format", "json", path], timeout=100, rss_mb=100)
        x.expect_no_internal_error(r)
        doc = json.loads(r.out)
        expect(doc["inputs"][0]["lines"] == count, doc["inputs"])
        causes = doc["causes"]
        expect([c["id"] for c in causes] == ["log.cudnn_version_mismatch"], causes)
        expect(causes[0]["matches"] == count, causes[0]["matches"])
        expect(causes[0]["fields"] == {"found": "8.6.0", "expected": "8.9.4"}, causes[0]["fields"])
        expect([e["line"] for e in causes[0]["evidence"]][:2] == [1, 2], causes[0]["evidence"])


@test
def utf8_line_in_a_gbk_log_keeps_its_first_letter():
    """A GBK log (Windows, Chinese locale) with a line that is UTF-8: read as GBK, the last byte
    of '：' would take the 'C' of 'Could' with it and the signature would not match."""
    gbk = "OSError: [WinError 126] 找不到指定的模块。\r\n".encode("gbk")
    utf8_line = "错误：Could not load library cudnn_ops64_9.dll. Error code 126\r\n"
    with x.tree() as root:
        path = x.write(os.path.join(root, "paste.txt"), gbk * 20 + utf8_line.encode() + gbk)
        r = x.run(["explain", "--no-machine", "--format", "json", path], timeout=30)
        x.expect_no_internal_error(r)
        doc = json.loads(r.out)
        expect(doc["inputs"][0]["encoding"] == "gbk", doc["inputs"])
        expect(doc["inputs"][0]["replacements"] == 0, doc["inputs"])
        found = {c["id"]: c for c in doc["causes"]}
        expect("log.cudnn_dependency_missing" in found, list(found))
        evidence = [e["text"] for e in found["log.cudnn_dependency_missing"]["evidence"]]
        expect(evidence == [utf8_line.rstrip("\r\n")], evidence)


@test
def a_device_named_as_a_log_is_refused_not_read_forever():
    # /dev/zero never ends and /dev/tty would wait for a keyboard: neither is a log.
    r = x.run(["explain", "--no-machine", "/dev/zero"], timeout=30, rss_mb=400)
    x.expect_usage_error(r, "/dev/zero: is a character device, not a regular file")


@test
def a_socket_named_as_a_log_is_refused():
    import socket
    with x.tree() as root:
        path = os.path.join(root, "train.log")
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        try:
            r = x.run(["explain", "--no-machine", path], timeout=30)
        finally:
            s.close()
        x.expect_usage_error(r, "is a socket, not a regular file")


@test
def a_pipe_the_user_names_is_read_as_a_stream():
    # `explain <(python train.py 2>&1)`: the user asked for the pipe, so it is read to its end,
    # as standard input is.
    import threading
    with x.tree() as root:
        path = x.fifo(os.path.join(root, "train.fifo"))

        def writer():
            with open(path, "w") as f:
                f.write("Could not load library libcudnn_cnn_infer.so.8. Error: "
                        "libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n")
        t = threading.Thread(target=writer)
        t.start()
        r = x.run(["explain", "--no-machine", "--format", "json", path], timeout=60)
        t.join(10)
        x.expect_exit(r, 0)
        doc = r.json()
        expect(doc["causes"], doc)


if __name__ == "__main__":
    x.main()
