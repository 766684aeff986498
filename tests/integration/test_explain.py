# SPDX-License-Identifier: MIT
"""`cudnn-doctor explain` as a user runs it: files, standard input, pasted text, the formats, the
usage errors, and the join with the real machine (its CUDA 13 toolkit and cuDNN 9)."""
import json
import os
import subprocess
import tempfile

import harness as h
from harness import expect, expect_contains, expect_exit, run, test

# The root cause (line 2) and a failure it explains (line 3): torch's message for the cuDNN
# sub-library names no dependency, so it is a consequence of the missing zlibwapi.dll.
TORCH_CNN_126 = ('OSError: [WinError 126] The specified module could not be found. Error loading '
                 '"C:\\venv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of '
                 'its dependencies.\n')
ZLIB_LOG = ("2023-01-12 10:01:02 I Loaded cuDNN version 8600\n"
            "Could not locate zlibwapi.dll. Please make sure it is in your library path!\n"
            + TORCH_CNN_126)


def write(text, encoding="utf-8", suffix=".log"):
    f = tempfile.NamedTemporaryFile("wb", suffix=suffix, delete=False)
    f.write(text.encode(encoding))
    f.close()
    return f.name


@test
def file_gives_root_cause_with_consequence_and_line_numbers():
    r = run(["explain", "--no-machine", "--format", "json", write(ZLIB_LOG)])
    expect_exit(r, 0)
    doc = r.json()
    expect(doc["schema"] == "cudnn-doctor-explain/1", doc["schema"])
    first = doc["causes"][0]
    expect(first["id"] == "log.zlibwapi_missing", first["id"])
    expect(first["cause_class"] == "library_missing.zlib", first["cause_class"])
    expect(first["evidence"][0]["line"] == 2, first["evidence"])
    expect([c["cause_class"] for c in first["consequences"]] == ["library_missing.cudnn_sublibrary"],
           first["consequences"])
    expect(doc["log_platform"] == "windows", doc["log_platform"])
    expect(doc["machine"]["joined"] is False, doc["machine"])
    expect(len(doc["causes"]) == 1, doc["causes"])


@test
def utf16_from_stdin_is_decoded():
    data = ("\ufeff" + ZLIB_LOG.replace("\n", "\r\n")).encode("utf-16-le")
    p = subprocess.run([h.EXE, "explain", "--no-machine", "--format", "json", "-"], input=data,
                       capture_output=True)
    expect(p.returncode == 0, p.stderr)
    doc = json.loads(p.stdout)
    expect(doc["inputs"][0]["name"] == "<stdin>", doc["inputs"])
    expect(doc["inputs"][0]["encoding"] == "utf-16le", doc["inputs"])
    expect(doc["inputs"][0]["crlf"] is True, doc["inputs"])
    expect(doc["causes"][0]["id"] == "log.zlibwapi_missing", doc["causes"])


@test
def pasted_text_is_explained_and_text_output_has_the_parts():
    r = run(["explain", "--no-machine", "--color", "never",
             "RuntimeError: CUDA error: no kernel image is available for execution on the device"])
    expect_exit(r, 0)
    expect_contains(r.out, "<argument>:1")
    expect_contains(r.out, "log.gpu_arch_not_in_build")
    expect_contains(r.out, "Evidence")
    expect_contains(r.out, "Fix")


@test
def noise_alone_is_no_cause():
    log = write("2024-02-01 10:00:00.1: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261]"
                " Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN"
                " when one has already been registered\n"
                "2024-02-01 10:00:00.2: I tensorflow/core/util/port.cc:113] oneDNN custom operations"
                " are on. You may see slightly different numerical results due to floating-point"
                " round-off errors from different computation orders.\n")
    r = run(["explain", "--no-machine", "--format", "json", log])
    expect_exit(r, 0)
    doc = r.json()
    expect(doc["causes"] == [], doc["causes"])
    expect(len(doc["noise"]) == 2, doc["noise"])
    r = run(["explain", "--no-machine", "--color", "never", log])
    expect_contains(r.out, "no known cause found")
    expect_contains(r.out, "known harmless")


@test
def markdown_output():
    r = run(["explain", "--no-machine", "--format", "markdown", write(ZLIB_LOG)])
    expect_exit(r, 0)
    expect_contains(r.out, "### cudnn-doctor")
    expect_contains(r.out, "`log.zlibwapi_missing`")


@test
def usage_errors():
    r = run(["explain"])
    expect_exit(r, 2)
    expect_contains(r.err, "explain needs a log file")
    r = run(["explain", "no-such-file.log"])
    expect_exit(r, 2)
    expect_contains(r.err, "no such file")
    r = run(["explain", tempfile.mkdtemp()])
    expect_exit(r, 2)
    expect_contains(r.err, "is a directory")
    r = run(["explain", "--no-machine", "--snapshot", "x.json", "some error text"])
    expect_exit(r, 2)
    r = run(["explain", "--snapshot", "-", "-"], stdin="")
    expect_exit(r, 2)
    expect_contains(r.err, "both the log and the snapshot")


@test
def several_inputs_are_explained_together():
    a = write("Could not locate zlibwapi.dll. Please make sure it is in your library path!\n")
    b = write("noise\n" + TORCH_CNN_126)
    r = run(["explain", "--no-machine", "--format", "json", a, b])
    expect_exit(r, 0)
    doc = r.json()
    expect(len(doc["inputs"]) == 2, doc["inputs"])
    first = doc["causes"][0]
    expect(first["id"] == "log.zlibwapi_missing", first)
    ev = first["consequences"][0]["evidence"][0]
    expect(ev["input"] == b and ev["line"] == 2, ev)
    # cuDNN's own message for a cnn sub-library of cuDNN 8.3 or later is itself read as the missing
    # zlibwapi.dll: its line is evidence of that cause, from the other input.
    c = write("noise\nCould not load library cudnn_cnn_infer64_8.dll. Error code 126\n")
    r = run(["explain", "--no-machine", "--format", "json", a, c])
    first = r.json()["causes"][0]
    expect(first["id"] == "log.zlibwapi_missing", first)
    expect({(e["input"], e["line"]) for e in first["evidence"]} == {(a, 1), (c, 2)},
           first["evidence"])


@test
def joined_with_this_machine():
    if not os.path.exists("/usr/local/cuda/lib64/libcudnn.so.9"):
        print("  (no cuDNN 9 in /usr/local/cuda: machine join part skipped)")
        return
    r = run(["explain", "--format", "json", "--no-nvml",
             "OSError: libcudnn.so.9: cannot open shared object file: No such file or directory"])
    expect_exit(r, 0)
    doc = r.json()
    expect(doc["machine"]["joined"] is True, doc["machine"])
    notes = " ".join(n["text"] for n in doc["causes"][0]["machine"])
    expect_contains(notes, "libcudnn.so.9 is found")
    expect_contains(notes, "ld.so.cache")


@test
def snapshot_of_another_machine():
    snap = os.path.join(h.SOURCE, "tests", "golden", "snapshots", "no_gpu_machine.json")
    r = run(["explain", "--format", "json", "--snapshot", snap,
             "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an"
             " NVIDIA GPU and installed a driver"])
    expect_exit(r, 0)
    doc = r.json()
    expect(doc["machine"]["detail"] == f"snapshot {snap}", doc["machine"])
    expect(doc["causes"][0]["cause_class"] == "driver.not_loaded", doc["causes"][0])


if __name__ == "__main__":
    h.main()
