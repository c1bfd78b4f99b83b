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

#include "kernels.h"

namespace spore {

// Output tiles along the longer of M and N: about 8 of them (so two threads balance at tile
// granularity), 64 to 512 wide and a multiple of 16 (whole vector blocks of oneDNN's kernels).
inline dnnl_dim_t gemm_tile(dnnl_dim_t dim) {
    const dnnl_dim_t t = ((dim + 7) / 8 + 15) / 16 * 16;
    return std::min(dim, std::clamp<dnnl_dim_t>(t, 64, 512));
}

// C[M,N] = alpha * op(A) @ op(B) + beta * C, row-major, op given by ta/tb ('N' or 'T'); oneDNN's
// dnnl_sgemm arguments. Returns oneDNN's status (the first failure of any tile).
inline dnnl_status_t team_sgemm(char ta, char tb, dnnl_dim_t M, dnnl_dim_t N, dnnl_dim_t K, float alpha,
                                const float* A, dnnl_dim_t lda, const float* B, dnnl_dim_t ldb, float beta,
                                float* C, dnnl_dim_t ldc) {
    const int saved = omp_get_max_threads();
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
