"""LD_LIBRARY_PATH splits a cuDNN set: the dispatcher's RUNPATH $ORIGIN comes after it.

cuDNN 9.1.0 is installed into the CUDA 12.4 toolkit (the tarball's versioned files in
targets/x86_64-linux/lib, the dispatcher libcudnn.so.9 linked with RUNPATH $ORIGIN as NVIDIA
ships it). An older cuDNN 9.0.0 tarball sits in /opt/cudnn-9.0/lib, which is on
LD_LIBRARY_PATH. When a program loads the toolkit's dispatcher (by path, or through RPATH),
the sub-libraries it dlopen()s by soname come from LD_LIBRARY_PATH first: 9.0.0 sub-libraries
under a 9.1.0 dispatcher. check must report loader.cudnn_set_split naming the sub-libraries
and 9.0.0."""

TK = "/usr/local/cuda-12.4"
LIB = f"{TK}/targets/x86_64-linux/lib"
OLD = "/opt/cudnn-9.0/lib"
ENV = {"LD_LIBRARY_PATH": OLD}


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.cuda_toolkit(TK)
    t.cudnn_header(f"{TK}/targets/x86_64-linux/include/cudnn_version.h", "9.1.0")
    t.cudnn_copy(LIB, "9.1.0", t.CUDNN9_STEMS, dispatcher_runpath=["$ORIGIN"])
    t.cudnn_header("/opt/cudnn-9.0/include/cudnn_version.h", "9.0.0")
    t.cudnn_copy(OLD, "9.0.0", t.CUDNN9_STEMS, dispatcher_runpath=["$ORIGIN"], pad_base=7)


CASES = [
    {"name": "libcudnn_ops.so.9", "args": ["--from", f"{LIB}/libcudnn.so.9"],
     "found": f"{OLD}/libcudnn_ops.so.9", "via": "LD_LIBRARY_PATH", "real_path": f"{OLD}/libcudnn_ops.so.9.0.0",
     "shadowed": [f"{LIB}/libcudnn_ops.so.9"],
     "considered_contains": [{"path": f"{LIB}/libcudnn_ops.so.9", "via": "runpath"}]},
]
CHECK = {
    "ids": ["loader.cudnn_set_split"],
    "message_contains": {"loader.cudnn_set_split": [
        f"{LIB}/libcudnn.so.9 (9.1.0)", "libcudnn_adv.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9",
        f"from {OLD} (9.0.0, through LD_LIBRARY_PATH)"]},
}
