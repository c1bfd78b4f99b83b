// Elementwise helpers on 16-bit float bit patterns (float16 and bfloat16 as uint16), shared by
// lowp.cpp's fused mixed-precision kernels and gemm.cpp's 16-bit GEMM through float32 (sgemm16).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

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

constexpr int64_t kRun = 1024;  // elements per float32 scratch run (4 KB: stays in L1)

}  // namespace lowp16
}  // namespace spore
