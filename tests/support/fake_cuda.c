/* SPDX-License-Identifier: MIT
 *
 * A stand-in for the driver's libcuda.so.1 on a machine without a GPU. It exports the driver API
 * entry points cudnn-doctor's probes use, with cuda.h's real C ABI (CUresult, CUdevice as int,
 * CUcontext and CUdeviceptr as 64-bit values, the _v2 names), and describes one GPU whose
 * "device memory" is host memory, so that the cuDNN and cuBLAS stand-ins can compute on it.
 * FAKE_CUDA_MODE selects a behaviour: "ok" (default: driver 13.0, one "NVIDIA H200"),
 * "nodevice" (cuInit returns 100, CUDA_ERROR_NO_DEVICE), "old" (cuInit returns 35,
 * CUDA_ERROR_INSUFFICIENT_DRIVER), "noctx" (cuCtxCreate_v2 returns 2, CUDA_ERROR_OUT_OF_MEMORY).
 *
 * Built by the integration tests with: gcc -shared -fPIC -Wl,-soname,libcuda.so.1
 */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef unsigned long long CUdeviceptr;

static const char* mode(void) {
  const char* m = getenv("FAKE_CUDA_MODE");
  return m ? m : "ok";
}

static int context_token;

CUresult cuDriverGetVersion(int* v) {
  *v = 13000;
  return 0;
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  if (strcmp(mode(), "nodevice") == 0) {
    return 100;
  }
  return strcmp(mode(), "old") == 0 ? 35 : 0;
}

CUresult cuGetErrorName(CUresult rc, const char** s) {
  switch (rc) {
  case 0: *s = "CUDA_SUCCESS"; return 0;
  case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
  case 35: *s = "CUDA_ERROR_INSUFFICIENT_DRIVER"; return 0;
  case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
  default: *s = NULL; return 1;
  }
}

CUresult cuGetErrorString(CUresult rc, const char** s) {
  *s = rc == 100 ? "no CUDA-capable device is detected" : NULL;
  return *s ? 0 : 1;
}

CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  return 0;
}

CUresult cuDeviceGet(CUdevice* d, int i) {
  if (i != 0) {
    return 101;
  }
  *d = 0;
  return 0;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  (void)d;
  strncpy(name, "NVIDIA H200", (size_t)len);
  return 0;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
  (void)d;
  *bytes = 150754820096ULL;
  return 0;
}

CUresult cuCtxCreate_v2(CUcontext* c, unsigned flags, CUdevice d) {
  (void)flags;
  (void)d;
  if (strcmp(mode(), "noctx") == 0) {
    return 2;
  }
  *c = &context_token;
  return 0;
}

CUresult cuCtxDestroy_v2(CUcontext c) {
  (void)c;
  return 0;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  (void)d;
  *c = &context_token;
  return 0;
}

CUresult cuCtxSetCurrent(CUcontext c) {
  (void)c;
  return 0;
}

CUresult cuCtxSynchronize(void) {
  return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  void* m = malloc(bytes);
  if (m == NULL) {
    return 2;
  }
  *p = (CUdeviceptr)(size_t)m;
  return 0;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void*)(size_t)p);
  return 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void* from, size_t bytes) {
  memcpy((void*)(size_t)to, from, bytes);
  return 0;
}

CUresult cuMemcpyDtoH_v2(void* to, CUdeviceptr from, size_t bytes) {
  memcpy(to, (const void*)(size_t)from, bytes);
  return 0;
}
