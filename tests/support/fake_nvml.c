/* SPDX-License-Identifier: MIT
 *
 * A stand-in for libnvidia-ml.so.1 at the one boundary that cannot be real on a machine without a
 * GPU. It exports the NVML entry points cudnn-doctor's probe uses, with the real C ABI of nvml.h
 * (NVML_API_VERSION 11+: nvmlPciInfo_t as of nvmlDeviceGetPciInfo_v3, nvmlMemory_t), and
 * describes one H100. FAKE_NVML_MODE selects a behaviour: "ok" (default), "crash" (nvmlInit_v2
 * dereferences NULL), "hang" (nvmlInit_v2 never returns), "nodriver" (returns 9, like the real
 * library without a driver).
 *
 * Built by the integration tests with: gcc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvmlReturn_t;
typedef void* nvmlDevice_t;

typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

static int device_token;

static const char* mode(void) {
  const char* m = getenv("FAKE_NVML_MODE");
  return m ? m : "ok";
}

static void copy(char* dst, unsigned int n, const char* src) {
  strncpy(dst, src, n);
  if (n > 0) {
    dst[n - 1] = '\0';
  }
}

nvmlReturn_t nvmlInit_v2(void) {
  if (strcmp(mode(), "crash") == 0) {
    volatile int* p = NULL;
    return *p;
  }
  if (strcmp(mode(), "hang") == 0) {
    for (;;) {
      pause();
    }
  }
  return strcmp(mode(), "nodriver") == 0 ? 9 : 0;
}

nvmlReturn_t nvmlShutdown(void) { return 0; }

const char* nvmlErrorString(nvmlReturn_t r) {
  return r == 9 ? "Driver Not Loaded" : r == 0 ? "Success" : "Unknown Error";
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* v, unsigned int n) {
  copy(v, n, "12.570.86.15");
  return 0;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned int n) {
  copy(v, n, "570.86.15");
  return 0;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = 12080;
  return 0;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* n) {
  *n = 1;
  return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t* d) {
  if (i != 0) {
    return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  }
  *d = &device_token;
  return 0;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int n) {
  (void)d;
  copy(name, n, "NVIDIA H100 80GB HBM3");
  return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int n) {
  (void)d;
  copy(uuid, n, "GPU-5a4b3c2d-1e0f-4a5b-8c7d-6e5f4a3b2c1d");
  return 0;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  (void)d;
  memset(pci, 0, sizeof *pci);
  copy(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:18:00.0");
  pci->bus = 0x18;
  pci->pciDeviceId = 0x233010de;
  copy(pci->busId, sizeof pci->busId, "00000000:18:00.0");
  return 0;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  (void)d;
  *major = 9;
  *minor = 0;
  return 0;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  (void)d;
  m->total = 85520809984ULL;
  m->free = 84825473024ULL;
  m->used = m->total - m->free;
  return 0;
}
