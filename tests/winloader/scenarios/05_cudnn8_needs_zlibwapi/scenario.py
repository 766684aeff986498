"""cuDNN 8.3 to 9.1 on Windows need zlibwapi.dll, which they do not ship.

NVIDIA's cuDNN installation guide for Windows (8.3-8.9) has users install zlibwapi.dll
themselves; cuDNN 8.9.4.19's cudnn_ops_infer64_8.dll opens it at run time with LoadLibrary (the
process default order: PATH is searched) and the process exits with "Could not locate
zlibwapi.dll" when it is missing (windows_loading.json cudnn.8.zlibwapi). TensorFlow 2.10 was built
for cuDNN 8.1, which did not need it, but what loads is the cuDNN on PATH: its version resource
says 8.9.4.19, so zlibwapi.dll is asked for, and found once C:\\zlib is on PATH.
Some cuDNN 8 builds import zlibwapi.dll from cudnn_cnn_infer64_8.dll instead (the common report
"Could not load library cudnn_cnn_infer64_8.dll. Error code 126" with zlibwapi.dll missing): then
torch's preload of cudnn_cnn_infer64_8.dll fails with 126 (its import is missing), torch retries
with its directories on PATH, fails again, and `import torch` raises."""
from run_winloader import cudnn_version

APP = r"C:\Python310"
CUDA = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2\bin"
SITE = r"C:\venv\Lib\site-packages"
SITE2 = r"C:\venv2\Lib\site-packages"
LIB2 = SITE2 + r"\torch\lib"
LOADER = {"application_dir": APP, "current_dir": r"C:\Work",
          "path": rf"C:\Windows\System32;C:\Windows;{CUDA}"}
PYTHON = {"exec_prefix": r"C:\venv", "base_exec_prefix": APP, "site_packages": SITE,
          "python_minor": 10}
CUDNN8 = ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
          "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
          "cudnn_adv_train64_8.dll"]
TF = {"name": "tensorflow", "location": SITE + r"\tensorflow", "version": "2.10.1",
      "cuda_version": "11.2", "cudnn_version": "8.1.0"}


def cuda_libs(t, d):
    for name in ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cufft64_10.dll",
                 "curand64_10.dll", "cusolver64_11.dll", "cusparse64_11.dll",
                 "nvrtc64_112_0.dll"):
        t.dll(d + "\\" + name)


def build(t):
    t.windows()
    t.dll(r"C:\Windows\System32\nvcuda.dll")
    cuda_libs(t, CUDA)
    for name in CUDNN8:
        t.dll(CUDA + "\\" + name, version=cudnn_version("8.9.4.19"))
    t.dll(r"C:\zlib\zlibwapi.dll")
    t.mkdir(SITE + r"\tensorflow")
    # venv2: torch whose cudnn_cnn_infer64_8.dll imports zlibwapi.dll.
    cuda_libs(t, LIB2)
    for name in CUDNN8:
        imports = ["KERNEL32.dll"]
        if name != "cudnn64_8.dll" and name != "cudnn_ops_infer64_8.dll":
            imports.append("cudnn_ops_infer64_8.dll")
        if name == "cudnn_cnn_infer64_8.dll":
            imports.append("zlibwapi.dll")
        t.dll(LIB2 + "\\" + name, imports=imports, version=cudnn_version("8.7.0.84"))


ZLIB_STEP = {"dll": "zlibwapi.dll",
             "reason": "opened at run time by " + CUDA + r"\cudnn_ops_infer64_8.dll"}
CASES = [
    {"title": "TensorFlow 2.10 with cuDNN 8.9 on PATH and no zlibwapi.dll", "framework": TF,
     "steps": [
         {"dll": "cudnn64_8.dll", "found": CUDA + r"\cudnn64_8.dll", "via": "PATH",
          "version": "8.9.4.19"},
         {"dll": "cudnn_ops_infer64_8.dll", "found": CUDA + r"\cudnn_ops_infer64_8.dll",
          "via": "PATH", "reason": "opened at run time by " + CUDA + r"\cudnn64_8.dll"},
         {**ZLIB_STEP, "found": None,
          "considered": [("app dir", APP + r"\zlibwapi.dll"),
                         ("System32", r"C:\Windows\System32\zlibwapi.dll"),
                         ("System", r"C:\Windows\System\zlibwapi.dll"),
                         ("Windows", r"C:\Windows\zlibwapi.dll"),
                         ("current dir", r"C:\Work\zlibwapi.dll"),
                         ("PATH", r"C:\Windows\System32\zlibwapi.dll"),
                         ("PATH", r"C:\Windows\zlibwapi.dll"),
                         ("PATH", CUDA + r"\zlibwapi.dll")]}]},
    {"title": "TensorFlow 2.10 with C:\\zlib on PATH", "framework": TF,
     "loader": {"path": rf"C:\Windows\System32;C:\Windows;{CUDA};C:\zlib"},
     "steps": [{**ZLIB_STEP, "found": r"C:\zlib\zlibwapi.dll", "via": "PATH"}]},
    {"title": "torch whose cudnn_cnn_infer64_8.dll imports zlibwapi.dll",
     "python": {"exec_prefix": r"C:\venv2", "site_packages": SITE2, "list_dirs": [LIB2]},
     "framework": {"name": "torch", "location": SITE2 + r"\torch", "version": "2.0.1",
                   "cuda_version": "11.2", "cudnn_version": "8.7.0"},
     "import_failed": True,
     "notes": ["error 126 loading \"" + LIB2 + r"\cudnn_cnn_infer64_8.dll" + "\""],
     "steps": [
         {"dll": LIB2 + r"\cudnn_cnn_infer64_8.dll", "reason": "preloaded by",
          "found": LIB2 + r"\cudnn_cnn_infer64_8.dll", "via": "direct", "error": 126,
          "notes": ["its import zlibwapi.dll was not found"]},
         {"dll": "zlibwapi.dll", "reason": "import of " + LIB2 + r"\cudnn_cnn_infer64_8.dll",
          "found": None},
         {"dll": LIB2 + r"\cudnn_cnn_infer64_8.dll", "reason": "retried by torch",
          "found": LIB2 + r"\cudnn_cnn_infer64_8.dll", "via": "direct", "error": 126}],
     "lacks": [LIB2 + r"\cudnn_cnn_train64_8.dll", "nvcuda.dll"]},
]
