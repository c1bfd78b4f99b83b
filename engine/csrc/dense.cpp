// Dense-layer kernels for Graph mode's fused equations (FusedDense in spore/compiler/passes/fusion.py,
// FusedReluGradBias and DenseBackward in backward_fusion.py) and ReluGrad's float32 kernel.
//
// A Dense layer's training step is, besides its GEMMs, a handful of passes over small activations:
// the bias add and the ReLU after the forward GEMM, the ReLU mask and the bias gradient (a column
// sum) before the backward GEMMs. Each of those as a NumPy call costs a temporary and 5-15 us of
// dispatch on the MLP's (64, 256) activations, about as much as the arithmetic; here each group is
// one pass over memory that is still in cache, in one call:
//   dense_forward   y = op(x) @ op(w) + b, optionally ReLU'd, written as the GEMM's epilogue;
//   relu_grad_bias  r = g * (y > 0) and db = column sums of r, in the same pass;
//   bias_grad       db = column sums of g (a Dense head's bias gradient, no mask).
//   dense_backward  the whole backward of a Dense layer (mask, bias, weight and input gradients);
//   relu_grad       r = g * (y > 0) for any shape (ReluGrad's float32 kernel in both modes).
// Masks and bias sums are bit-identical to the unfused ops: the mask multiplies by exactly 0 or 1
// (as ReluGrad's NumPy kernel does), and the column sums add rows in order, which is how NumPy
// reduces a C-contiguous matrix over axis 0. Products always go through oneDNN's sgemm, where the
// unfused MatMul leaves tiny ones (< 1e5 multiply-adds) to NumPy: those agree to float32 rounding.
#include <dnnl.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "grain.h"
#include "kernels.h"
#include "team_gemm.h"

namespace spore {
namespace {

struct Gemm {
    dnnl_dim_t m, n, k;
};

Gemm gemm_dims(const farr& a, const farr& b, bool trans_a, bool trans_b, const char* op) {
    if (a.ndim() != 2 || b.ndim() != 2) throw std::invalid_argument(std::string(op) + ": 2-D inputs expected");
    const Gemm g{trans_a ? a.shape(1) : a.shape(0), trans_b ? b.shape(0) : b.shape(1), trans_a ? a.shape(0) : a.shape(1)};
    if ((trans_b ? b.shape(1) : b.shape(0)) != g.k)
        throw std::invalid_argument(std::string(op) + ": inner dimensions differ");
    return g;
}

void check_sgemm(dnnl_status_t st) {
    if (st != dnnl_success) throw std::runtime_error("dense kernel: oneDNN sgemm failed");
}

// g where y > 0, else g * 0 (so an inf/NaN g stays NaN there, exactly as ReluGrad's NumPy kernel).
inline float mask_mul(float g, float y) {
    const float zeroed = g * 0.0f;  // computed unconditionally so the select below is a vector blend
    return y > 0.0f ? g : zeroed;
}

py::array_t<float> dense_forward(farr x, farr w, farr b, bool trans_a, bool trans_b, bool relu) {
    const Gemm g = gemm_dims(x, w, trans_a, trans_b, "dense_forward");
    if (b.ndim() != 1 || b.shape(0) != g.n)
        throw std::invalid_argument("dense_forward: bias must have one value per output column");
    py::array_t<float> y({g.m, g.n});
    const float *px = x.data(), *pw = w.data(), *pb = b.data();
    float* py_ = y.mutable_data();
    const dnnl_dim_t ldx = x.shape(1), ldw = w.shape(1);
    {
        py::gil_scoped_release nogil;
        if (g.m * g.n > 0) {
            // A few output columns from many rows (a classifier head, x @ W.T): oneDNN is ~3x faster
            // computing the transposed product W @ x.T; the epilogue writes it back transposed.
            const bool flip = trans_b && !trans_a && g.n <= 16 && g.m > 16;
            std::vector<float> tmp;
            if (g.k == 0) {
                std::fill(py_, py_ + g.m * g.n, 0.0f);
            } else if (flip) {
                tmp.resize(static_cast<size_t>(g.n * g.m));
                check_sgemm(team_sgemm('N', 'T', g.n, g.m, g.k, 1.0f, pw, ldw, px, ldx, 0.0f, tmp.data(), g.m));
            } else {
                check_sgemm(team_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', g.m, g.n, g.k, 1.0f, px, ldx, pw,
                                       ldw, 0.0f, py_, g.n));
            }
            for (dnnl_dim_t i = 0; i < g.m; ++i) {
                float* row = py_ + i * g.n;
                if (flip)
                    for (dnnl_dim_t j = 0; j < g.n; ++j) row[j] = tmp[j * g.m + i];
                if (relu) {
#pragma omp simd
                    for (dnnl_dim_t j = 0; j < g.n; ++j) row[j] = std::max(row[j] + pb[j], 0.0f);
                } else {
#pragma omp simd
                    for (dnnl_dim_t j = 0; j < g.n; ++j) row[j] += pb[j];
                }
            }
        }
    }
    return y;
}

py::tuple relu_grad_bias(farr g, farr y) {
    if (g.ndim() != 2 || y.ndim() != 2 || g.shape(0) != y.shape(0) || g.shape(1) != y.shape(1))
        throw std::invalid_argument("relu_grad_bias: g and y must be matrices of one shape");
    const dnnl_dim_t m = g.shape(0), n = g.shape(1);
    py::array_t<float> r({m, n});
    py::array_t<float> db(n);
    const float *pg = g.data(), *py_ = y.data();
    float *pr = r.mutable_data(), *pdb = db.mutable_data();
    {
        py::gil_scoped_release nogil;
#pragma omp simd
        for (dnnl_dim_t i = 0; i < m * n; ++i) pr[i] = mask_mul(pg[i], py_[i]);
        column_sums(pr, m, n, pdb);  // r is still in cache
    }
    return py::make_tuple(r, db);
}

// Any shape: ReluGrad's kernel for float32 (both modes), ~4x faster than NumPy's compare + multiply.
py::array_t<float> relu_grad(farr g, farr y) {
    if (g.ndim() != y.ndim() || g.size() != y.size())
        throw std::invalid_argument("relu_grad: g and y must have one shape");
    for (py::ssize_t d = 0; d < g.ndim(); ++d)
        if (g.shape(d) != y.shape(d)) throw std::invalid_argument("relu_grad: g and y must have one shape");
    py::array_t<float> r(std::vector<py::ssize_t>(g.shape(), g.shape() + g.ndim()));
    const float *pg = g.data(), *py_ = y.data();
    float* pr = r.mutable_data();
    const py::ssize_t size = g.size();
    {
        py::gil_scoped_release nogil;
        parallel_for(size, 3 * size, [&](int64_t i0, int64_t i1) {
#pragma omp simd
            for (int64_t i = i0; i < i1; ++i) pr[i] = mask_mul(pg[i], py_[i]);
        });
    }
    return r;
}

// A Dense layer's whole backward from the layer output's gradient g (N, O), its input x (N, I), its
// weight w (O, I) and, for a ReLU'd layer, its output y: r = g * (y > 0) (or g), db = column sums
// of r, dw = r^T @ x, and dx = r @ w — only when w is given (the first layer needs no dx). One call
// instead of four.
py::tuple dense_backward(farr g, farr x, const py::object& w_obj, const py::object& y_obj) {
    if (g.ndim() != 2 || x.ndim() != 2 || g.shape(0) != x.shape(0))
        throw std::invalid_argument("dense_backward: expected g (N, O) and x (N, I)");
    const dnnl_dim_t n = g.shape(0), o = g.shape(1), i = x.shape(1);
    const bool relu = !y_obj.is_none(), want_dx = !w_obj.is_none();
    farr y = relu ? py::cast<farr>(y_obj) : farr();
    farr w = want_dx ? py::cast<farr>(w_obj) : farr();
    if (relu && (y.ndim() != 2 || y.shape(0) != n || y.shape(1) != o))
        throw std::invalid_argument("dense_backward: y must have the shape of g");
    if (want_dx && (w.ndim() != 2 || w.shape(0) != o || w.shape(1) != i))
        throw std::invalid_argument("dense_backward: w must be (O, I) for g (N, O) and x (N, I)");
    py::array_t<float> dw({o, i});
    py::array_t<float> db(o);
    py::object dx = py::none();
    float* pdx = nullptr;
    if (want_dx) {
        py::array_t<float> a({n, i});
        pdx = a.mutable_data();
        dx = a;
    }
    const float *pg = g.data(), *px = x.data(), *pw = want_dx ? w.data() : nullptr, *py_ = relu ? y.data() : nullptr;
    float *pdw = dw.mutable_data(), *pdb = db.mutable_data();
    {
        py::gil_scoped_release nogil;
        std::vector<float> masked;
        const float* r = pg;
        if (relu) {
            masked.resize(static_cast<size_t>(n * o));
#pragma omp simd
            for (dnnl_dim_t k = 0; k < n * o; ++k) masked[k] = mask_mul(pg[k], py_[k]);
            r = masked.data();
        }
        column_sums(r, n, o, pdb);
        if (n == 0 || i == 0 || o == 0) {
            std::fill(pdw, pdw + o * i, 0.0f);
            if (pdx) std::fill(pdx, pdx + n * i, 0.0f);
        } else {
            check_sgemm(team_sgemm('T', 'N', o, i, n, 1.0f, r, o, px, i, 0.0f, pdw, i));
            if (pdx) check_sgemm(team_sgemm('N', 'N', n, i, o, 1.0f, r, o, pw, i, 0.0f, pdx, i));
        }
    }
    return py::make_tuple(dx, dw, db);
}

py::array_t<float> bias_grad(farr g) {
    if (g.ndim() != 2) throw std::invalid_argument("bias_grad: a matrix expected");
    const dnnl_dim_t m = g.shape(0), n = g.shape(1);
    py::array_t<float> db(n);
    const float* pg = g.data();
    float* pdb = db.mutable_data();
    {
        py::gil_scoped_release nogil;
        column_sums(pg, m, n, pdb);
    }
    return db;
}

}  // namespace

void register_dense(py::module_& m) {
    m.def("dense_forward", &dense_forward, py::arg("x"), py::arg("w"), py::arg("b"), py::arg("trans_a") = false,
          py::arg("trans_b") = false, py::arg("relu") = false,
          "y = op(x) @ op(w) + b (then ReLU if asked), the bias and ReLU applied as the GEMM's epilogue");
    m.def("relu_grad_bias", &relu_grad_bias, py::arg("g"), py::arg("y"),
          "(g * (y > 0), its column sums): a ReLU'd Dense layer's masked gradient and bias gradient in one pass");
    m.def("relu_grad", &relu_grad, py::arg("g"), py::arg("y"), "g * (y > 0) for float32 arrays of one shape");
    m.def("dense_backward", &dense_backward, py::arg("g"), py::arg("x"), py::arg("w"), py::arg("y"),
          "(dx or None, dw, db) of y = [ReLU](x @ w.T + b) from dL/dy; w None: no dx; y None: no ReLU");
    m.def("bias_grad", &bias_grad, py::arg("g"), "column sums of g (rows added in order): a bias gradient");
}

}  // namespace spore
