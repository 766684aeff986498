"""torch and TensorFlow in the same venv look for cuDNN in different places.

torch (1.5.1+, torch/__init__.py) calls os.add_dll_directory for torch\\lib and, when no
cudart64*.dll is there, for %CUDA_PATH_V11_8%\\bin, then preloads every DLL of torch\\lib with
LoadLibraryExW(path, NULL, 0x1100): torch_cuda.dll's imports (cudart, cuBLAS) are found in the
CUDA directory through the added directory, and cudnn64_8.dll is already loaded. TensorFlow 2.10
asks for cudart64_110.dll and cudnn64_8.dll by bare name (LoadLibraryExW with
LOAD_WITH_ALTERED_SEARCH_PATH, which changes nothing for a bare name): the standard order, so only
PATH can help, and PATH holds neither torch\\lib nor the CUDA directory (CUDA_PATH is set, but
TensorFlow does not read it). torch finds cuDNN, TensorFlow does not. cuDNN's own run-time
LoadLibrary of NVRTC uses the process default order too, so torch's cuDNN does not find NVRTC in
the CUDA directory either (windows_loading.json cudnn.8.ops_infer.runtime)."""
from run_winloader import cudnn_version

APP = r"C:\Python310"
CUDA_ROOT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8"
CUDA = CUDA_ROOT + r"\bin"
SITE = r"C:\venv\Lib\site-packages"
TORCH = SITE + r"\torch"
LIB = TORCH + r"\lib"
S32 = r"C:\Windows\System32"
LOADER = {"application_dir": APP, "current_dir": r"C:\Work", "path": rf"{S32};C:\Windows"}
PYTHON = {"exec_prefix": r"C:\venv", "base_exec_prefix": APP, "site_packages": SITE,
          "python_minor": 10, "list_dirs": [LIB],
          "environment": {"CUDA_PATH": CUDA_ROOT, "CUDA_PATH_V11_8": CUDA_ROOT}}
CUDNN8 = ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
          "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
          "cudnn_adv_train64_8.dll"]


def build(t):
    t.windows()
    t.dll(S32 + r"\nvcuda.dll")
    t.dll(CUDA + r"\cudart64_110.dll")
    t.dll(CUDA + r"\cublasLt64_11.dll")
    t.dll(CUDA + r"\cublas64_11.dll", imports=("KERNEL32.dll", "cublasLt64_11.dll"))
    for name in ("cufft64_10.dll", "curand64_10.dll", "cusolver64_11.dll", "cusparse64_11.dll",
                 "nvrtc64_112_0.dll"):
        t.dll(CUDA + "\\" + name)
    for name in CUDNN8:
        t.dll(LIB + "\\" + name, version=cudnn_version("8.7.0.84"))
    t.dll(LIB + r"\zlibwapi.dll")
    t.dll(LIB + r"\c10.dll")
    t.dll(LIB + r"\torch_cuda.dll", imports=("KERNEL32.dll", "c10.dll", "cudart64_110.dll",
                                             "cublas64_11.dll", "cudnn64_8.dll"))
    t.mkdir(SITE + r"\tensorflow")


CASES = [
    {"title": "torch: torch\\lib and CUDA_PATH_V11_8\\bin through os.add_dll_directory",
     "framework": {"name": "torch", "location": TORCH, "version": "2.0.1",
                   "cuda_version": "11.8", "cudnn_version": "8.7.0"},
     "steps": [
         {"dll": LIB + r"\cudnn64_8.dll", "found": LIB + r"\cudnn64_8.dll", "via": "direct",
          "version": "8.7.0.84"},
         {"dll": LIB + r"\torch_cuda.dll", "found": LIB + r"\torch_cuda.dll", "via": "direct"},
         {"dll": "cudart64_110.dll", "reason": "import of " + LIB + r"\torch_cuda.dll",
          "found": CUDA + r"\cudart64_110.dll", "via": "add_dll_directory"},
         {"dll": "cublasLt64_11.dll", "reason": "import of " + CUDA + r"\cublas64_11.dll",
          "found": CUDA + r"\cublasLt64_11.dll", "via": "add_dll_directory"},
         {"dll": "cudnn64_8.dll", "reason": "import of " + LIB + r"\torch_cuda.dll",
          "found": LIB + r"\cudnn64_8.dll", "via": "already loaded"},
         {"dll": "nvrtc64_112_0.dll", "reason": "opened at run time by", "found": None},
         {"dll": "nvcuda.dll", "reason": "opened at run time by", "found": S32 + r"\nvcuda.dll",
          "via": "System32"}]},
    {"title": "TensorFlow: bare names in the standard order, PATH without CUDA",
     "framework": {"name": "tensorflow", "location": SITE + r"\tensorflow", "version": "2.10.1",
                   "cuda_version": "11.2", "cudnn_version": "8.1.0"},
     "steps": [
         {"dll": "cudart64_110.dll", "found": None},
         {"dll": "cudnn64_8.dll", "found": None,
          "considered": [("app dir", APP + r"\cudnn64_8.dll"),
                         ("System32", S32 + r"\cudnn64_8.dll"),
                         ("System", r"C:\Windows\System\cudnn64_8.dll"),
                         ("Windows", r"C:\Windows\cudnn64_8.dll"),
                         ("current dir", r"C:\Work\cudnn64_8.dll"),
                         ("PATH", S32 + r"\cudnn64_8.dll"),
                         ("PATH", r"C:\Windows\cudnn64_8.dll")]}],
     "lacks": ["cudnn_ops_infer64_8.dll", LIB + r"\cudnn64_8.dll"]},
    {"title": "TensorFlow finds it once the CUDA directory and torch\\lib are on PATH",
     "loader": {"path": rf"{S32};C:\Windows;{CUDA};{LIB}"},
     "framework": {"name": "tensorflow", "location": SITE + r"\tensorflow", "version": "2.10.1",
                   "cuda_version": "11.2", "cudnn_version": "8.1.0"},
     "steps": [
         {"dll": "cudart64_110.dll", "found": CUDA + r"\cudart64_110.dll", "via": "PATH"},
         {"dll": "cudnn64_8.dll", "found": LIB + r"\cudnn64_8.dll", "via": "PATH"},
         {"dll": "cudnn_ops_infer64_8.dll", "reason": "opened at run time by",
          "found": LIB + r"\cudnn_ops_infer64_8.dll", "via": "PATH"}]},
]
