// Convolution passes above the GEMM grain as fixed chunks of the batch (conv.cpp's float32 and
// lowp.cpp's bfloat16 convolutions): each chunk is one single-threaded oneDNN primitive of the
// chunk's geometry, and the OpenMP team takes chunks one at a time (`schedule(dynamic, 1)`), as
// team_gemm.h does with GEMM tiles.
//
// Why not oneDNN's own threading: it splits a pass statically, one share per thread, and when another
// process holds one of the cores the whole pass waits for the thread sharing it (measured: a 32->64
// 3x3 conv net trained at 0.68-0.91x the 1-thread speed on 2 threads of a busy 2-core machine). The
// chunks depend on the shape alone and weight gradients are added in chunk order (`add_chunk_grads`),
// so 1, 2 or N threads give the same bits.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "kernels.h"

namespace spore {

// Runs a scope with OpenMP (and so oneDNN, which sizes its primitives by omp_get_max_threads() when
// they are created) on the calling thread alone.
struct OneThread {
    int saved = omp_get_max_threads();
    OneThread() { omp_set_num_threads(1); }
    ~OneThread() { omp_set_num_threads(saved); }
    OneThread(const OneThread&) = delete;
    OneThread& operator=(const OneThread&) = delete;
};

struct BatchSplit {
    int64_t size, count;  // samples per chunk (the last may have fewer), chunks
};

constexpr int64_t kConvChunks = 8;  // enough for two or three threads to balance at chunk granularity

// The chunks of a batch of `n` for a pass of `macs` multiply-adds: one (the whole batch) below the
// grain, for a batch of one, or when `allowed` is false (a forced layout, kept whole for diagnosis).
inline BatchSplit split_batch(int64_t n, int64_t macs, bool allowed) {
    if (!allowed || n < 2 || macs < kGemmGrain) return {n, 1};
    const int64_t size = (n + kConvChunks - 1) / kConvChunks;
    return {size, (n + size - 1) / size};
}

// run(chunk geometry, first sample, chunk index) for every chunk of `bs`, each on one thread. The
// entries are per thread (thread_local caches); the calling thread first resolves the chunk
// geometries' entries (`prepare`) - tuning them if this is the first time - so the team's threads
// only build theirs from the recorded decision. An exception in any chunk is rethrown here.
template <class G, class Prepare, class Run>
void over_chunks(const G& gm, const BatchSplit& bs, const Prepare& prepare, const Run& run) {
    const auto sub = [&](int64_t k) {
        G g = gm;
        g.n = std::min(bs.size, gm.n - k * bs.size);
        return g;
    };
    const int threads = omp_get_max_threads();
    {
        OneThread one;
        prepare(sub(0));
        if (bs.count > 1 && sub(bs.count - 1).n != bs.size) prepare(sub(bs.count - 1));
        if (threads == 1) {
            for (int64_t k = 0; k < bs.count; ++k) run(sub(k), k * bs.size, k);
            return;
        }
    }
    std::exception_ptr err;
    std::mutex mu;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t k = 0; k < bs.count; ++k) {
        try {
            OneThread one;  // this thread's entries are built for, and keyed by, one thread
            run(sub(k), k * bs.size, k);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mu);
            if (!err) err = std::current_exception();
        }
    }
    if (err) std::rethrow_exception(err);
}

// Float32 partial gradients of chunks 1..count-1 (`per_chunk` floats each; chunk 0 writes the output
// itself): this thread's buffer, reused across calls (a training step asks for the same sizes).
inline float* chunk_scratch(int64_t count, int64_t per_chunk) {
    thread_local std::vector<float> buf;
    const size_t need = static_cast<size_t>((count - 1) * per_chunk);
    if (buf.size() < need) buf.resize(need);
    return buf.data();
}

// Chunk k's gradient destination: `out` for chunk 0, else its part of `parts`.
inline float* chunk_dst(float* out, float* parts, int64_t k, int64_t size) {
    return k == 0 ? out : parts + (k - 1) * size;
}

// out += parts[0] + parts[1] + ... in chunk order (so the bits do not depend on who ran which chunk).
inline void add_chunk_grads(float* out, const float* parts, int64_t count, int64_t size) {
    for (int64_t k = 1; k < count; ++k) {
        const float* p = parts + (k - 1) * size;
#pragma omp simd
        for (int64_t i = 0; i < size; ++i) out[i] += p[i];
    }
}

}  // namespace spore
