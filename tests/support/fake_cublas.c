/* SPDX-License-Identifier: MIT
 *
 * A stand-in for libcublas.so.13 with cuBLAS's real C ABI (cublas_api.h) for the entry points the
 * stress child calls: cublasCreate_v2 and cublasSgemm_v2 (column-major, no transposes), computed
 * on the host memory that the fake libcuda (fake_cuda.c) hands out as device memory, and the
 * status names. FAKE_CUBLAS_MODE "wrong" flips bit 4 of element 7 of every result, as a broken
 * library or GPU would.
 *
 * Built by the integration tests with: gcc -shared -fPIC -Wl,-soname,libcublas.so.13
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int cublasStatus_t;
typedef void* cublasHandle_t;

static int handle_token;

cublasStatus_t cublasGetProperty(int type, int* value) {
  *value = type == 0 ? 13 : type == 1 ? 1 : 0;
  return 0;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t* h) {
  *h = &handle_token;
  return 0;
}

const char* cublasGetStatusName(cublasStatus_t s) {
  return s == 0 ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_INVALID_VALUE";
}

const char* cublasGetStatusString(cublasStatus_t s) {
  return s == 0 ? "success" : "an invalid value was used as an argument";
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n, int k,
                              const float* alpha, const float* a, int lda, const float* b, int ldb,
                              const float* beta, float* c, int ldc) {
  if (h != &handle_token || ta != 0 || tb != 0 || *alpha != 1.0f || *beta != 0.0f) {
    return 7;
  }
  for (int col = 0; col < n; ++col) {
    for (int row = 0; row < m; ++row) {
      float sum = 0;
      for (int x = 0; x < k; ++x) {
        sum += a[x * lda + row] * b[col * ldb + x];
      }
      c[col * ldc + row] = sum;
    }
  }
  const char* mode = getenv("FAKE_CUBLAS_MODE");
  if (mode != NULL && strcmp(mode, "wrong") == 0 && m * n > 7) {
    uint32_t bits;
    memcpy(&bits, &c[7], 4);
    bits ^= 16u;
    memcpy(&c[7], &bits, 4);
  }
  return 0;
}
