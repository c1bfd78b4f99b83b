// Matrix multiply through oneDNN's sgemm (the tuned GEMM that MindSpore's and PyTorch's CPU
// backends also use). Row-major: C[M,N] = op(A) @ op(B).
//
// MatMul/BatchMatMul route float32 here (spore/ops/linalg.py): at one thread on the MLP and CNN
// shapes it beats NumPy's OpenBLAS by 1.1-3x (numbers in the H2a report); below ~1e5 multiply-adds
// NumPy's lower call overhead wins and the Python side keeps those.
#include <dnnl.h>

#include <algorithm>
#include <stdexcept>

#include "kernels.h"

namespace spore {

static py::array_t<float> sgemm(farr a, farr b, bool trans_a, bool trans_b) {
    if (a.ndim() != 2 || b.ndim() != 2) throw std::invalid_argument("sgemm: 2-D inputs expected");
    const dnnl_dim_t M = trans_a ? a.shape(1) : a.shape(0);
    const dnnl_dim_t K = trans_a ? a.shape(0) : a.shape(1);
    const dnnl_dim_t Kb = trans_b ? b.shape(1) : b.shape(0);
    const dnnl_dim_t N = trans_b ? b.shape(0) : b.shape(1);
    if (K != Kb) throw std::invalid_argument("sgemm: inner dimensions differ");
    py::array_t<float> c({M, N});
    const float* pa = a.data();
    const float* pb = b.data();
    float* pc = c.mutable_data();
    const dnnl_dim_t lda = a.shape(1), ldb = b.shape(1);
    dnnl_status_t st;
    {
        py::gil_scoped_release nogil;
        if (M * N == 0) return c;
        if (K == 0) {  // an empty sum: zeros (never hand BLAS a zero inner dimension)
            std::fill(pc, pc + M * N, 0.0f);
            return c;
        }
        st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, 1.0f, pa, lda, pb, ldb, 0.0f, pc, N);
    }
    if (st != dnnl_success) throw std::runtime_error("sgemm: oneDNN failed");
    return c;
}

void register_gemm(py::module_& m) {
    m.def("sgemm", &sgemm, py::arg("a"), py::arg("b"), py::arg("trans_a") = false, py::arg("trans_b") = false,
          "C = op(A) @ op(B) for float32 matrices, via oneDNN sgemm");
}

}  // namespace spore
