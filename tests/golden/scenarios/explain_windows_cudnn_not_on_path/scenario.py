"""explain joined with a Windows machine (E1): TensorFlow 2.10 on Windows 10 logs "Could not load
dynamic library 'cudnn64_8.dll'". CUDA 11.2 is installed and on PATH; the user extracted the
cuDNN 8.1 archive to C:\\tools\\cudnn-8.1 but never added its bin directory to PATH.

The facts are what a Windows collection gives (the live Windows collectors come later): the
scenario edits the snapshot of an empty tree into them, and explain reads that snapshot.

Expected: the first cause log.cudnn_not_found (library_missing.cudnn), with the machine note that
cudnn64_8.dll is in C:\\tools\\cudnn-8.1\\bin, which is not on PATH, the exact `set PATH=` command
and the os.add_dll_directory advice for Python 3.8 and later."""

COMMAND = ["explain", "{scenario}/train.log"]
EXIT = 0
ENVP = "C:\\Users\\li\\tf210"
SITE = ENVP + "\\Lib\\site-packages"
CUDA = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"
CUDNN = "C:\\tools\\cudnn-8.1\\bin"
CUDNN_DLLS = ["cudnn64_8.dll", "cudnn_adv_infer64_8.dll", "cudnn_adv_train64_8.dll",
              "cudnn_cnn_infer64_8.dll", "cudnn_cnn_train64_8.dll", "cudnn_ops_infer64_8.dll",
              "cudnn_ops_train64_8.dll"]


def build(t):
    t.mkdir("/etc")


def fact(value, source):
    return {"value": value, "source": source}


def edit_snapshot(doc):
    doc["collection"]["os_family"] = "windows"
    doc["collection"]["sysroot"] = "C:\\"
    doc["environment"] = {"PATH": f"{ENVP}\\Scripts;{CUDA}\\bin;{CUDA}\\libnvvp;C:\\Windows\\system32;C:\\Windows",
                          "VIRTUAL_ENV": ENVP, "CUDA_PATH": CUDA}
    reg = "registry:HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion"
    doc["os"]["pretty_name"] = fact("Windows 10 Pro 22H2 (build 19045)", reg)
    doc["os"]["id"] = fact("windows", reg)
    doc["os"]["version_id"] = fact("10.0.19045", reg)
    doc["os"]["architecture"] = fact("x86_64", "env:PROCESSOR_ARCHITECTURE")
    doc["cudnn"] = [{
        "dir": CUDNN, "major": 8, "found_via": ["dir:C:\\tools"],
        "version": fact("8.1.1", f"file:{CUDNN}\\..\\include\\cudnn_version.h"),
        "header_version": fact("8.1.1", f"file:{CUDNN}\\..\\include\\cudnn_version.h"),
        "package": {"unknown": "no package manager's record names these files"},
        "libraries": [{"name": n, "member": n, "major": 8, "real_path": f"{CUDNN}\\{n}", "size": 1000,
                       "version": fact("8.1.1.33", f"pe:{CUDNN}\\{n}")} for n in CUDNN_DLLS]}]
