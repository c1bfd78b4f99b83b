// Shared declarations of spore._kernels: each kernel family lives in its own .cpp file and
// registers its functions into the module through one of these hooks (called from module.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <omp.h>

#include <cstdint>

namespace py = pybind11;

namespace spore {

// C-contiguous float32 array, the layout every kernel takes (callers make inputs contiguous).
using farr = py::array_t<float, py::array::c_style | py::array::forcecast>;

// Grain size of a GEMM (multiply-adds) below which it runs on the calling thread alone. Waking a
// second thread costs tens of microseconds under the passive wait policy (spore._runtime.threads) and
// a whole scheduler quantum when the machine is busy; measured on 2 cores (AMD EPYC, AVX-512,
// passive): 64x784x256 (12.8M) ran 110 us on 1 thread and 120 us on 2, 256x1024x4096 (1.07G) 24.8 ms
// vs 15.0 ms. 16M puts the MLP's and LeNet's GEMMs on one thread and the large ones on the team.
constexpr int64_t kGemmGrain = int64_t{16} << 20;

// Scoped: the calling thread's OpenMP team is 1 while `macs` is below the grain (oneDNN's GEMM
// reads omp_get_max_threads() on every call, and the setting is per calling thread).
class GemmTeam {
public:
    explicit GemmTeam(int64_t macs) : saved_(omp_get_max_threads()), changed_(macs < kGemmGrain && saved_ > 1) {
        if (changed_) omp_set_num_threads(1);
    }
    ~GemmTeam() {
        if (changed_) omp_set_num_threads(saved_);
    }
    GemmTeam(const GemmTeam&) = delete;
    GemmTeam& operator=(const GemmTeam&) = delete;

private:
    int saved_;
    bool changed_;
};

// Column sums of an (m, n) row-major matrix, rows added in order (NumPy's order for axis 0): a Dense
// layer's bias gradient (dense.cpp, and lowp.cpp's 16-bit backward on the widened gradient).
inline void column_sums(const float* r, int64_t m, int64_t n, float* db) {
    for (int64_t j = 0; j < n; ++j) db[j] = 0.0f;
    for (int64_t i = 0; i < m; ++i) {
        const float* row = r + i * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) db[j] += row[j];
    }
}

void register_gemm(py::module_& m);    // gemm.cpp: sgemm through oneDNN
void register_dense(py::module_& m);   // dense.cpp: Dense-layer epilogues (bias, ReLU, bias gradient)
void register_conv(py::module_& m);    // conv.cpp: conv2d forward/backward (oneDNN)
void register_pool(py::module_& m);    // pool.cpp: max/avg pooling forward/backward
void register_norm(py::module_& m);    // norm.cpp: batch/layer norm forward/backward
void register_loss(py::module_& m);    // loss.cpp: softmax cross-entropy forward/backward
void register_optim(py::module_& m);   // optim.cpp: fused optimizer updates (Adam, Momentum, SGD)
void register_fused(py::module_& m);   // fused.cpp: Graph mode's fused elementwise chains
void register_int8(py::module_& m);    // int8.cpp: int8 matmul/conv (oneDNN), quantize/dequantize
void register_lowp(py::module_& m);    // lowp.cpp: bf16 conv (oneDNN), ReLU on float16/bfloat16

}  // namespace spore
