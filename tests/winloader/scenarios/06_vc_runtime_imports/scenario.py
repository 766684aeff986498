"""A missing Visual C++ runtime import fails the load with error 126.

LoadLibrary maps a DLL's static imports in the same load operation; if one of them cannot be
found, the whole call fails with ERROR_MOD_NOT_FOUND (126) (LoadLibraryExW reference, Return
value; "Dynamic-link library search order"). A cudnn64_8.dll built with MSVC imports MSVCP140.dll
and VCRUNTIME140.dll from the Visual C++ Redistributable. python.exe's directory holds
vcruntime140.dll (CPython ships it) but no msvcp140.dll is anywhere: cudnn64_8.dll is found, its
MSVCP140.dll import is not, so an extension module importing cuDNN fails to import ("DLL load
failed while importing ...: The specified module could not be found") although cudnn64_8.dll is
in an os.add_dll_directory directory. With a directory holding msvcp140.dll added too, it loads."""
from run_winloader import cudnn_version, plain_version

APP = r"C:\Python310"
CUDNN = r"C:\cudnn\bin"
REDIST = r"C:\redist"
SITE = r"C:\venv\Lib\site-packages"
PYD = SITE + r"\ext\_ext.pyd"
LOADER = {"application_dir": APP, "current_dir": r"C:\Work",
          "path": rf"C:\Windows\System32;C:\Windows;{CUDNN}"}
PYTHON = {"exec_prefix": r"C:\venv", "base_exec_prefix": APP, "site_packages": SITE,
          "python_minor": 10}


def build(t):
    t.windows()
    t.dll(APP + r"\vcruntime140.dll", version=plain_version("14.36.32532.0", "VC runtime"))
    t.dll(CUDNN + r"\cudnn64_8.dll", imports=("KERNEL32.dll", "MSVCP140.dll", "VCRUNTIME140.dll"),
          version=cudnn_version("8.9.4.19"))
    t.dll(REDIST + r"\msvcp140.dll", imports=("KERNEL32.dll", "VCRUNTIME140.dll"))
    t.dll(PYD, imports=("cudnn64_8.dll", "KERNEL32.dll"))


CASES = [
    {"title": "LoadLibrary(cudnn64_8.dll): found, its MSVCP140.dll import is not",
     "request": {"name": "cudnn64_8.dll"},
     "found": CUDNN + r"\cudnn64_8.dll", "via": "PATH", "missing_imports": ["MSVCP140.dll"],
     "imports": {"KERNEL32.dll": (r"C:\Windows\System32\KERNEL32.dll", "KnownDLLs"),
                 "MSVCP140.dll": (None, None),
                 "VCRUNTIME140.dll": (APP + r"\VCRUNTIME140.dll", "app dir")}},
    {"title": "the extension's import fails on cuDNN's missing MSVCP140.dll", "extension": PYD,
     "loader": {"user_dirs": [CUDNN]},
     "steps": [
         {"dll": PYD, "found": PYD, "via": "direct", "error": 126,
          "notes": ["its import cudnn64_8.dll was not found"]},
         {"dll": "cudnn64_8.dll", "found": CUDNN + r"\cudnn64_8.dll", "via": "add_dll_directory",
          "error": 126, "notes": ["its import MSVCP140.dll was not found"]},
         {"dll": "MSVCP140.dll", "found": None,
          "not_searched": [CUDNN + r"\MSVCP140.dll"]}]},
    {"title": "with the redistributable's directory added it loads", "extension": PYD,
     "loader": {"user_dirs": [CUDNN, REDIST]},
     "steps": [
         {"dll": PYD, "found": PYD, "via": "direct"},
         {"dll": "cudnn64_8.dll", "found": CUDNN + r"\cudnn64_8.dll", "via": "add_dll_directory"},
         {"dll": "MSVCP140.dll", "found": REDIST + r"\MSVCP140.dll", "via": "add_dll_directory"},
         {"dll": "VCRUNTIME140.dll", "reason": "import of " + REDIST,
          "found": APP + r"\VCRUNTIME140.dll", "via": "app dir"}]},
]
