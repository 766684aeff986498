"""A DLL on the KnownDLLs list is always the system's copy.

"If the DLL is on the list of known DLLs for the version of Windows on which the application is
running, then the system uses its copy of the known DLL (and the known DLL's dependent DLLs, if
any). The system doesn't search for the DLL." ("Dynamic-link library search order", Factors that
affect searching; the list is HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs.)
A kernel32.dll planted in the application directory is never looked at, whether asked for by
name, in another case, or as an import of a DLL next to it; a name that is not on the list
(zlibwapi.dll) is taken from the application directory before System32."""
from run_winloader import plain_version

APP = r"C:\App"
S32 = r"C:\Windows\System32"
LOADER = {"application_dir": APP, "current_dir": APP, "path": rf"{S32};C:\Windows"}


def build(t):
    t.windows()
    t.dll(APP + r"\kernel32.dll", imports=(), version=plain_version("6.6.6.6", "planted"))
    t.dll(APP + r"\cudnn64_8.dll", imports=("KERNEL32.dll",))
    t.dll(APP + r"\zlibwapi.dll", version=plain_version("1.2.3.0", "zlib app"))
    t.dll(S32 + r"\zlibwapi.dll", version=plain_version("1.2.13.0", "zlib system"))


CASES = [
    {"title": "kernel32.dll by name", "request": {"name": "kernel32.dll"},
     "found": S32 + r"\kernel32.dll", "via": "KnownDLLs",
     "version": {"product_name": "Microsoft Windows Operating System"},
     "considered": [("KnownDLLs", S32 + r"\kernel32.dll")]},
    {"title": "KERNEL32 in upper case, without extension", "request": {"name": "KERNEL32"},
     "found": S32 + r"\KERNEL32.dll", "via": "KnownDLLs",
     "considered": [("KnownDLLs", S32 + r"\KERNEL32.dll")]},
    {"title": "also for LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR",
     "request": {"name": "kernel32.dll", "flags": 0x1100, "load_dir": APP},
     "found": S32 + r"\kernel32.dll", "via": "KnownDLLs"},
    {"title": "the import of a DLL next to the planted copy",
     "request": {"name": APP + r"\cudnn64_8.dll"},
     "found": APP + r"\cudnn64_8.dll", "via": "direct", "missing_imports": []},
    {"title": "not on the list: the application directory wins",
     "request": {"name": "zlibwapi.dll"}, "found": APP + r"\zlibwapi.dll", "via": "app dir",
     "version": {"product_name": "zlib app"}, "shadowed": [(S32 + r"\zlibwapi.dll", "1.2.13.0")]},
]
