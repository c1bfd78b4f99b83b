// Elementwise helpers on 16-bit float bit patterns (float16 and bfloat16 as uint16), shared by
// lowp.cpp's fused mixed-precision kernels and gemm.cpp's 16-bit GEMM through float32 (sgemm16).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <memory>

namespace spore {
namespace lowp16 {

// widen16: a run of 16-bit values to float32 (exact); narrow16: float32 to the 16-bit format with the
// bits of lowp.cpp's cvt_* kernels (round to nearest even, NaN kept quiet). Kernels built on them
// compute in float32 exactly as NumPy does on the widened arrays and round once, so they give the
// bits of `cast(ufunc(cast(a, f32), cast(b, f32)), dt)` in one pass.

inline void widen16(const uint16_t* src, float* dst, int64_t n, bool bf16) {
    if (bf16) {
        uint32_t* d = reinterpret_cast<uint32_t*>(dst);
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) d[i] = static_cast<uint32_t>(src[i]) << 16;
        return;
    }
    int64_t i = 0;
#if defined(__F16C__)  // 256-bit F16C: the 512-bit forms trip GCC 12's -Wmaybe-uninitialized when inlined
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
#else
    for (; i < n; ++i) {
        _Float16 h;
        std::memcpy(&h, src + i, 2);
        dst[i] = static_cast<float>(h);
    }
#endif
}

inline void narrow16(const float* src, uint16_t* dst, int64_t n, bool bf16) {
    if (bf16) {
        const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) {
            const uint32_t u = s[i];
            const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
            const uint32_t nan = (u >> 16) | 0x40u;
            dst[i] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
        }
        return;
    }
    int64_t i = 0;
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i) dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
#else
    for (; i < n; ++i) {
        const _Float16 h = static_cast<_Float16>(src[i]);
        std::memcpy(dst + i, &h, 2);
    }
#endif
}

// x + y, with NumPy's NaN: when both are NaN the result is x's (quieted). The compiler may commute a
// plain `x + y`, and x86 then returns y's payload.
inline float add_first_nan(float x, float y) {
    const float r = x + y;
    return x != x ? x + x : r;
}

// ReLU and its gradient on 16-bit bit patterns (`inf`: the format's exponent mask, 0x7c00 for float16,
// 0x7f80 for bfloat16; magnitude bits above it are a NaN). Both are exact in any binary float format.
inline uint16_t relu_bits(uint16_t u, uint16_t inf) {
    const bool neg = (u & 0x8000) && (u & 0x7fff) <= inf;  // negative, -0 or -inf: not a NaN
    return neg ? uint16_t{0} : u;
}

inline uint16_t relu_grad_bits(uint16_t u, uint16_t v, uint16_t inf, uint16_t qnan) {
    const bool pass = !(u & 0x8000) && u != 0 && u <= inf;  // y > 0 (a NaN is not)
    const uint16_t mag = v & 0x7fff;
    const uint16_t zero = mag == inf ? qnan : mag > inf ? v : static_cast<uint16_t>(v & 0x8000);
    return pass ? v : zero;
}

// Float32 scratch for n elements, not zeroed: this thread's reused buffer up to 4M elements (a fresh
// one per call cost page faults and zeroing, ~25 us on an MLP layer), a one-off allocation above
// (in `own`). One buffer per thread: a caller takes all it needs in one call.
inline float* widen_scratch(int64_t n, std::unique_ptr<float[]>& own) {
    constexpr int64_t kKeep = int64_t{1} << 22;
    if (n > kKeep) {
        own.reset(new float[static_cast<size_t>(n)]);
        return own.get();
    }
    thread_local std::unique_ptr<float[]> buf;
    thread_local int64_t cap = 0;
    if (n > cap) {
        buf.reset(new float[static_cast<size_t>(n)]);
        cap = n;
    }
    return buf.get();
}

constexpr int64_t kRun = 1024;  // elements per float32 scratch run (4 KB: stays in L1)

// p[i] = float32(round16(p[i])) in place: a float32 result stored in 16 bits and read back (a weight
// gradient cast back to its float32 master gradient), through a small 16-bit buffer.
inline void round16(float* p, int64_t n, bool bf16) {
    alignas(64) uint16_t h[kRun];
    for (int64_t i = 0; i < n; i += kRun) {
        const int64_t m = n - i < kRun ? n - i : kRun;
        narrow16(p + i, h, m, bf16);
        widen16(h, p + i, m, bf16);
    }
}

}  // namespace lowp16
}  // namespace spore
