// float32 GEMM for Spore's MatMul and Dense kernels: below the GEMM grain one oneDNN sgemm on the
// calling thread; above it, fixed tiles of the output handed to the OpenMP team one at a time.
//
// Why tiles and not oneDNN's own threading: oneDNN splits a product statically, one share per
// thread. When another process holds one of the cores (an IDE's language server, a browser, a
// notebook kernel), the thread sharing that core finishes its share late and the whole product waits
// for it. With tiles taken dynamically (`schedule(dynamic, 1)`) the thread that runs takes the next
// tile, so a busy core costs its share of the CPU and no more. The tiles depend on the shape alone,
// and each is one single-threaded sgemm (oneDNN runs one thread inside an active parallel region),
// so every element is summed in the same order whatever the team size: 1, 2 or N threads give the
// same bits.
#pragma once

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

#include "grain.h"
#include "kernels.h"

namespace spore {

// Output tiles along the longer of M and N: about 8 of them (so two threads balance at tile
// granularity), 64 to 512 wide and a multiple of 16 (whole vector blocks of oneDNN's kernels).
inline dnnl_dim_t gemm_tile(dnnl_dim_t dim) {
    const dnnl_dim_t t = ((dim + 7) / 8 + 15) / 16 * 16;
    return std::min(dim, std::clamp<dnnl_dim_t>(t, 64, 512));
}

// Row padding of B. oneDNN's AVX2 sgemm runs an untransposed B whose rows lie a multiple of 2 KiB
// apart (N = 512, 1024, 4096 floats: every power-of-two layer width) up to 2x slower when B's address
// is 32-byte aligned (measured at every 4-byte offset: only 0 and 32 mod 64 are slow), and malloc
// hands out either alignment: a 256x4096 @ 4096x4096 input gradient took 130 or 240 ms depending on
// where the weight (or its float32 twin) landed, per process and from step to step. Such a B is
// copied into rows 64 bytes longer: one pass over it (~10 ms for 64 MiB) against the ~100 ms lost.
// There the layout changes no bit: the AVX2 sgemm sums in the same order whatever B's address and
// leading dimension (tested). For products with at least 64 rows of A, where the GEMM is >= 64x the
// copy; `set_gemm_row_padding` turns it off to compare (bench/bench_gemm_rows.py).
//
// Only where oneDNN runs its AVX2 sgemm. Its AVX-512 sgemm has no slow alignment (measured flat at
// all 16 offsets) but sums in an order that depends on the leading dimension, so there the copy would
// make the bits depend on where malloc put B: a process, or a team size, whose B landed elsewhere got
// other bits.
inline bool sgemm_is_avx512() {
    static const bool v = (static_cast<unsigned>(dnnl_get_effective_cpu_isa()) & dnnl_cpu_isa_avx512_core) ==
                          static_cast<unsigned>(dnnl_cpu_isa_avx512_core);
    return v;
}

inline std::atomic<bool>& gemm_row_padding() {
    static std::atomic<bool> on{!sgemm_is_avx512()};
    return on;
}

inline bool pads_b(char tb, dnnl_dim_t M, dnnl_dim_t N, dnnl_dim_t K, const float* B, dnnl_dim_t ldb) {
    return tb == 'N' && ldb % 512 == 0 && reinterpret_cast<uintptr_t>(B) % 32 == 0 && M >= 64 && N >= 256 &&
           M * N * K >= (int64_t{4} << 20) && gemm_row_padding().load(std::memory_order_relaxed);
}

// B's K rows of N floats copied into `own` with rows of N + 16 floats; returns the new leading dimension.
inline dnnl_dim_t pad_b(const float*& B, dnnl_dim_t N, dnnl_dim_t K, dnnl_dim_t ldb, std::unique_ptr<float[]>& own) {
    const dnnl_dim_t ld = N + 16;
    own.reset(new float[static_cast<size_t>(K * ld)]);
    const float* src = B;
    float* dst = own.get();
    parallel_for(K, 2 * K * N, [&](int64_t lo, int64_t hi) {
        for (int64_t k = lo; k < hi; ++k) std::memcpy(dst + k * ld, src + k * ldb, static_cast<size_t>(N) * sizeof(float));
    });
    B = dst;
    return ld;
}

// C[M,N] = alpha * op(A) @ op(B) + beta * C, row-major, op given by ta/tb ('N' or 'T'); oneDNN's
// dnnl_sgemm arguments. Returns oneDNN's status (the first failure of any tile).
inline dnnl_status_t team_sgemm(char ta, char tb, dnnl_dim_t M, dnnl_dim_t N, dnnl_dim_t K, float alpha,
                                const float* A, dnnl_dim_t lda, const float* B, dnnl_dim_t ldb, float beta,
                                float* C, dnnl_dim_t ldc) {
    const int saved = omp_get_max_threads();
    std::unique_ptr<float[]> padded;
    if (pads_b(tb, M, N, K, B, ldb)) ldb = pad_b(B, N, K, ldb, padded);
    if (M * N * K < kGemmGrain) {  // small: this thread alone (a team would cost more than it saves)
        GemmTeam one(M * N * K);
        return dnnl_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }
    const bool split_n = N >= M;
    const dnnl_dim_t dim = split_n ? N : M, tile = gemm_tile(dim);
    const int64_t tiles = (dim + tile - 1) / tile;
    std::atomic<int> status{dnnl_success};
    const auto run = [&](int64_t t) {
        const dnnl_dim_t lo = t * tile, w = std::min(tile, dim - lo);
        dnnl_status_t st;
        if (split_n)  // columns lo..lo+w of op(B) and of C
            st = dnnl_sgemm(ta, tb, M, w, K, alpha, A, lda, tb == 'N' ? B + lo : B + lo * ldb, ldb, beta, C + lo,
                            ldc);
        else  // rows lo..lo+w of op(A) and of C
            st = dnnl_sgemm(ta, tb, w, N, K, alpha, ta == 'N' ? A + lo * lda : A + lo, lda, B, ldb, beta,
                            C + lo * ldc, ldc);
        if (st != dnnl_success) status.store(st, std::memory_order_relaxed);
    };
    if (saved == 1 || tiles == 1) {
        omp_set_num_threads(1);  // each tile single-threaded, as on the team
        for (int64_t t = 0; t < tiles; ++t) run(t);
        omp_set_num_threads(saved);
    } else {
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t t = 0; t < tiles; ++t) run(t);
    }
    return static_cast<dnnl_status_t>(status.load());
}

}  // namespace spore
