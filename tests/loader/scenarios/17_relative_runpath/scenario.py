"""RUNPATH entries that are relative (to the current directory of whatever program runs) or point
into a world-writable directory let others plant libraries.

A cuDNN 9.1.0 tarball in /opt/cudnn/lib (on LD_LIBRARY_PATH) was re-linked by someone:
libcudnn_graph.so.9 has RUNPATH "lib", libcudnn_ops.so.9 RUNPATH "/opt/shared" (mode 0777), and
the dispatcher keeps NVIDIA's $ORIGIN. glibc takes "lib" relative to the process's current
directory (only secure-mode processes drop such entries). check must report
security.unsafe_runpath for the two, not for $ORIGIN; resolve must list the relative entry as a
path it cannot judge."""

import os

ENV = {"LD_LIBRARY_PATH": "/opt/cudnn/lib"}
LIB = "/opt/cudnn/lib"


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.cudnn_header("/opt/cudnn/include/cudnn_version.h", "9.1.0")
    t.cudnn_copy(LIB, "9.1.0", ["libcudnn", "libcudnn_adv", "libcudnn_cnn",
                               "libcudnn_engines_precompiled", "libcudnn_engines_runtime_compiled",
                               "libcudnn_heuristic"], dispatcher_runpath=["$ORIGIN"])
    t.elf_lib(f"{LIB}/libcudnn_graph.so.9.1.0", "libcudnn_graph.so.9", needed=["libz.so.1"], runpath=["lib"])
    t.symlink(f"{LIB}/libcudnn_graph.so.9", "libcudnn_graph.so.9.1.0")
    t.elf_lib(f"{LIB}/libcudnn_ops.so.9.1.0", "libcudnn_ops.so.9", runpath=["/opt/shared"])
    t.symlink(f"{LIB}/libcudnn_ops.so.9", "libcudnn_ops.so.9.1.0")
    t.mkdir("/opt/shared")
    os.chmod(t.path("/opt/shared"), 0o777)
    t.elf_lib("/lib/x86_64-linux-gnu/libz.so.1.2.13", "libz.so.1")
    t.symlink("/lib/x86_64-linux-gnu/libz.so.1", "libz.so.1.2.13")


CASES = [
    {"name": "libz.so.1", "args": ["--from", f"{LIB}/libcudnn_graph.so.9"],
     "found": "/lib/x86_64-linux-gnu/libz.so.1", "via": "default",
     "considered_contains": [{"path": "lib", "via": "runpath", "outcome": "current directory"}]},
]
CHECK = [
    {"ids": ["security.unsafe_runpath"],
     "message_contains": {"security.unsafe_runpath": [
         f"{LIB}/libcudnn_graph.so.9.1.0 has RUNPATH entry 'lib', relative to the current directory"]},
     "absent_subjects": {"security.unsafe_runpath": [f"{LIB}/libcudnn.so.9.1.0"]}},
    {"ids": ["security.unsafe_runpath"],
     "message_contains": {"security.unsafe_runpath": [
         f"{LIB}/libcudnn_ops.so.9.1.0 has RUNPATH entry '/opt/shared', a directory any user can write to (mode 0777)"]}},
]
