// SPDX-License-Identifier: MIT
// The stress command's kernels (docs/stress.md). Compiled to PTX by scripts/gen_stress_ptx.sh,
// which lowers the PTX ISA so that drivers back to the CUDA 11.0 era JIT it; the PTX is committed
// (stress_kernels.ptx) and embedded in the doctor. Plain C++ only: no CUDA runtime, no headers.

typedef unsigned long long u64;

// The word the memory test expects at index `i` of a chunk at `base` for `mode`:
// 0 the pattern itself (walking ones and zeros, moving inversions), 1 the word's own address
// (its low 32 bits) xor the pattern, 2 a seeded pseudo-random word (a 32-bit hash of the index)
// xor the pattern.
__device__ __forceinline__ unsigned expected_word(const unsigned* base, u64 i, unsigned mode,
                                                  unsigned pattern, unsigned seed) {
  if (mode == 1) {
    return (unsigned)(u64)(base + i) ^ pattern;
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

extern "C" __global__ void doctor_memtest_write(unsigned* base, u64 words, unsigned mode,
                                                unsigned pattern, unsigned seed) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
    base[i] = expected_word(base, i, mode, pattern, seed);
  }
}

// Counts the words that differ from what doctor_memtest_write wrote in `errors[0]` and logs the
// first `max_log` as three u64 each in `log`: the word's index, the expected and the actual
// value. `inject` (an index, or ~0 for none) makes the check read that word with bit 0 flipped:
// the fault-injection switch, so that the detection path itself is proven.
extern "C" __global__ void doctor_memtest_verify(const unsigned* base, u64 words, unsigned mode,
                                                 unsigned pattern, unsigned seed, u64* errors,
                                                 u64* log, unsigned max_log, u64 inject) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
    const unsigned want = expected_word(base, i, mode, pattern, seed);
    unsigned got = base[i];
    if (i == inject) {
      got ^= 1u;
    }
    if (got != want) {
      const u64 n = atomicAdd(errors, 1ull);
      if (n < max_log) {
        log[3 * n] = i;
        log[3 * n + 1] = want;
        log[3 * n + 2] = got;
      }
    }
  }
}

// C = A x B for n x n row-major matrices, n a multiple of 16, in 16 x 16 tiles. `corrupt` (an
// element index, or -1 for none) flips bit 0 of that element of C: the fault-injection switch.
extern "C" __global__ void doctor_sgemm(const float* a, const float* b, float* c, int n,
                                        int corrupt) {
  __shared__ float ta[16][16];
  __shared__ float tb[16][16];
  const int row = blockIdx.y * 16 + threadIdx.y;
  const int col = blockIdx.x * 16 + threadIdx.x;
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) {
      sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    }
    __syncthreads();
  }
  const int index = row * n + col;
  if (index == corrupt) {
    sum = __int_as_float(__float_as_int(sum) ^ 1);
  }
  c[index] = sum;
}

// Copies `count` 16-byte words from `src` to `dst`: the device-memory bandwidth test.
extern "C" __global__ void doctor_copy(const uint4* src, uint4* dst, u64 count) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    dst[i] = src[i];
  }
}
