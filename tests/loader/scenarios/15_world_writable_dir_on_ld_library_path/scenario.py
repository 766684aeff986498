"""A directory anyone can write to, first on LD_LIBRARY_PATH, decides what programs load.

LD_LIBRARY_PATH=/opt/shared:/usr/local/cuda-12.4/lib64 where /opt/shared has mode 0777 (someone
"fixed" a permission problem) and the toolkit directory 0755. Whoever drops a libcudnn.so.9
into /opt/shared wins every search (LD_LIBRARY_PATH comes before RUNPATH, the cache and the
default directories; a sticky bit would not help: it only protects existing files). check must
report security.writable_search_dir for /opt/shared, entry 1, and not for the toolkit, also when
the entries are separated by ';', which glibc accepts too."""

import os

ENV = {"LD_LIBRARY_PATH": "/opt/shared:/usr/local/cuda-12.4/lib64"}


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.cuda_toolkit("/usr/local/cuda-12.4")
    t.mkdir("/opt/shared")
    os.chmod(t.path("/opt/shared"), 0o777)
    os.chmod(t.path("/usr/local/cuda-12.4/targets/x86_64-linux/lib"), 0o755)
    # What a planted copy gets: it wins over the toolkit's own libcudart.
    t.elf_lib("/opt/shared/libcudart.so.12", "libcudart.so.12", pad=9)


CASES = [
    {"name": "libcudart.so.12", "found": "/opt/shared/libcudart.so.12", "via": "LD_LIBRARY_PATH",
     "shadowed": ["/usr/local/cuda-12.4/lib64/libcudart.so.12"], "real": True},
]
CHECK = [
    {"ids": ["security.writable_search_dir"],
     "message_contains": {"security.writable_search_dir": [
         "/opt/shared (mode 0777) is entry 1 of LD_LIBRARY_PATH"]},
     "absent_subjects": {"security.writable_search_dir": [
         "/usr/local/cuda-12.4/lib64", "/usr/local/cuda-12.4/targets/x86_64-linux/lib"]}},
    # glibc splits LD_LIBRARY_PATH at ';' as well as ':' (checked on glibc 2.36), and so does the
    # resolver; the planting check must too.
    {"env": {"LD_LIBRARY_PATH": "/usr/local/cuda-12.4/lib64;/opt/shared"},
     "ids": ["security.writable_search_dir"],
     "message_contains": {"security.writable_search_dir": [
         "/opt/shared (mode 0777) is entry 2 of LD_LIBRARY_PATH"]}},
]
