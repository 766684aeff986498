"""A 32-bit DLL found first fails the load with error 193; Windows does not search on.

The loader maps the first file of the name it finds; a 32-bit zlibwapi.dll there makes
LoadLibrary fail with ERROR_BAD_EXE_FORMAT (193, "%1 is not a valid Win32 application", System
Error Codes 0-499) although a 64-bit copy is later on PATH: the well-known "Could not load
library zlibwapi.dll. Error code 193" of cuDNN 8 on Windows (windows_loading.json
windows.bad_exe_format). ld.so on Linux would skip the file and take the next one. In a 32-bit
process (its system directory is SysWOW64: "File System Redirector", learn.microsoft.com/windows/
win32/winprog64/file-system-redirector) the same 32-bit copy loads, with its KERNEL32.dll import
from SysWOW64, and the 64-bit one is the one that does not fit.
The 32-bit DLL is built by i686-w64-mingw32-gcc; without it the scenario is skipped. torch with a
cuDNN 8.7 in torch\\lib but no zlibwapi.dll beside it asks for zlibwapi.dll at run time with the
process default order, PATH included, and stops at the 32-bit copy."""
from run_winloader import cudnn_version, plain_version

APP = r"C:\Python310"
Z32 = r"C:\zlib\dll_x86"
Z64 = r"C:\zlib\dll_x64"
SITE = r"C:\venv\Lib\site-packages"
TORCH = SITE + r"\torch"
LIB = TORCH + r"\lib"
LOADER = {"application_dir": APP, "current_dir": r"C:\Work",
          "path": rf"C:\Windows\System32;C:\Windows;{Z32};{Z64}"}
PYTHON = {"exec_prefix": r"C:\venv", "base_exec_prefix": APP, "site_packages": SITE,
          "python_minor": 10, "list_dirs": [LIB]}
CUDNN8 = ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
          "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
          "cudnn_adv_train64_8.dll"]


def build(t):
    t.dll(Z32 + r"\zlibwapi.dll", bits=32, version=plain_version("1.2.3.0", "zlib x86"))
    t.windows()
    # What a 32-bit process sees as its system directory (WOW64 redirects System32 there).
    t.dll(r"C:\Windows\SysWOW64\ntdll.dll", imports=(), bits=32)
    t.dll(r"C:\Windows\SysWOW64\kernel32.dll", imports=("ntdll.dll",), bits=32)
    t.dll(Z64 + r"\zlibwapi.dll", version=plain_version("1.2.3.0", "zlib x64"))
    for name in CUDNN8:
        t.dll(LIB + "\\" + name, version=cudnn_version("8.7.0.84"))
    for name in ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll",
                 "nvrtc64_112_0.dll"):
        t.dll(LIB + "\\" + name)
    t.dll(LIB + r"\torch_cuda.dll", imports=("KERNEL32.dll", "cudart64_110.dll",
                                              "cublas64_11.dll", "cudnn64_8.dll"))
    t.dll(r"C:\Windows\System32\nvcuda.dll")


CASES = [
    {"title": "64-bit process: the 32-bit copy first is fatal",
     "request": {"name": "zlibwapi.dll"},
     "found": Z32 + r"\zlibwapi.dll", "via": "PATH", "fatal_error": 193,
     "version": {"bits": 32, "machine": "x86", "product_name": "zlib x86"},
     "shadowed": [Z64 + r"\zlibwapi.dll"],
     "outcomes": [(Z32 + r"\zlibwapi.dll", "error 193"),
                  (Z64 + r"\zlibwapi.dll", "never reached")]},
    {"title": "32-bit process: the 32-bit copy loads",
     "loader": {"process_bits": 32, "process_machine": "x86", "system32": r"C:\Windows\SysWOW64"},
     "request": {"name": "zlibwapi.dll"},
     "found": Z32 + r"\zlibwapi.dll", "via": "PATH", "version": {"bits": 32},
     "imports": {"KERNEL32.dll": (r"C:\Windows\SysWOW64\KERNEL32.dll", "KnownDLLs")},
     "outcomes": [(Z64 + r"\zlibwapi.dll", "64-bit DLL in a 32-bit process")]},
    {"title": "torch's cuDNN asks for zlibwapi.dll at run time and gets error 193",
     "framework": {"name": "torch", "location": TORCH, "version": "2.0.1",
                   "cuda_version": "11.8", "cudnn_version": "8.7.0"},
     "steps": [
         {"dll": LIB + r"\cudnn64_8.dll", "found": LIB + r"\cudnn64_8.dll", "via": "direct"},
         {"dll": "zlibwapi.dll", "reason": "opened at run time by " + LIB,
          "found": Z32 + r"\zlibwapi.dll", "via": "PATH", "fatal_error": 193, "error": 193,
          "shadowed": [Z64 + r"\zlibwapi.dll"],
          "notes": ["a loadable copy is at " + Z64 + r"\zlibwapi.dll"]}]},
]
