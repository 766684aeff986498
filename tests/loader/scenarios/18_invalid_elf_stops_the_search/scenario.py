"""A file that is not ELF at all, met on the search path, ends the search with an error.

glibc's open_verify treats a wrong ELF class or machine as "try the next directory", but a file
too short for an ELF header or with an invalid one as fatal: dlopen fails with "invalid ELF
header" / "file too short" even when a good copy comes later (checked on glibc 2.36).
LD_LIBRARY_PATH=/opt/a:/opt/b: /opt/a/libcudnn.so.9 is a Git LFS pointer (a repository checked
out without git-lfs), /opt/a/libcudnn_ops.so.9 an empty file (an interrupted copy), and /opt/b
holds good copies of both."""

ENV = {"LD_LIBRARY_PATH": "/opt/a:/opt/b"}


def build(t):
    t.debian_base()
    t.mkdir("/lib/x86_64-linux-gnu")
    t.text("/opt/a/libcudnn.so.9",
           "version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:4d7a8f1e0c3b2a59687d5e4f3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a09\n"
           "size 1048576\n", 0o755)
    t.text("/opt/a/libcudnn_ops.so.9", "", 0o755)
    t.elf_lib("/opt/b/libcudnn.so.9", "libcudnn.so.9")
    t.elf_lib("/opt/b/libcudnn_ops.so.9", "libcudnn_ops.so.9")


CASES = [
    {"name": "libcudnn.so.9", "found": None, "exit": 1, "real": True,
     "shadowed": ["/opt/b/libcudnn.so.9"],
     "considered_contains": [{"path": "/opt/a/libcudnn.so.9", "outcome": "invalid ELF header"}],
     "text_contains": ["libcudnn.so.9 => fails: /opt/a/libcudnn.so.9: invalid ELF header"]},
    {"name": "libcudnn_ops.so.9", "found": None, "exit": 1, "real": True,
     "considered_contains": [{"path": "/opt/a/libcudnn_ops.so.9", "outcome": "file too short"}],
     "text_contains": ["libcudnn_ops.so.9 => fails: /opt/a/libcudnn_ops.so.9: file too short"]},
]
