/* SPDX-License-Identifier: MIT
 *
 * A stand-in for libnvidia-ml.so.1 at the one boundary that cannot be real on a machine without a
 * GPU. It exports the NVML entry points cudnn-doctor's probe uses, with the real C ABI of nvml.h
 * (NVML_API_VERSION 11+: nvmlPciInfo_t as of nvmlDeviceGetPciInfo_v3, nvmlMemory_t), and
 * describes one H100. FAKE_NVML_MODE selects a behaviour: "ok" (default), "crash" (nvmlInit_v2
 * dereferences NULL), "hang" (nvmlInit_v2 never returns; its pid goes to $FAKE_NVML_PIDFILE if
 * set), "nodriver" (returns 9, like the real
 * library without a driver), and the attacks of a hostile library, each inside nvmlInit_v2 unless
 * said otherwise:
 *   "killpg"   kill(0, SIGTERM): its whole process group;
 *   "fork"     forks a grandchild that holds the report pipe and sleeps 300 s, writes its pid to
 *              $FAKE_NVML_PIDFILE, then succeeds;
 *   "write"    creates the file $FAKE_NVML_WRITE, then succeeds;
 *   "leak"     allocates and touches 1 MiB blocks until malloc fails (then returns 999,
 *              NVML_ERROR_UNKNOWN) or 3 GiB are held (then succeeds: nothing stopped it);
 *   "slow"     sleeps $FAKE_NVML_DELAY_MS (default 40) milliseconds, as a real driver's
 *              nvmlInit_v2 takes, then succeeds;
 *   "nonsense" succeeds, then every query answers something absurd: text that is not UTF-8, not
 *              terminated, empty or as long as the buffer; a negative CUDA version; 2^64-1 bytes
 *              of memory; compute capability -1.1000.
 *
 * Built by the integration tests with: gcc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1
 *
 * The same source is nvml.dll for the Windows tests (x86_64-w64-mingw32-gcc -shared), where the
 * attacks are Windows' own: "killpg" sends Ctrl+C and Ctrl+Break to every process on its console
 * (GenerateConsoleCtrlEvent to group 0), "fork" starts cmd.exe (ping for 300 s) inheriting every
 * handle, and "write", "leak", "crash", "hang", "nonsense" are as above.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#  include <windows.h>
typedef DWORD pid_t;
#else
#  include <fcntl.h>
#  include <signal.h>
#  include <unistd.h>
#endif

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

typedef struct { /* nvmlProcessInfo_t, = nvmlProcessInfo_v2_t */
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;

static int device_token;

static const char* mode(void) {
  const char* m = getenv("FAKE_NVML_MODE");
  return m ? m : "ok";
}

/* Whether `m` is the mode or one of a comma-separated list of modes ("overclock,throttle"). */
static int is(const char* m) {
  const size_t n = strlen(m);
  for (const char* p = mode(); p && *p;) {
    const char* end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, m, n) == 0) {
      return 1;
    }
    p = end ? end + 1 : NULL;
  }
  return 0;
}

/* Fills all `n` bytes with `c`: no terminating NUL anywhere in the buffer. */
static void fill(char* dst, unsigned int n, char c) {
  memset(dst, c, n);
}

static void copy(char* dst, unsigned int n, const char* src) {
  strncpy(dst, src, n);
  if (n > 0) {
    dst[n - 1] = '\0';
  }
}

/* Writes `pid` to $FAKE_NVML_PIDFILE, if set, so that a test can look for the process. */
static void write_pid(pid_t pid) {
  const char* path = getenv("FAKE_NVML_PIDFILE");
  FILE* f = path ? fopen(path, "w") : NULL;
  if (f) {
    fprintf(f, "%d\n", (int)pid);
    fclose(f);
  }
}

#ifdef _WIN32
static void sleep_ms(unsigned ms) {
  Sleep(ms);
}
static pid_t own_pid(void) {
  return GetCurrentProcessId();
}
static void sleep_forever(void) {
  Sleep(INFINITE);
}
static void signal_group(void) {
  GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0);
  GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, 0);
}
/* Starts a long-lived grandchild that inherits every handle (the report pipe among them); returns
 * its process id, 0 if it could not be started. */
static pid_t start_grandchild(void) {
  wchar_t cmd[] = L"C:\\windows\\system32\\cmd.exe /c ping -n 300 127.0.0.1";
  STARTUPINFOW si;
  PROCESS_INFORMATION pi;
  memset(&si, 0, sizeof si);
  si.cb = sizeof si;
  if (!CreateProcessW(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
    return 0;
  }
  CloseHandle(pi.hThread);
  CloseHandle(pi.hProcess);
  return pi.dwProcessId;
}
static void write_file(const char* path) {
  FILE* f = fopen(path, "w");
  if (f) {
    fputs("written by the NVML stand-in\n", f);
    fclose(f);
  }
}
#else
static void sleep_ms(unsigned ms) {
  usleep(ms * 1000U);
}
static pid_t own_pid(void) {
  return getpid();
}
static void sleep_forever(void) {
  for (;;) {
    pause();
  }
}
static void signal_group(void) {
  kill(0, SIGTERM);
}
static pid_t start_grandchild(void) {
  const pid_t pid = fork();
  if (pid == 0) {
    sleep(300);
    _exit(0);
  }
  return pid > 0 ? pid : 0;
}
static void write_file(const char* path) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)!write(fd, "written by the NVML stand-in\n", 29);
    close(fd);
  }
}
#endif

nvmlReturn_t nvmlInit_v2(void) {
  if (strcmp(mode(), "crash") == 0) {
    volatile int* p = NULL;
    return *p;
  }
  if (strcmp(mode(), "hang") == 0) {
    write_pid(own_pid());
    sleep_forever();
  }
  if (is("slow")) {
    const char* ms = getenv("FAKE_NVML_DELAY_MS");
    sleep_ms(ms ? (unsigned)atoi(ms) : 40U);
  }
  if (is("killpg")) {
    signal_group();
  }
  if (is("fork")) {
    const pid_t pid = start_grandchild();
    if (pid != 0) {
      write_pid(pid);
    }
  }
  if (is("write")) {
    const char* path = getenv("FAKE_NVML_WRITE");
    if (path) {
      write_file(path);
    }
  }
  if (is("leak")) {
    const size_t block = (size_t)1 << 20;
    for (unsigned i = 0; i < 3072; ++i) {
      char* p = malloc(block);
      if (!p) {
        return 999;
      }
      memset(p, (int)i, block);
    }
  }
  return is("nodriver") ? 9 : 0;
}

nvmlReturn_t nvmlShutdown(void) {
  return 0;
}

const char* nvmlErrorString(nvmlReturn_t r) {
  return r == 9 ? "Driver Not Loaded" : r == 0 ? "Success" : "Unknown Error";
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* v, unsigned int n) {
  if (is("nonsense")) {
    copy(v, n, "12.\xff\xfe.86"); /* not UTF-8 */
    return 0;
  }
  copy(v, n, "12.570.86.15");
  return 0;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned int n) {
  if (is("nonsense")) {
    fill(v, n, '5'); /* unterminated */
    return 0;
  }
  copy(v, n, "570.86.15");
  return 0;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = is("nonsense") ? INT_MIN : 12080;
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
  if (is("nonsense")) {
    copy(name, n, "NVIDIA \x1b[31mH100\xc3\x28"); /* an escape sequence, then not UTF-8 */
    return 0;
  }
  copy(name, n, "NVIDIA H100 80GB HBM3");
  return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned int n) {
  (void)d;
  if (is("nonsense")) {
    copy(uuid, n, ""); /* empty */
    return 0;
  }
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
  if (is("nonsense")) {
    fill(pci->busId, sizeof pci->busId, 'f'); /* as long as the buffer, unterminated */
  }
  return 0;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  (void)d;
  *major = is("nonsense") ? -1 : 9;
  *minor = is("nonsense") ? 1000 : 0;
  return 0;
}

/* The processes of the "busy" mode: $FAKE_NVML_PROCS, "pid:bytes,pid:bytes" (bytes "na" for
 * NVML_VALUE_NOT_AVAILABLE), as compute processes; at most `cap` are parsed. Returns the count. */
static unsigned busy_processes(nvmlProcessInfo_t* out, unsigned cap) {
  const char* p = getenv("FAKE_NVML_PROCS");
  unsigned n = 0;
  while (p && *p && n < cap) {
    char* end = NULL;
    out[n].pid = (unsigned)strtoul(p, &end, 10);
    out[n].usedGpuMemory = 0;
    if (end && *end == ':') {
      out[n].usedGpuMemory = strncmp(end + 1, "na", 2) == 0 ? ~0ULL : strtoull(end + 1, &end, 10);
    }
    out[n].gpuInstanceId = out[n].computeInstanceId = 0xFFFFFFFFU;
    ++n;
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  return n;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  (void)d;
  m->total = is("nonsense") ? ~0ULL : 85520809984ULL;
  m->free = is("nonsense") ? ~0ULL : 84825473024ULL;
  if (is("busy")) {
    nvmlProcessInfo_t procs[16];
    const unsigned n = busy_processes(procs, 16);
    unsigned long long held = 536870912ULL; /* what the driver reserves */
    for (unsigned i = 0; i < n; ++i) {
      held += procs[i].usedGpuMemory == ~0ULL ? 0 : procs[i].usedGpuMemory;
    }
    m->free = held < m->total ? m->total - held : 0;
  }
  m->used = m->total - m->free;
  return 0;
}

/* nvmlDeviceGetComputeRunningProcesses_v3 (nvmlProcessInfo_t): none but in the "busy" mode. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* count,
                                                     nvmlProcessInfo_t* infos) {
  nvmlProcessInfo_t procs[16];
  const unsigned n = is("busy") ? busy_processes(procs, 16) : 0;
  (void)d;
  if (*count < n) {
    *count = n;
    return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
  }
  memcpy(infos, procs, n * sizeof *infos);
  *count = n;
  return 0;
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int* count,
                                                      nvmlProcessInfo_t* infos) {
  (void)d;
  (void)infos;
  *count = 0;
  return 0;
}

/* Telemetry (nvml.h). Healthy values by default; the modes "overclock" (application clocks and
 * power limit above their defaults), "throttle" (hardware and software thermal slowdown at 92 C),
 * "rowremap" (a pending row remap, uncorrectable rows and ECC errors), "narrowlink" (x8 of
 * x16, with a steady replay count), "replays" (a replay counter that rises at each reading),
 * "persistoff" (persistence mode off) and "busy" (the compute processes of $FAKE_NVML_PROCS hold
 * the memory) each change their part; "nonsense" reports a temperature of 4000 C. Modes combine
 * with commas: "overclock,throttle". */
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int* mhz) {
  (void)d;
  *mhz = type == 0 ? 1755 : 2619;
  return 0;
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned int* mhz) {
  (void)d;
  *mhz = type == 0 ? 1980 : 2619;
  return 0;
}

nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t d, int type, unsigned int* mhz) {
  (void)d;
  *mhz = type == 0 ? (is("overclock") ? 2100 : 1755) : 2619;
  return 0;
}

nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t d, int type, unsigned int* mhz) {
  (void)d;
  *mhz = type == 0 ? 1755 : 2619;
  return 0;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* mw) {
  (void)d;
  *mw = 72000;
  return 0;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int* mw) {
  (void)d;
  *mw = is("overclock") ? 800000 : 700000;
  return 0;
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int* mw) {
  (void)d;
  *mw = 700000;
  return 0;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int* c) {
  (void)d;
  (void)sensor;
  *c = is("nonsense") ? 4000 : is("throttle") ? 92 : 34;
  return 0;
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int type, unsigned int* c) {
  (void)d;
  *c = type == 0 ? 92 : 87;
  return 0;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long* r) {
  (void)d;
  *r = is("throttle") ? 0x60ULL : 0x1ULL; /* thermal slowdown, hardware and software; else idle */
  return 0;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int* g) {
  (void)d;
  *g = 5;
  return 0;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int* g) {
  (void)d;
  *g = 5;
  return 0;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int* w) {
  (void)d;
  *w = is("narrowlink") ? 8 : 16;
  return 0;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int* w) {
  (void)d;
  *w = 16;
  return 0;
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int* n) {
  static unsigned calls;
  (void)d;
  /* "replays": 40 at the first reading, 7 more at each one after; "narrowlink": a steady 1234. */
  *n = is("replays") ? 40U + 7U * calls++ : is("narrowlink") ? 1234 : 0;
  return 0;
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, unsigned int* on) {
  (void)d;
  *on = is("persistoff") ? 0 : 1;
  return 0;
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, unsigned int* m) {
  (void)d;
  *m = 0;
  return 0;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, unsigned int* current, unsigned int* pending) {
  (void)d;
  *current = 1;
  *pending = 1;
  return 0;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int error_type, int counter_type,
                                         unsigned long long* n) {
  (void)d;
  (void)counter_type;
  *n = error_type == 1 && is("rowremap") ? 3 : 0;
  return 0;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, unsigned int* pending) {
  (void)d;
  *pending = 0;
  return 0;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int* corr, unsigned int* unc,
                                       unsigned int* pending, unsigned int* failed) {
  (void)d;
  *corr = 0;
  *unc = is("rowremap") ? 2 : 0;
  *pending = is("rowremap") ? 1 : 0;
  *failed = 0;
  return 0;
}
