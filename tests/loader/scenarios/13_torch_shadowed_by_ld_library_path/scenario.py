"""LD_LIBRARY_PATH shadows the cuDNN that torch's wheel ships.

/home/user/venv holds torch 2.3.1+cu121, whose torch/lib/libtorch_cuda.so needs libcudnn.so.9
with RUNPATH $ORIGIN/../../nvidia/cudnn/lib (older torch wheels used RUNPATH), and the
nvidia-cudnn-cu12 9.1.0.70 wheel (soname-only files, a RECORD with their hashes). The shell also
has LD_LIBRARY_PATH=/opt/cudnn-9.0/lib, an older cuDNN 9.0.0 tarball. glibc searches
LD_LIBRARY_PATH before the RUNPATH, so torch gets 9.0.0: check must report loader.shadowed_copy,
as an error because the versions differ."""

VENV = "/home/user/venv"
SITE = f"{VENV}/lib/python3.10/site-packages"
OLD = "/opt/cudnn-9.0/lib"
ENV = {
    "HOME": "/home/user",
    "PATH": f"{VENV}/bin:/usr/bin:/bin",
    "VIRTUAL_ENV": VENV,
    "LD_LIBRARY_PATH": OLD,
}


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.elf_program("/usr/bin/python3.10")  # a real ELF, as the loader walk reads the interpreter
    t.symlink("/usr/bin/python3", "python3.10")
    site = t.venv(VENV, "3.10.12")
    assert site == SITE
    t.torch_wheel(site, runpath=["$ORIGIN/../../nvidia/cudnn/lib"],
                  requires=['nvidia-cudnn-cu12 (==9.1.0.70) ; platform_system == "Linux"'])
    t.cudnn_wheel(site, "9.1.0.70")
    t.cudnn_header("/opt/cudnn-9.0/include/cudnn_version.h", "9.0.0")
    t.cudnn_copy(OLD, "9.0.0", t.CUDNN9_STEMS, dispatcher_runpath=["$ORIGIN"], pad_base=7)


CASES = [
    {"name": "libcudnn.so.9", "args": ["--python", VENV],
     "requested_by": f"{SITE}/torch/lib/libtorch_cuda.so",
     "found": f"{OLD}/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "shadowed": [f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"]},
]
CHECK = {
    "ids": ["loader.shadowed_copy"],
    "severity": {"loader.shadowed_copy": "error"},
    "message_contains": {"loader.shadowed_copy": [
        f"would load libcudnn.so.9 from {OLD}/libcudnn.so.9 (9.0.0, found through LD_LIBRARY_PATH)",
        f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9 (9.1.0"]},
}
