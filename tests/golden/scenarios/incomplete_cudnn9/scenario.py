"""A cuDNN 9.1.0 tarball unpacked to /opt with its largest library missing.

Ubuntu 22.04 server with an A100 on the 550 driver. The user downloaded
cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz, unpacked it as /opt/cudnn-9.1.0 (include/ with
cudnn_version.h, lib/ with libcudnn*.so.9.1.0, their .so.9 soname links and .so dev links) and put
/opt/cudnn-9.1.0/lib on LD_LIBRARY_PATH. The copy to this machine ran out of disk space on the
biggest file, so libcudnn_engines_precompiled.so.9.1.0 (and its links) never arrived; the seven
other libraries are there.

Expected: cudnn.library_set_incomplete for /opt/cudnn-9.1.0/lib naming
libcudnn_engines_precompiled.so.9 as missing, with the installation found via LD_LIBRARY_PATH and
no package to reinstall (the fix is the archive)."""

ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LD_LIBRARY_PATH": "/opt/cudnn-9.1.0/lib",
    "HOME": "/home/user",
}
EXIT = 1


def build(t):
    t.ubuntu_base()
    t.server_bus()
    t.working_nvidia("550.54.15", gpus=(("0000:17:00.0", 0x20b0, None),))
    root = "/opt/cudnn-9.1.0"
    t.text(f"{root}/LICENSE", "LICENSE AGREEMENT FOR NVIDIA SOFTWARE DEVELOPMENT KITS\n")
    t.cudnn_header(f"{root}/include/cudnn_version.h", "9.1.0")
    stems = [s for s in t.CUDNN9_STEMS if s != "libcudnn_engines_precompiled"]
    t.cudnn_versioned(f"{root}/lib", "9.1.0", stems)
