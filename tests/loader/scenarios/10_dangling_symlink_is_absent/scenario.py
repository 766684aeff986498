"""A dangling symlink is no library: the loader's open() fails with ENOENT and the search goes on.

LD_LIBRARY_PATH is /opt/a:/opt/b. /opt/a/libcudnn.so.9 points at libcudnn.so.9.1.0, which was
deleted (a half-removed tarball install); /opt/b holds a real libcudnn.so.9. glibc loads
/opt/b's, and so must the model, calling the link absent."""

ENV = {"LD_LIBRARY_PATH": "/opt/a:/opt/b"}


def build(t):
    t.debian_base()
    t.symlink("/opt/a/libcudnn.so.9", "libcudnn.so.9.1.0")
    t.elf_lib("/opt/b/libcudnn.so.9", "libcudnn.so.9")
    t.elf_lib("/opt/app/lib/libapp.so", "libapp.so", needed=["libcudnn.so.9"])


CASES = [
    {"name": "libcudnn.so.9", "found": "/opt/b/libcudnn.so.9", "via": "LD_LIBRARY_PATH",
     "considered_contains": [{"path": "/opt/a/libcudnn.so.9", "outcome": "absent"},
                             {"path": "/opt/b/libcudnn.so.9", "outcome": "found"}],
     "shadowed": [], "real": True},
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/lib/libapp.so"],
     "found": "/opt/b/libcudnn.so.9", "via": "LD_LIBRARY_PATH", "real": True},
]
