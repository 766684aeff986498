"""torch whose cuDNN wheel is gone: nothing on the search path holds libcudnn.so.9.

/home/user/venv holds torch 2.3.1+cu121 with libtorch_cuda.so needing libcudnn.so.9 through
RUNPATH $ORIGIN/../../nvidia/cudnn/lib, but site-packages/nvidia/cudnn/lib does not exist (the
nvidia-cudnn-cu12 wheel was uninstalled). No LD_LIBRARY_PATH, no cache entry, nothing in the
default directories: glibc fails with "libcudnn.so.9: cannot open shared object file", and check
must report loader.cudnn_not_found, with the reinstall command for torch through the venv's own
interpreter. With a directory on LD_LIBRARY_PATH whose libcudnn.so.9 is no ELF file (an HTML
error page saved under that name), dlopen fails there instead: the finding must say where the
loader stops and why."""

VENV = "/home/user/venv"
SITE = f"{VENV}/lib/python3.10/site-packages"
ENV = {"HOME": "/home/user", "PATH": f"{VENV}/bin:/usr/bin:/bin", "VIRTUAL_ENV": VENV}


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.elf_program("/usr/bin/python3.10")  # a real ELF, as the loader walk reads the interpreter
    t.symlink("/usr/bin/python3", "python3.10")
    site = t.venv(VENV, "3.10.12")
    assert site == SITE
    t.torch_wheel(site, runpath=["$ORIGIN/../../nvidia/cudnn/lib"],
                  requires=['nvidia-cudnn-cu12 (==9.1.0.70) ; platform_system == "Linux"'])
    t.text("/opt/broken/libcudnn.so.9", "<html><body>404 Not Found</body></html>\n" * 4)


CASES = [
    {"name": "libcudnn.so.9", "args": ["--python", VENV], "found": None, "exit": 1,
     "considered_contains": [{"path": f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9", "via": "runpath",
                              "outcome": "absent"}]},
]
CHECK = [
    {"ids": ["loader.cudnn_not_found"],
     "absent": ["loader.shadowed_copy"],
     "message_contains": {"loader.cudnn_not_found": [
         "cannot load libcudnn.so.9", f"asks for it from {SITE}/torch/lib/libtorch_cuda.so",
         "none of the", "paths the loader searches holds a loadable copy"]},
     "fix_commands": {"loader.cudnn_not_found": [f"{VENV}/bin/python -m pip install --force-reinstall torch"]}},
    {"env": {"LD_LIBRARY_PATH": "/opt/broken"},
     "ids": ["loader.cudnn_not_found"],
     "message_contains": {"loader.cudnn_not_found": [
         "the loader stops at /opt/broken/libcudnn.so.9: invalid ELF header, so dlopen fails there"]}},
]
