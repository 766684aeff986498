"""Python 3.8+ imports an extension module without searching PATH.

CPython 3.8 loads a .pyd with LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR) (Python/dynload_win.c, bpo-36085; "What's New In Python 3.8",
ctypes and DLL loading), so the .pyd's imports are looked for in its own directory, python.exe's
directory, the os.add_dll_directory directories and System32 (LoadLibraryExW reference), and
PATH is not searched. _ext.pyd imports cudnn64_8.dll, which is only in C:\\cudnn\\bin on PATH: the
import fails with error 126 and the PATH copy is listed as "not searched". After
os.add_dll_directory("C:\\cudnn\\bin") it is found there. A copy next to the .pyd (the DLL load
directory) comes before the added directory. Python 3.7 used LOAD_WITH_ALTERED_SEARCH_PATH, the
standard order with the .pyd's directory first, which does search PATH."""
from run_winloader import cudnn_version

PY = r"C:\Python310"
SITE = r"C:\venv\Lib\site-packages"
PKG = SITE + r"\ext"
PYD = PKG + r"\_ext.cp310-win_amd64.pyd"
CUDNN = r"C:\cudnn\bin"
PKG2 = SITE + r"\ext2"
PYD2 = PKG2 + r"\_ext2.pyd"
LOADER = {"application_dir": PY, "current_dir": r"C:\Work",
          "path": rf"C:\Windows\System32;C:\Windows;{CUDNN}"}
PYTHON = {"exec_prefix": r"C:\venv", "base_exec_prefix": PY, "site_packages": SITE,
          "python_minor": 10}
FLAGS = 0x1100  # LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR


def build(t):
    t.windows()
    t.dll(PY + r"\python310.dll")
    t.dll(PYD, imports=("python310.dll", "cudnn64_8.dll", "KERNEL32.dll"))
    t.dll(CUDNN + r"\cudnn64_8.dll", version=cudnn_version("8.9.4.19"))
    # ext2 ships its own (older) copy next to the .pyd.
    t.dll(PYD2, imports=("cudnn64_8.dll", "KERNEL32.dll"))
    t.dll(PKG2 + r"\cudnn64_8.dll", version=cudnn_version("8.5.0.96"))


CASES = [
    {"title": "the import of cudnn64_8.dll skips PATH", "extension": PYD,
     "steps": [
         {"dll": PYD, "found": PYD, "via": "direct", "error": 126,
          "notes": ["its import cudnn64_8.dll was not found"]},
         {"dll": "cudnn64_8.dll", "found": None,
          "considered": [("DLL load dir", PKG + r"\cudnn64_8.dll"),
                         ("app dir", PY + r"\cudnn64_8.dll"),
                         ("System32", r"C:\Windows\System32\cudnn64_8.dll"),
                         ("current dir", r"C:\Work\cudnn64_8.dll"),
                         ("PATH", r"C:\Windows\System32\cudnn64_8.dll"),
                         ("PATH", r"C:\Windows\cudnn64_8.dll"),
                         ("PATH", CUDNN + r"\cudnn64_8.dll")],
          "not_searched": [CUDNN + r"\cudnn64_8.dll"],
          "outcomes": [(CUDNN + r"\cudnn64_8.dll", "the file is here, but not searched")]}]},
    {"title": "the same lookup as one LoadLibraryExW call",
     "request": {"name": "cudnn64_8.dll", "flags": FLAGS, "load_dir": PKG},
     "found": None,
     "outcomes": [(CUDNN + r"\cudnn64_8.dll", "not searched")]},
    {"title": "os.add_dll_directory makes it found", "extension": PYD,
     "loader": {"user_dirs": [CUDNN]},
     "steps": [
         {"dll": PYD, "found": PYD, "via": "direct"},
         {"dll": "cudnn64_8.dll", "found": CUDNN + r"\cudnn64_8.dll", "via": "add_dll_directory",
          "version": "8.9.4.19"}]},
    {"title": "the .pyd's own directory comes before the added directory", "extension": PYD2,
     "loader": {"user_dirs": [CUDNN]},
     "steps": [
         {"dll": PYD2, "found": PYD2, "via": "direct"},
         {"dll": "cudnn64_8.dll", "found": PKG2 + r"\cudnn64_8.dll", "via": "DLL load dir",
          "version": "8.5.0.96", "shadowed": [(CUDNN + r"\cudnn64_8.dll", "8.9.4.19")]}]},
    {"title": "Python 3.7 searched PATH", "extension": PYD, "python": {"python_minor": 7},
     "steps": [
         {"dll": PYD, "found": PYD, "via": "direct"},
         {"dll": "cudnn64_8.dll", "found": CUDNN + r"\cudnn64_8.dll", "via": "PATH"}]},
]
