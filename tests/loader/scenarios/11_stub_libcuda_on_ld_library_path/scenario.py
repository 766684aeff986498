"""The CUDA toolkit's stub libcuda on LD_LIBRARY_PATH shadows the driver's libcuda.so.1.

CUDA 12.4 at /usr/local/cuda-12.4 ships lib64/stubs/libcuda.so (SONAME libcuda.so.1, a
link-time stand-in); a container recipe added the link stubs/libcuda.so.1 -> libcuda.so and put
the stubs directory first on LD_LIBRARY_PATH. The driver 550.54.15 is loaded and its library is
/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 with the libcuda.so.1 link. Every dlopen of
libcuda.so.1 gets the stub (LD_LIBRARY_PATH comes before the default directories): check must
report loader.stub_libcuda and name the driver's own copy as later in the order."""

STUBS = "/usr/local/cuda-12.4/lib64/stubs"
ENV = {"LD_LIBRARY_PATH": f"{STUBS}:/usr/local/cuda-12.4/lib64"}


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.cuda_toolkit("/usr/local/cuda-12.4")
    t.elf_lib("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so", "libcuda.so.1", pad=11)
    t.symlink("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so.1", "libcuda.so")
    t.nvidia_gpu("0000:01:00.0", 0x2684, 0x22ba)
    t.nvidia_proc_version("550.54.15")
    t.proc_modules("nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia", "ext4")
    d = "/usr/lib/x86_64-linux-gnu"
    t.elf_lib(f"{d}/libcuda.so.550.54.15", "libcuda.so.1", pad=12)
    t.symlink(f"{d}/libcuda.so.1", "libcuda.so.550.54.15")


CASES = [
    {"name": "libcuda.so.1", "found": f"{STUBS}/libcuda.so.1", "via": "LD_LIBRARY_PATH",
     "real_path": "/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so",
     "shadowed": ["/usr/lib/x86_64-linux-gnu/libcuda.so.1"], "real": True},
    {"name": "libcuda.so", "found": f"{STUBS}/libcuda.so", "via": "LD_LIBRARY_PATH"},
]
CHECK = {
    "ids": ["loader.stub_libcuda"],
    "absent": ["loader.libcuda_not_found"],
    "severity": {"loader.stub_libcuda": "error"},
    "message_contains": {"loader.stub_libcuda": [
        f"{STUBS}/libcuda.so.1",
        "The driver's own library is there too (/usr/lib/x86_64-linux-gnu/libcuda.so.1), later in the order"]},
}
