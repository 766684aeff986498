"""A cuDNN 8 whose sub-libraries link cuBLAS 11, on a machine without it.

cuDNN 8.6's libcudnn_ops_infer.so.8 and libcudnn_cnn_infer.so.8 (as in nvidia-cudnn-cu11
8.6.0.163) have DT_NEEDED libcublas.so.11 and libcublasLt.so.11. A tarball of it sits in
/opt/cudnn-8.6/lib on LD_LIBRARY_PATH; no CUDA 11 cuBLAS is installed. glibc fails the whole load
of such a sub-library when a DT_NEEDED entry is missing (cuDNN prints "Could not load library
libcudnn_ops_infer.so.8. Error: libcublas.so.11: cannot open shared object file"). check must
report loader.cudnn_dependency_not_found once for the directory, naming both libraries and both
sonames; with a CUDA 11.8 lib64 holding them on LD_LIBRARY_PATH as well, nothing is reported."""

CUDNN = "/opt/cudnn-8.6/lib"
CUDA11 = "/usr/local/cuda-11.8/lib64"
NEEDS = ("libcublas.so.11", "libcublasLt.so.11")


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.cudnn_header("/opt/cudnn-8.6/include/cudnn_version.h", "8.6.0")
    for i, stem in enumerate(t.CUDNN8_STEMS):
        real = f"{stem}.so.8.6.0"
        needed = NEEDS if stem in ("libcudnn_ops_infer", "libcudnn_cnn_infer") else ()
        runpath = ("$ORIGIN",) if stem == "libcudnn" else ()
        t.elf_lib(f"{CUDNN}/{real}", f"{stem}.so.8", needed=needed, runpath=runpath, pad=i * 64)
        t.symlink(f"{CUDNN}/{stem}.so.8", real)
    t.elf_lib(f"{CUDA11}/libcublas.so.11.11.3.6", "libcublas.so.11")
    t.symlink(f"{CUDA11}/libcublas.so.11", "libcublas.so.11.11.3.6")
    t.elf_lib(f"{CUDA11}/libcublasLt.so.11.11.3.6", "libcublasLt.so.11", pad=64)
    t.symlink(f"{CUDA11}/libcublasLt.so.11", "libcublasLt.so.11.11.3.6")


ENV = {"LD_LIBRARY_PATH": CUDNN}
CASES = [
    {"name": "libcublas.so.11", "args": ["--from", f"{CUDNN}/libcudnn_ops_infer.so.8"], "found": None,
     "considered_contains": [{"path": f"{CUDNN}/libcublas.so.11", "via": "LD_LIBRARY_PATH",
                              "outcome": "absent"}]},
    {"name": "libcublas.so.11", "args": ["--from", f"{CUDNN}/libcudnn_ops_infer.so.8"],
     "env": {"LD_LIBRARY_PATH": f"{CUDNN}:{CUDA11}"},
     "found": f"{CUDA11}/libcublas.so.11", "via": "LD_LIBRARY_PATH", "real": True},
]
CHECK = [
    {"ids": ["loader.cudnn_dependency_not_found"],
     "severity": {"loader.cudnn_dependency_not_found": "warning"},
     "message_contains": {"loader.cudnn_dependency_not_found": [
         "libcudnn_cnn_infer.so.8, libcudnn_ops_infer.so.8 in /opt/cudnn-8.6/lib",
         "need libcublas.so.11, libcublasLt.so.11",
         "Error: libcublas.so.11: cannot open shared object file"]}},
    {"env": {"LD_LIBRARY_PATH": f"{CUDNN}:{CUDA11}"}, "absent": ["loader.cudnn_dependency_not_found"]},
]
