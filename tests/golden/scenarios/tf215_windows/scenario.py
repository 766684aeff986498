"""TensorFlow 2.15 in a venv on native Windows 11 with an RTX 4070, expecting the GPU.

The user followed a CUDA 12 / cuDNN 8.9 install guide and then ran `pip install tensorflow==2.15.0`
in C:\\Users\\ana\\tf-env. On native Windows that wheel is the CPU build (build_info says
is_cuda_build False): TensorFlow 2.10 was the last release with GPU support there. The driver is
560.94 (Device Manager: 32.0.15.6094).

The facts are what a Windows collection gives (the live Windows collectors come later): the
scenario edits the snapshot of an empty tree into them, and the check reads that snapshot.

Expected: compat.tensorflow_windows_no_gpu (error) with both ways out: WSL2, or TF 2.10 with CUDA
11.2 and cuDNN 8.1."""

EXIT = 1

ENVP = "C:\\Users\\ana\\tf-env"
SITE = ENVP + "\\Lib\\site-packages"


def build(t):
    t.mkdir("/etc")


def fact(value, source):
    return {"value": value, "source": source}


def unknown(reason):
    return {"unknown": reason}


def edit_snapshot(doc):
    doc["collection"]["os_family"] = "windows"
    doc["collection"]["sysroot"] = "C:\\"
    doc["environment"] = {"PATH": f"{ENVP}\\Scripts;C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.3\\bin;C:\\Windows\\system32",
                          "VIRTUAL_ENV": ENVP,
                          "CUDA_PATH": "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.3"}
    doc["os"]["pretty_name"] = fact("Windows 11 Pro 23H2 (build 22631)", "registry:HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion")
    doc["os"]["id"] = fact("windows", "registry:HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion")
    doc["os"]["version_id"] = fact("10.0.22631", "registry:HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion")
    doc["os"]["architecture"] = fact("x86_64", "env:PROCESSOR_ARCHITECTURE")
    gpu = {"address": "0000:01:00.0", "vendor_id": 0x10de, "device_id": 0x2786,
           "subsystem_vendor_id": 0x1043, "subsystem_device_id": 0x8902, "class_code": 0x030000,
           "name": fact("AD104 [GeForce RTX 4070]", "pci.ids"),
           "driver": fact("nvlddmkm", "registry:PCI\\VEN_10DE&DEV_2786")}
    doc["pci"] = fact({"devices_scanned": 24, "nvidia_gpus": [gpu], "other_displays": []},
                      "registry:HKLM\\SYSTEM\\CurrentControlSet\\Enum\\PCI")
    doc["driver"]["nvml"] = {
        "status": "ok", "detail": "",
        "library": fact("C:\\Windows\\System32\\nvml.dll", "nvml"),
        "init_result": fact(0, "nvml:nvmlInit_v2"),
        "nvml_version": fact("12.560.94", "nvml:nvmlSystemGetNVMLVersion"),
        "driver_version": fact("560.94", "nvml:nvmlSystemGetDriverVersion"),
        "cuda_driver_version": fact("12.6", "nvml:nvmlSystemGetCudaDriverVersion_v2"),
        "devices": fact([{"index": 0, "name": fact("NVIDIA GeForce RTX 4070", "nvml"),
                          "uuid": fact("GPU-5b1c0f1e-7d2a-4c9e-9a51-0e3f6f2b8d11", "nvml"),
                          "pci_bus_id": fact("00000000:01:00.0", "nvml"),
                          "compute_capability": fact("8.9", "nvml:nvmlDeviceGetCudaComputeCapability"),
                          "memory_total": fact(12878610432, "nvml"),
                          "memory_free": fact(11811160064, "nvml")}], "nvml:nvmlDeviceGetCount_v2")}
    tf = {"name": "tensorflow", "location": SITE + "\\tensorflow",
          "version": fact("2.15.0", f"dist-info:{SITE}\\tensorflow-2.15.0.dist-info"),
          "cuda_build": fact(False, f"file:{SITE}\\tensorflow\\python\\platform\\build_info.py"),
          "cuda_version": unknown("a CPU build (build_info.py says is_cuda_build False)"),
          "cudnn_version": unknown("a CPU build (build_info.py says is_cuda_build False)"),
          "cuda_archs": unknown("a CPU build (build_info.py says is_cuda_build False)")}
    doc["python_envs"] = [{
        "prefix": ENVP, "kind": "venv", "found_via": ["env:VIRTUAL_ENV"],
        "python_version": fact("3.11.9", f"file:{ENVP}\\pyvenv.cfg"),
        "site_packages": fact(SITE, f"file:{ENVP}\\pyvenv.cfg"),
        "packages": [{"name": "tensorflow", "version": "2.15.0", "source": f"{SITE}\\tensorflow-2.15.0.dist-info"},
                     {"name": "tensorflow-intel", "version": "2.15.0", "source": f"{SITE}\\tensorflow_intel-2.15.0.dist-info"}],
        "frameworks": [tf]}]
