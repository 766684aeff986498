"""A caller with DT_RUNPATH ignores every DT_RPATH: its own and its loaders' (the executable's).

The system Python /usr/bin/python3.10 is a real executable with DT_RPATH /opt/pylibs, where an
old libcudnn.so.9 lies. Two venvs of it: in /home/user/venv, torch's libtorch_cuda.so has
DT_RUNPATH $ORIGIN/../../nvidia/cudnn/lib and the nvidia-cudnn-cu12 wheel is installed; glibc
(dl-load.c: RPATHs are searched only `if (loader == NULL || loader->l_info[DT_RUNPATH] == NULL)`)
never looks at the interpreter's RPATH and loads the wheel's copy through RUNPATH. In
/home/user/venv2 libtorch_cuda.so has neither RPATH nor RUNPATH: the interpreter's RPATH is
inherited and /opt/pylibs wins. Checked against glibc 2.36 with an executable with RPATH that
dlopen()s a library with and without RUNPATH."""

VENV = "/home/user/venv"
VENV2 = "/home/user/venv2"
ENV = {
    "HOME": "/home/user",
    "PATH": f"{VENV}/bin:{VENV2}/bin:/usr/bin:/bin",
    "VIRTUAL_ENV": VENV,
}


def build(t):
    t.debian_base()
    t.elf_program("/usr/bin/python3.10", rpath=["/opt/pylibs"])
    t.symlink("/usr/bin/python3", "python3.10")
    t.elf_lib("/opt/pylibs/libcudnn.so.9", "libcudnn.so.9", pad=7)

    site = t.venv(VENV, "3.10.12")
    t.torch_wheel(site, runpath=["$ORIGIN/../../nvidia/cudnn/lib"])
    t.cudnn_wheel(site)

    site2 = t.venv(VENV2, "3.10.12")
    t.torch_wheel(site2)


CASES = [
    {"name": "libcudnn.so.9", "args": ["--python", VENV],
     "found": f"{VENV}/lib/python3.10/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "via": "runpath",
     "considered_contains": [{"via": "rpath", "outcome": "skipped"}],
     "considered_lacks": ["/opt/pylibs/libcudnn.so.9"],
     "shadowed": []},
    {"name": "libcudnn.so.9", "args": ["--python", VENV2],
     "found": "/opt/pylibs/libcudnn.so.9", "via": "rpath",
     "source_contains": f"RPATH of {VENV2}/bin/python3"},
]
