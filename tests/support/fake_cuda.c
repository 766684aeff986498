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
 * For `stress` it also runs the doctor's PTX kernels (src/doctor/probe/kernels/stress_kernels.cu)
 * on host memory: cuModuleLoadData keeps the PTX text, cuModuleGetFunction finds the entry in it
 * and checks its parameter list (.param types, in order) against the layout emulated here (a
 * kernel whose PTX changed is CUDA_ERROR_NOT_FOUND, 500, with the reason on standard error), and
 * cuLaunchKernel runs the emulation of that kernel with the parameters read as the PTX declares
 * them. "Device memory" is a 32 MiB arena at a fixed address (0x7e0000000000 where the kernel
 * grants it), so that addresses are known to the tests. Stress scenarios: "stuckbit" (bit 5 of
 * the word at 0x7e0000100040 reads as 1 whatever is written), "badgemm" (the third SGEMM launch
 * flips bit 3 of element 5 of C), "launchsegv" (the first kernel launch segfaults), "launchhang"
 * (the first kernel launch never returns).
 *
 * "initsegv" makes cuInit itself crash (SIGSEGV; on Windows the access violation 0xC0000005).
 *
 * Built by the integration tests with: gcc -shared -fPIC -Wl,-soname,libcuda.so.1, and by the
 * wine tests with x86_64-w64-mingw32-gcc -shared -o nvcuda.dll (tests/windows/test_probe.py): the
 * few system calls below have a Windows branch each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long u64;

// The crash, the hang, the clock and the arena: the only system-specific calls.
static void crash(void) {
#ifdef _WIN32
  RaiseException(EXCEPTION_ACCESS_VIOLATION, 0, 0, NULL);
#else
  raise(SIGSEGV);
#endif
}

static void hang(void) {
  for (;;) {
#ifdef _WIN32
    Sleep(1000);
#else
    pause();
#endif
  }
}

static void monotonic_now(struct timespec* t) {
#ifdef _WIN32
  LARGE_INTEGER f, c;
  QueryPerformanceFrequency(&f);
  QueryPerformanceCounter(&c);
  t->tv_sec = (time_t)(c.QuadPart / f.QuadPart);
  t->tv_nsec = (long)((c.QuadPart % f.QuadPart) * 1000000000LL / f.QuadPart);
#else
  clock_gettime(CLOCK_MONOTONIC, t);
#endif
}

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
  if (strcmp(mode(), "initsegv") == 0) {
    fprintf(stderr, "fake libcuda: crash in cuInit\n");
    crash();
  }
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

/* The arena: a bump allocator (256-byte aligned) that starts again once everything is freed. */
#define ARENA_BASE 0x7e0000000000ULL
#define ARENA_SIZE (32ULL << 20)
#define STUCK_ADDRESS 0x7e0000100040ULL
#define STUCK_BIT 5

static unsigned char* arena;
static size_t arena_used;
static int arena_live;

static int arena_ready(void) {
  if (arena == NULL) {
#ifdef _WIN32
    void* p = VirtualAlloc((void*)(size_t)ARENA_BASE, ARENA_SIZE, MEM_RESERVE | MEM_COMMIT,
                           PAGE_READWRITE);
    if (p == NULL) {
      p = VirtualAlloc(NULL, ARENA_SIZE, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    }
    arena = p;
#else
    void* p = mmap((void*)(size_t)ARENA_BASE, ARENA_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) {
      p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    arena = p == MAP_FAILED ? NULL : p;
#endif
  }
  return arena != NULL;
}

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  size_t rounded = (bytes + 255) & ~(size_t)255;
  if (!arena_ready() || rounded > ARENA_SIZE - arena_used) {
    return 2;
  }
  *p = (CUdeviceptr)(size_t)(arena + arena_used);
  arena_used += rounded;
  ++arena_live;
  return 0;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  (void)p;
  if (--arena_live == 0) {
    arena_used = 0;
  }
  return 0;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  *free_bytes = ARENA_SIZE - arena_used;
  *total = ARENA_SIZE + (8ULL << 20);
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

CUresult cuMemcpyDtoD_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes) {
  memmove((void*)(size_t)to, (const void*)(size_t)from, bytes);
  return 0;
}

CUresult cuMemsetD32_v2(CUdeviceptr to, unsigned value, size_t count) {
  unsigned* w = (unsigned*)(size_t)to;
  for (size_t i = 0; i < count; ++i) {
    w[i] = value;
  }
  return 0;
}

CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned flags) {
  (void)flags;
  *p = malloc(bytes);
  return *p ? 0 : 2;
}

CUresult cuMemFreeHost(void* p) {
  free(p);
  return 0;
}

/* Events: the host's monotonic clock at cuEventRecord. */
typedef struct {
  struct timespec at;
} FakeEvent;

CUresult cuEventCreate(void** e, unsigned flags) {
  (void)flags;
  *e = calloc(1, sizeof(FakeEvent));
  return *e ? 0 : 2;
}

CUresult cuEventRecord(void* e, void* stream) {
  (void)stream;
  monotonic_now(&((FakeEvent*)e)->at);
  return 0;
}

CUresult cuEventSynchronize(void* e) {
  (void)e;
  return 0;
}

CUresult cuEventElapsedTime(float* ms, void* a, void* b) {
  const struct timespec* x = &((FakeEvent*)a)->at;
  const struct timespec* y = &((FakeEvent*)b)->at;
  *ms = (float)((y->tv_sec - x->tv_sec) * 1e3 + (y->tv_nsec - x->tv_nsec) / 1e6);
  return 0;
}

CUresult cuEventDestroy_v2(void* e) {
  free(e);
  return 0;
}

/* The kernels emulated here, with the parameter list their PTX must declare. */
typedef struct {
  const char* name;
  const char* params; /* the .param types in order */
} FakeKernel;

static const FakeKernel kernels[] = {
    {"doctor_memtest_write", "u64,u64,u32,u32,u32"},
    {"doctor_memtest_verify", "u64,u64,u32,u32,u32,u64,u64,u32,u64"},
    {"doctor_sgemm", "u64,u64,u64,u32,u32"},
    {"doctor_copy", "u64,u64,u64"},
};

typedef struct {
  char* ptx;
} FakeModule;

CUresult cuModuleLoadData(void** m, const void* image) {
  const char* text = image;
  if (strstr(text, ".version") == NULL || strstr(text, ".address_size 64") == NULL) {
    return 218; /* CUDA_ERROR_INVALID_PTX */
  }
  FakeModule* mod = calloc(1, sizeof *mod);
  mod->ptx = strdup(text);
  *m = mod;
  return 0;
}

CUresult cuModuleUnload(void* m) {
  free(((FakeModule*)m)->ptx);
  free(m);
  return 0;
}

/* The .param types of entry `name` in `ptx`, comma-separated, into `out`; 0 if there is none. */
static int ptx_params(const char* ptx, const char* name, char* out, size_t size) {
  char head[160];
  snprintf(head, sizeof head, ".entry %s(", name);
  const char* p = strstr(ptx, head);
  if (p == NULL) {
    return 0;
  }
  const char* end = strchr(p, ')');
  out[0] = 0;
  for (const char* q = strstr(p, ".param ."); q != NULL && q < end; q = strstr(q + 1, ".param .")) {
    char type[8] = {0};
    sscanf(q + 8, "%7[a-z0-9]", type);
    if (out[0] != 0) {
      strncat(out, ",", size - strlen(out) - 1);
    }
    strncat(out, type, size - strlen(out) - 1);
  }
  return 1;
}

CUresult cuModuleGetFunction(void** f, void* m, const char* name) {
  char got[256];
  if (!ptx_params(((FakeModule*)m)->ptx, name, got, sizeof got)) {
    return 500; /* CUDA_ERROR_NOT_FOUND */
  }
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) {
    if (strcmp(kernels[i].name, name) == 0) {
      if (strcmp(kernels[i].params, got) != 0) {
        fprintf(stderr, "fake libcuda: %s declares (%s) in the PTX, emulated as (%s)\n", name, got,
                kernels[i].params);
        return 500;
      }
      *f = (void*)&kernels[i];
      return 0;
    }
  }
  fprintf(stderr, "fake libcuda: no emulation of %s\n", name);
  return 500;
}

/* As stress_kernels.cu's expected_word. */
static unsigned expected_word(const unsigned* base, u64 i, unsigned mode, unsigned pattern,
                              unsigned seed) {
  if (mode == 1) {
    return (unsigned)(u64)(size_t)(base + i) ^ pattern;
  }
  if (mode == 2) {
    unsigned x = (unsigned)i * 0x9E3779B9u ^ (unsigned)(i >> 32) ^ seed;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x ^ pattern;
  }
  return pattern;
}

static u64 arg64(void** params, int i) {
  return *(u64*)params[i];
}

static unsigned arg32(void** params, int i) {
  return *(unsigned*)params[i];
}

static int launches;
static int sgemm_launches;

CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)stream;
  if (extra != NULL || params == NULL) {
    return 1;
  }
  ++launches;
  if (strcmp(mode(), "launchsegv") == 0) {
    fprintf(stderr, "fake libcuda: segfault in cuLaunchKernel\n");
    crash();
  }
  if (strcmp(mode(), "launchhang") == 0) {
    hang();
  }
  const FakeKernel* k = f;
  const int stuck = strcmp(mode(), "stuckbit") == 0;
  if (k == &kernels[0]) {
    unsigned* base = (unsigned*)(size_t)arg64(params, 0);
    const u64 words = arg64(params, 1);
    for (u64 i = 0; i < words; ++i) {
      base[i] = expected_word(base, i, arg32(params, 2), arg32(params, 3), arg32(params, 4));
      if (stuck && (u64)(size_t)(base + i) == STUCK_ADDRESS) {
        base[i] |= 1u << STUCK_BIT;
      }
    }
  } else if (k == &kernels[1]) {
    const unsigned* base = (const unsigned*)(size_t)arg64(params, 0);
    const u64 words = arg64(params, 1);
    u64* errors = (u64*)(size_t)arg64(params, 5);
    u64* log = (u64*)(size_t)arg64(params, 6);
    const unsigned max_log = arg32(params, 7);
    const u64 inject = arg64(params, 8);
    for (u64 i = 0; i < words; ++i) {
      const unsigned want =
          expected_word(base, i, arg32(params, 2), arg32(params, 3), arg32(params, 4));
      unsigned got = base[i] ^ (i == inject ? 1u : 0u);
      if (got != want) {
        const u64 n = (*errors)++;
        if (n < max_log) {
          log[3 * n] = i;
          log[3 * n + 1] = want;
          log[3 * n + 2] = got;
        }
      }
    }
  } else if (k == &kernels[2]) {
    const float* a = (const float*)(size_t)arg64(params, 0);
    const float* b = (const float*)(size_t)arg64(params, 1);
    float* c = (float*)(size_t)arg64(params, 2);
    const int n = (int)arg32(params, 3);
    const int corrupt = (int)arg32(params, 4);
    for (int r = 0; r < n; ++r) {
      for (int col = 0; col < n; ++col) {
        float sum = 0;
        for (int x = 0; x < n; ++x) {
          sum += a[r * n + x] * b[x * n + col];
        }
        c[r * n + col] = sum;
      }
    }
    if (corrupt >= 0 && corrupt < n * n) {
      uint32_t bits;
      memcpy(&bits, &c[corrupt], 4);
      bits ^= 1u;
      memcpy(&c[corrupt], &bits, 4);
    }
    if (++sgemm_launches == 3 && strcmp(mode(), "badgemm") == 0) {
      uint32_t bits;
      memcpy(&bits, &c[5], 4);
      bits ^= 8u;
      memcpy(&c[5], &bits, 4);
    }
  } else if (k == &kernels[3]) {
    memmove((void*)(size_t)arg64(params, 1), (const void*)(size_t)arg64(params, 0),
            16 * arg64(params, 2));
  } else {
    return 400; /* CUDA_ERROR_INVALID_HANDLE */
  }
  return 0;
}
