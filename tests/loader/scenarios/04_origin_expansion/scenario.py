"""$ORIGIN and ${ORIGIN} expand to the directory of the object that carries the RPATH/RUNPATH.

For a library that is the directory of the path it was opened by, symlinks not resolved
(glibc's _dl_new_object takes l_origin from the name it opened); for the executable it is the
directory of its real file (_dl_get_origin reads /proc/self/exe). Both checked against glibc 2.36.

  /opt/app/plugins/libplug.so    RUNPATH $ORIGIN/../lib     -> /opt/app/lib/libcudnn.so.9
  /opt/app/plugins2/libplug2.so  RUNPATH ${ORIGIN}/../lib   -> /opt/app/lib/libcudnn.so.9
  /opt/linkdir/libplug.so -> ../app/plugins/libplug.so: $ORIGIN is /opt/linkdir, so the
                                 copy in /opt/lib wins
  A venv made from a conda-style Python /opt/py/bin/python3.11 (DT_RPATH $ORIGIN/../lib, as
  conda-build links it): venv/bin/python3 is a link to it, so the interpreter's $ORIGIN is
  /opt/py/bin and torch (no RPATH/RUNPATH of its own) gets /opt/py/lib/libcudnn.so.9."""

VENV = "/home/user/venv"
ENV = {"HOME": "/home/user", "PATH": f"{VENV}/bin:/usr/bin:/bin", "VIRTUAL_ENV": VENV}


def build(t):
    t.debian_base()
    t.elf_lib("/opt/app/plugins/libplug.so", "libplug.so", needed=["libcudnn.so.9"],
              runpath=["$ORIGIN/../lib"])
    t.elf_lib("/opt/app/plugins2/libplug2.so", "libplug2.so", needed=["libcudnn.so.9"],
              runpath=["${ORIGIN}/../lib"])
    t.elf_lib("/opt/app/lib/libcudnn.so.9", "libcudnn.so.9", pad=1)
    t.symlink("/opt/linkdir/libplug.so", "../app/plugins/libplug.so")
    t.elf_lib("/opt/lib/libcudnn.so.9", "libcudnn.so.9", pad=2)

    t.elf_program("/opt/py/bin/python3.11", rpath=["$ORIGIN/../lib"])
    t.symlink("/opt/py/bin/python3", "python3.11")
    t.elf_lib("/opt/py/lib/libcudnn.so.9", "libcudnn.so.9", pad=3)
    site = t.venv(VENV, "3.11.9", home="/opt/py/bin")
    t.torch_wheel(site)


CASES = [
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/plugins/libplug.so"],
     "found": "/opt/app/lib/libcudnn.so.9", "via": "runpath", "real": True},
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/app/plugins2/libplug2.so"],
     "found": "/opt/app/lib/libcudnn.so.9", "via": "runpath", "real": True},
    {"name": "libcudnn.so.9", "args": ["--from", "/opt/linkdir/libplug.so"],
     "found": "/opt/lib/libcudnn.so.9", "via": "runpath", "real": True},
    {"name": "libcudnn.so.9", "args": ["--python", VENV],
     "found": "/opt/py/lib/libcudnn.so.9", "via": "rpath",
     "source_contains": "RPATH of /home/user/venv/bin/python3"},
]
