"""LoadLibrary's standard search order, SafeDllSearchMode on (the default).

"Dynamic-link library search order" (learn.microsoft.com/windows/win32/dlls/
dynamic-link-library-search-order), unpackaged apps: the application directory, System32, the
16-bit System directory, the Windows directory, the current directory, then the PATH directories
in order. probe_order.dll has one copy in each of these places, each with its own version: the
application directory's copy wins and the rest are listed as shadowed in exactly that order.
cudnn64_8.dll is only on PATH, twice: the earlier entry (cuDNN 8.1.0.77) wins over the later one
(8.9.4.19), which is listed as shadowed with its version. A name without ".dll" and in another
case finds the same file (LoadLibraryExW reference, lpFileName; NTFS names ignore case)."""
from run_winloader import cudnn_version, plain_version

APP = r"C:\App"
S32 = r"C:\Windows\System32"
OLD = r"C:\Tools\cudnn-8.1\bin"
NEW = r"C:\Tools\cudnn-8.9\bin"
CWD = r"C:\Work"
PATH1 = r"C:\Tools\bin"
LOADER = {"application_dir": APP, "current_dir": CWD,
          "path": rf"{S32};C:\Windows;{PATH1};{OLD};{NEW}"}

PLACES = [(APP, "1.0.0.1"), (S32, "1.0.0.2"), (r"C:\Windows\System", "1.0.0.3"),
          (r"C:\Windows", "1.0.0.4"), (CWD, "1.0.0.5"), (PATH1, "1.0.0.6")]


def build(t):
    t.windows()
    for d, v in PLACES:
        t.dll(d + r"\probe_order.dll", version=plain_version(v, "probe"))
    t.dll(OLD + r"\cudnn64_8.dll", version=cudnn_version("8.1.0.77"))
    t.dll(NEW + r"\cudnn64_8.dll", version=cudnn_version("8.9.4.19"))


CASES = [
    {"title": "every place in order", "request": {"name": "probe_order.dll"},
     "found": APP + r"\probe_order.dll", "via": "app dir", "version": {"file_version": "1.0.0.1"},
     "shadowed": [(d + r"\probe_order.dll", v) for d, v in PLACES[1:]]},
    {"title": "the earlier PATH entry wins", "request": {"name": "cudnn64_8.dll"},
     "found": OLD + r"\cudnn64_8.dll", "via": "PATH",
     "version": {"file_version": "8.1.0.77", "product_name": "NVIDIA cuDNN Library", "bits": 64},
     "shadowed": [(NEW + r"\cudnn64_8.dll", "8.9.4.19")],
     "considered": [("app dir", APP + r"\cudnn64_8.dll"),
                    ("System32", S32 + r"\cudnn64_8.dll"),
                    ("System", r"C:\Windows\System\cudnn64_8.dll"),
                    ("Windows", r"C:\Windows\cudnn64_8.dll"),
                    ("current dir", CWD + r"\cudnn64_8.dll"),
                    ("PATH", S32 + r"\cudnn64_8.dll"),
                    ("PATH", r"C:\Windows\cudnn64_8.dll"),
                    ("PATH", PATH1 + r"\cudnn64_8.dll"),
                    ("PATH", OLD + r"\cudnn64_8.dll"),
                    ("PATH", NEW + r"\cudnn64_8.dll")],
     "outcomes": [(S32 + r"\cudnn64_8.dll", "absent"), (OLD + r"\cudnn64_8.dll", "found"),
                  (NEW + r"\cudnn64_8.dll", "later in the order")]},
    {"title": "no extension, other case", "request": {"name": "CUDNN64_8"},
     "found": OLD + r"\CUDNN64_8.dll", "via": "PATH", "version": {"file_version": "8.1.0.77"},
     "shadowed": [(NEW + r"\CUDNN64_8.dll", "8.9.4.19")]},
    {"title": "without SafeDllSearchMode the current directory comes second",
     "loader": {"safe_dll_search_mode": False}, "request": {"name": "probe_order.dll"},
     "found": APP + r"\probe_order.dll", "via": "app dir",
     "shadowed": [(d + r"\probe_order.dll", v) for d, v in [PLACES[4]] + PLACES[1:4] + PLACES[5:]]},
]
