/* SPDX-License-Identifier: MIT
 *
 * A stand-in for libcudnn.so.9 with cuDNN's real C ABI (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h
 * of cuDNN 9: size_t versions, cudnnStatus_t as int, opaque descriptor pointers, the 4-D
 * descriptor setters and cudnnConvolutionForward). Its "device" pointers are host memory (see
 * fake_cuda.c), so the convolution runs here. FAKE_CUDNN_MODE selects a behaviour:
 *   "ok"       (default) version 9.1.0, cudart 12.4, cudnnCreate succeeds, the convolution is right;
 *   "wrong"    as "ok", but one output value of the convolution is off by 0.5 (a GPU that
 *              computes wrong numbers);
 *   "noinit"   cudnnCreate returns 1001 (CUDNN_STATUS_NOT_INITIALIZED), as the real library
 *              without a driver;
 *   "segv"     cudnnGetVersion writes a line to standard error, then dereferences NULL;
 *   "hang"     cudnnGetVersion never returns;
 *   "killpg"   cudnnGetVersion sends SIGTERM to its whole process group (kill(0, …));
 *   "fork"     cudnnGetVersion forks a grandchild that holds the report pipe and sleeps 300 s,
 *              writing its pid to $FAKE_CUDNN_PIDFILE, then answers as "ok".
 *
 * Built by the integration tests with: gcc -shared -fPIC -Wl,-soname,libcudnn.so.9, and by the
 * wine tests with x86_64-w64-mingw32-gcc -shared -o cudnn64_9.dll (tests/windows/test_probe.py),
 * where "killpg" and "fork" answer as "ok" (no process groups, no fork).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <unistd.h>
#endif

typedef int cudnnStatus_t;
typedef struct {
  int n, c, h, w;
} Desc;
typedef struct {
  int pad;
} ConvDesc;

static int handle_token;

static const char* mode(void) {
  const char* m = getenv("FAKE_CUDNN_MODE");
  return m ? m : "ok";
}

size_t cudnnGetVersion(void) {
  const char* m = mode();
  if (strcmp(m, "segv") == 0) {
    fprintf(stderr, "fake cudnn: about to dereference NULL\n");
    fflush(stderr);
    volatile int* p = NULL;
    return (size_t)*p;
  }
  if (strcmp(m, "hang") == 0) {
    for (;;) {
#ifdef _WIN32
      Sleep(1000);
#else
      pause();
#endif
    }
  }
#ifndef _WIN32
  if (strcmp(m, "killpg") == 0) {
    kill(0, SIGTERM);
    sleep(5);
  }
  if (strcmp(m, "fork") == 0) {
    pid_t pid = fork();
    if (pid == 0) {
      sleep(300);
      _exit(0);
    }
    const char* f = getenv("FAKE_CUDNN_PIDFILE");
    if (f != NULL) {
      FILE* out = fopen(f, "w");
      if (out != NULL) {
        fprintf(out, "%d\n", (int)pid);
        fclose(out);
      }
    }
  }
#endif
  return 90100;
}

size_t cudnnGetCudartVersion(void) {
  return 12040;
}

const char* cudnnGetErrorString(cudnnStatus_t s) {
  switch (s) {
  case 0: return "CUDNN_STATUS_SUCCESS";
  case 1001: return "CUDNN_STATUS_NOT_INITIALIZED";
  default: return "CUDNN_STATUS_UNKNOWN";
  }
}

cudnnStatus_t cudnnCreate(void** handle) {
  if (strcmp(mode(), "noinit") == 0) {
    return 1001;
  }
  *handle = &handle_token;
  return 0;
}

cudnnStatus_t cudnnCreateTensorDescriptor(void** d) {
  *d = calloc(1, sizeof(Desc));
  return 0;
}

cudnnStatus_t cudnnSetTensor4dDescriptor(void* d, int format, int type, int n, int c, int h, int w) {
  (void)format;
  (void)type;
  Desc* t = d;
  t->n = n, t->c = c, t->h = h, t->w = w;
  return 0;
}

cudnnStatus_t cudnnCreateFilterDescriptor(void** d) {
  *d = calloc(1, sizeof(Desc));
  return 0;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(void* d, int type, int format, int k, int c, int h, int w) {
  (void)format;
  (void)type;
  Desc* t = d;
  t->n = k, t->c = c, t->h = h, t->w = w;
  return 0;
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(void** d) {
  *d = calloc(1, sizeof(ConvDesc));
  return 0;
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(
    void* d, int pad_h, int pad_w, int u, int v, int dil_h, int dil_w, int mode_, int type) {
  (void)pad_w, (void)u, (void)v, (void)dil_h, (void)dil_w, (void)mode_, (void)type;
  ((ConvDesc*)d)->pad = pad_h;
  return 0;
}

/* Cross-correlation, NCHW, stride 1, the descriptor's zero padding. */
cudnnStatus_t cudnnConvolutionForward(void* handle, const void* alpha, const void* xd,
                                      const void* x, const void* wd, const void* w,
                                      const void* cd, int algo, void* ws, size_t ws_size,
                                      const void* beta, const void* yd, void* y) {
  (void)handle, (void)alpha, (void)algo, (void)ws, (void)ws_size, (void)beta;
  const Desc* X = xd;
  const Desc* W = wd;
  const Desc* Y = yd;
  const int pad = ((const ConvDesc*)cd)->pad;
  const float* xs = x;
  const float* fs = w;
  float* ys = y;
  for (int n = 0; n < Y->n; ++n)
    for (int k = 0; k < Y->c; ++k)
      for (int p = 0; p < Y->h; ++p)
        for (int q = 0; q < Y->w; ++q) {
          double sum = 0;
          for (int c = 0; c < X->c; ++c)
            for (int r = 0; r < W->h; ++r)
              for (int s = 0; s < W->w; ++s) {
                int ih = p + r - pad, iw = q + s - pad;
                if (ih < 0 || iw < 0 || ih >= X->h || iw >= X->w) continue;
                sum += (double)xs[((n * X->c + c) * X->h + ih) * X->w + iw] *
                       fs[((k * W->c + c) * W->h + r) * W->w + s];
              }
          ys[((n * Y->c + k) * Y->h + p) * Y->w + q] = (float)sum;
        }
  if (strcmp(mode(), "wrong") == 0) {
    ys[5] += 0.5f;
  }
  return 0;
}
