// The one grain rule for Spore's own OpenMP loops (GEMMs have theirs, kGemmGrain in kernels.h).
//
// A loop whose work is below the grain runs as a plain loop on the calling thread; above it, over the
// OpenMP team in contiguous static chunks. Two reasons it is a branch in C++ and not an OpenMP
// `if(...)` clause:
// - waking a second thread costs tens of microseconds under the passive wait policy
//   (spore._runtime.threads) and a whole scheduler quantum when the machine is busy, more than the
//   MLP's and SimpleCNN's pooling/epilogue/cast loops take on one thread (measured on 2 cores, AMD
//   EPYC, AVX-512: bench/bench_threads_grain.py kernels);
// - a serialised `omp parallel for simd ... if(false)` region still builds a team of one and ran
//   these loops 5-20x slower than the plain loop with GCC 12 (2.7 ns per element vs 0.1).
// Every iteration computes the same values whoever runs it (elementwise work, or reductions whose
// order does not follow the split), so results are bit-identical across team sizes.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace spore {

// Work units: elements read plus written (pooling: window taps plus outputs). 2M units is ~200-500
// us of these loops on one thread, above what a second thread's wake-up and barrier cost. At 1M,
// SimpleCNN's (32x16x32x32) ReLU gradient (1.5M units) and max pooling (1.2M) ran on the team and
// its steps stayed 0.85-0.89x at 2 threads on a shared 2-core machine; at 2M both nets' loops run
// on one thread and the team takes e.g. a 256x4096 ReLU gradient (3M) or a 4096x4096 weight cast.
constexpr int64_t kLoopGrain = int64_t{1} << 21;

// Whether a loop of `work` units runs on the team (more than one thread and at least the grain).
inline bool use_team(int64_t work, int64_t grain = kLoopGrain) {
    return work >= grain && omp_get_max_threads() > 1;
}

// body(lo, hi) over [0, n): on this thread below the grain (one call, lo = 0, hi = n), else each team
// thread gets one contiguous chunk (one call per thread, so per-chunk scratch is per-thread scratch).
template <typename F>
void parallel_for(int64_t n, int64_t work, const F& body, int64_t grain = kLoopGrain) {
    if (n <= 0) return;
    if (n == 1 || !use_team(work, grain)) {
        body(int64_t{0}, n);
        return;
    }
#pragma omp parallel
    {
        const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
        const int64_t chunk = (n + nt - 1) / nt;
        const int64_t lo = std::min(n, t * chunk), hi = std::min(n, (t + 1) * chunk);
        if (lo < hi) body(lo, hi);
    }
}

// Whether body(lo, hi) (a bool: "found one") is true for any chunk of [0, n), split as parallel_for.
template <typename F>
bool parallel_any(int64_t n, int64_t work, const F& body, int64_t grain = kLoopGrain) {
    std::atomic<bool> any{false};
    parallel_for(n, work, [&](int64_t lo, int64_t hi) {
        if (body(lo, hi)) any.store(true, std::memory_order_relaxed);
    }, grain);
    return any.load(std::memory_order_relaxed);
}

}  // namespace spore
