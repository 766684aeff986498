"""Two cuDNN 8 releases mixed by PATH: each DLL is searched for on its own.

cudnn64_8.dll opens its sub-libraries by bare name at run time (LoadLibrary, process default
order; windows_loading.json cudnn.8.dispatcher), so every one of them is found by the standard
order separately ("Dynamic-link library search order"). PATH holds C:\\old\\bin first, with a
leftover cudnn_ops_infer64_8.dll of cuDNN 8.1.0.77, and then the CUDA directory with the whole
cuDNN 8.9.4.19. TensorFlow 2.10 gets cudnn64_8.dll 8.9.4.19 from the CUDA directory but
cudnn_ops_infer64_8.dll 8.1.0.77 from C:\\old\\bin, and cudnn_ops_train64_8.dll (8.9.4.19), whose
import of cudnn_ops_infer64_8.dll finds the 8.1 module already loaded. The resolutions carry
both versions from the DLLs' version resources, and the 8.1 sub-library is marked as from another
release than the dispatcher (cuDNN 8's cudnnOpsInferVersionCheck would fail)."""
from run_winloader import cudnn_version

APP = r"C:\Python310"
OLD = r"C:\old\bin"
CUDA = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2\bin"
SITE = r"C:\venv\Lib\site-packages"
LOADER = {"application_dir": APP, "current_dir": r"C:\Work",
          "path": rf"C:\Windows\System32;C:\Windows;{OLD};{CUDA}"}
PYTHON = {"exec_prefix": r"C:\venv", "base_exec_prefix": APP, "site_packages": SITE,
          "python_minor": 10}
CUDNN8 = ["cudnn64_8.dll", "cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll",
          "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_adv_infer64_8.dll",
          "cudnn_adv_train64_8.dll"]


def build(t):
    t.windows()
    t.dll(r"C:\Windows\System32\nvcuda.dll")
    for name in ("cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cufft64_10.dll",
                 "curand64_10.dll", "cusolver64_11.dll", "cusparse64_11.dll",
                 "nvrtc64_112_0.dll", "zlibwapi.dll"):
        t.dll(CUDA + "\\" + name)
    for name in CUDNN8:
        imports = ["KERNEL32.dll"]
        if name not in ("cudnn64_8.dll", "cudnn_ops_infer64_8.dll"):
            imports.append("cudnn_ops_infer64_8.dll")
        t.dll(CUDA + "\\" + name, imports=imports, version=cudnn_version("8.9.4.19"))
    t.dll(OLD + r"\cudnn_ops_infer64_8.dll", version=cudnn_version("8.1.0.77"))
    t.mkdir(SITE + r"\tensorflow")


DISPATCHER = "opened at run time by " + CUDA + r"\cudnn64_8.dll"
CASES = [
    {"title": "LoadLibrary(cudnn64_8.dll)", "request": {"name": "cudnn64_8.dll"},
     "found": CUDA + r"\cudnn64_8.dll", "via": "PATH",
     "version": {"file_version": "8.9.4.19", "product_version": "8.9.4.19"}},
    {"title": "LoadLibrary(cudnn_ops_infer64_8.dll)",
     "request": {"name": "cudnn_ops_infer64_8.dll"},
     "found": OLD + r"\cudnn_ops_infer64_8.dll", "via": "PATH",
     "version": {"file_version": "8.1.0.77", "product_name": "NVIDIA cuDNN Library"},
     "shadowed": [(CUDA + r"\cudnn_ops_infer64_8.dll", "8.9.4.19")]},
    {"title": "TensorFlow 2.10 loads cuDNN 8.9 with an 8.1 sub-library",
     "framework": {"name": "tensorflow", "location": SITE + r"\tensorflow", "version": "2.10.1",
                   "cuda_version": "11.2", "cudnn_version": "8.1.0"},
     "steps": [
         {"dll": "cudnn64_8.dll", "found": CUDA + r"\cudnn64_8.dll", "via": "PATH",
          "version": "8.9.4.19"},
         {"dll": "cudnn_ops_infer64_8.dll", "reason": DISPATCHER,
          "found": OLD + r"\cudnn_ops_infer64_8.dll", "via": "PATH", "version": "8.1.0.77",
          "shadowed": [(CUDA + r"\cudnn_ops_infer64_8.dll", "8.9.4.19")],
          "notes": [OLD + r"\cudnn_ops_infer64_8.dll shadows " + CUDA,
                    "is cuDNN 8.1.0.77, but " + CUDA + r"\cudnn64_8.dll is cuDNN 8.9.4.19"]},
         {"dll": "cudnn_ops_train64_8.dll", "reason": DISPATCHER,
          "found": CUDA + r"\cudnn_ops_train64_8.dll", "via": "PATH", "version": "8.9.4.19"},
         {"dll": "cudnn_ops_infer64_8.dll",
          "reason": "import of " + CUDA + r"\cudnn_ops_train64_8.dll",
          "found": OLD + r"\cudnn_ops_infer64_8.dll", "via": "already loaded",
          "version": "8.1.0.77"}]},
]
