// Softmax cross-entropy (sparse class-index labels and dense probability labels), forward and
// backward in one pass, and the embedding table's scatter-add gradient.
//
// Logits are seen as (N, C, S): class axis in the middle, S = product of trailing dims (1 for the
// usual (N, C) batch; H*W for segmentation-style (N, C, H, W) inputs). A "row" is one (n, s) pair.
//
// Numerical stability: every row is shifted by its max before exponentiating, and the loss is
// formed as (max - x_y) + log(sum exp(x - max)), never as lse - x_y, so logits of 1e4 keep their
// digits. exp is a vectorisable Cephes-style polynomial (about 2 ulp; glibc's expf does not
// vectorise without -ffast-math, which would also break the NaN semantics elsewhere).
//
// When a per-row cotangent `grad` (N, S) is given, dlogits = grad * d(loss_row)/d(logits) is
// written in the same pass that computes the loss: the exponentials are stored in the output and
// rescaled in place, so logits are read twice and dlogits written once.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "grain.h"
#include "kernels.h"

namespace spore {
namespace {

using i64 = std::int64_t;
using iarr = py::array_t<i64, py::array::c_style | py::array::forcecast>;

void require(bool ok, const std::string& msg) {
    if (!ok) throw std::invalid_argument(msg);
}

// ------------------------------------------------------------------------------------------
// Vector helpers (GCC vector extensions: one source for AVX-512, AVX2 or SSE builds)
// ------------------------------------------------------------------------------------------
//
// GCC 12 does not vectorise a scalar exp polynomial (the range clamp plus float->int conversion
// defeats if-conversion), so the hot loops use explicit vectors of the widest native width.

#if defined(__AVX512F__)
constexpr int W = 16;
#else
constexpr int W = 8;
#endif
using vf = float __attribute__((vector_size(W * sizeof(float))));
using vi = std::int32_t __attribute__((vector_size(W * sizeof(float))));

inline vf splat(float a) { return vf{} + a; }
inline vf loadu(const float* p) {
    vf v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void storeu(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
// The last n < W values of a row, padded with `fill`.
inline vf load_tail(const float* p, i64 n, float fill) {
    float buf[W];
    std::fill(buf, buf + W, fill);
    std::memcpy(buf, p, size_t(n) * sizeof(float));
    return loadu(buf);
}
inline void store_tail(float* p, vf v, i64 n) {
    float buf[W];
    storeu(buf, v);
    std::memcpy(p, buf, size_t(n) * sizeof(float));
}
inline float hsum(vf v) {
    float s = 0.f;
    for (int j = 0; j < W; ++j) s += v[j];
    return s;
}
inline float hmax(vf v) {
    float m = v[0];
    for (int j = 1; j < W; ++j) m = v[j] > m ? v[j] : m;
    return m;
}

// exp(x) for x <= 88, exactly 0 below -87 (and for -inf); about 1e-7 relative error.
// Range reduction x = k*ln2 + f with a two-part ln2 (Cody-Waite), a degree-6 polynomial for e^f on
// [-ln2/2, ln2/2] (Cephes' expf coefficients), then scaling by 2^k through the exponent bits.
// k = floor(x*log2(e) + 0.5) is taken by truncating a value shifted to be positive.
inline vf vexp(vf x0) {
    const vf lo = splat(-87.0f), hi = splat(88.0f);
    vf x = x0 < lo ? lo : x0;
    x = x > hi ? hi : x;
    const vi ki = __builtin_convertvector(x * 1.44269504088896341f + 128.5f, vi) - 128;
    const vf k = __builtin_convertvector(ki, vf);
    const vf f = x - k * 0.693359375f + k * 2.12194440e-4f;
    vf p = splat(1.9875691500e-4f);
    p = p * f + 1.3981999507e-3f;
    p = p * f + 8.3334519073e-3f;
    p = p * f + 4.1665795894e-2f;
    p = p * f + 1.6666665459e-1f;
    p = p * f + 5.0000001201e-1f;
    p = p * f * f + f + 1.0f;
    const vf scale = (vf)((ki + 127) << 23);
    return x0 < lo ? splat(0.f) : p * scale;
}

// max over a contiguous row
inline float row_max(const float* x, i64 C) {
    vf m = splat(-std::numeric_limits<float>::infinity());
    i64 c = 0;
    for (; c + W <= C; c += W) {
        const vf v = loadu(x + c);
        m = v > m ? v : m;
    }
    if (c < C) {
        const vf v = load_tail(x + c, C - c, -std::numeric_limits<float>::infinity());
        m = v > m ? v : m;
    }
    return hmax(m);
}

// sum_c exp(x_c - m), also storing the exponentials into e when e is not null
inline float row_expsum(const float* x, float m, float* e, i64 C) {
    const vf mv = splat(m);
    vf acc = splat(0.f);
    i64 c = 0;
    for (; c + W <= C; c += W) {
        const vf v = vexp(loadu(x + c) - mv);
        if (e) storeu(e + c, v);
        acc += v;
    }
    if (c < C) {
        const vf v = vexp(load_tail(x + c, C - c, -std::numeric_limits<float>::infinity()) - mv);
        if (e) store_tail(e + c, v, C - c);
        acc += v;
    }
    return hsum(acc);
}

// Team or calling thread: the one grain rule (grain.h), in logits read plus written (these loops
// forked at 32K logits before, e.g. a batch of 64 x 512 classes). Rows are independent and the first
// bad label is a minimum, so any team size gives the same result.

constexpr i64 kSpatialBlock = W;  // rows handled together in the S > 1 layout (one vector)

// ------------------------------------------------------------------------------------------
// Sparse labels
// ------------------------------------------------------------------------------------------
//
// With p = softmax(x), w_c the class weights (1 without), W = sum w_c, ls the label smoothing:
//   loss = (1-ls) * w_y * (lse - x_y) + ls/C * sum_c w_c (lse - x_c)
//   dloss/dx_c = ((1-ls) w_y + ls W / C) p_c - (1-ls) w_y [c == y] - ls/C w_c
// An ignored row (y == ignore_index) has loss 0 and gradient 0.

struct SparseCfg {
    i64 C;
    const float* w;  // nullptr: unweighted
    double W;
    float ls;
    i64 ignore;
};

// One row with unit class stride. Returns the loss; writes the scaled gradient into e if given.
float sparse_row(const float* x, i64 y, float gs, float* e, const SparseCfg& k) {
    const i64 C = k.C;
    const float m = row_max(x, C);
    const float sum = row_expsum(x, m, e, C);
    const float logsum = std::log(sum);
    const float wy = k.w ? k.w[y] : 1.f;
    float loss = (1.f - k.ls) * wy * ((m - x[y]) + logsum);
    if (k.ls > 0.f) {
        float s = 0.f;  // sum_c w_c (m - x_c)
        if (k.w) {
#pragma omp simd reduction(+ : s)
            for (i64 c = 0; c < C; ++c) s += k.w[c] * (m - x[c]);
        } else {
#pragma omp simd reduction(+ : s)
            for (i64 c = 0; c < C; ++c) s += m - x[c];
        }
        loss += k.ls / float(C) * (s + float(k.W) * logsum);
    }
    if (e) {
        const float cp = gs * ((1.f - k.ls) * wy + k.ls * float(k.W) / float(C)) / sum;
        const float cs = gs * k.ls / float(C);
        if (k.ls > 0.f && k.w) {
#pragma omp simd
            for (i64 c = 0; c < C; ++c) e[c] = e[c] * cp - cs * k.w[c];
        } else {
#pragma omp simd
            for (i64 c = 0; c < C; ++c) e[c] = e[c] * cp - cs;
        }
        e[y] -= gs * (1.f - k.ls) * wy;
    }
    return loss;
}

// Loads/stores of one lane-block (sb <= W consecutive rows of the S > 1 layout).
inline vf lane_load(const float* p, i64 sb, float fill) { return sb == W ? loadu(p) : load_tail(p, sb, fill); }
inline void lane_store(float* p, vf v, i64 sb) {
    if (sb == W)
        storeu(p, v);
    else
        store_tail(p, v, sb);
}

// A block of sb <= W rows (n, s0..s0+sb) with class stride S, one row per vector lane.
void sparse_block(const float* x, const i64* y, const float* gs, float* e, float* loss, i64 S, i64 sb,
                  const SparseCfg& k, i64* bad) {
    const i64 C = k.C;
    const float ninf = -std::numeric_limits<float>::infinity();
    vf m = splat(ninf);
    for (i64 c = 0; c < C; ++c) {
        const vf v = lane_load(x + c * S, sb, ninf);
        m = v > m ? v : m;
    }
    vf sum = splat(0.f), acc = splat(0.f);  // acc: sum_c w_c (m - x_c), for label smoothing
    for (i64 c = 0; c < C; ++c) {
        const vf xv = lane_load(x + c * S, sb, ninf);
        const vf v = vexp(xv - m);
        if (e) lane_store(e + c * S, v, sb);
        sum += v;
        if (k.ls > 0.f) acc += (k.w ? k.w[c] : 1.f) * (m - xv);
    }
    float cp[W] = {}, g[W] = {};
    for (i64 j = 0; j < sb; ++j) {
        loss[j] = 0.f;
        if (y[j] == k.ignore) continue;
        if (y[j] < 0 || y[j] >= C) {
            if (*bad < 0) *bad = j;
            continue;
        }
        const float logsum = std::log(sum[j]);
        const float wy = k.w ? k.w[y[j]] : 1.f;
        loss[j] = (1.f - k.ls) * wy * ((m[j] - x[y[j] * S + j]) + logsum);
        if (k.ls > 0.f) loss[j] += k.ls / float(C) * (acc[j] + float(k.W) * logsum);
        if (e) {
            g[j] = gs[j];
            cp[j] = g[j] * ((1.f - k.ls) * wy + k.ls * float(k.W) / float(C)) / sum[j];
        }
    }
    if (!e) return;
    const vf cpv = loadu(cp), gv = loadu(g);
    for (i64 c = 0; c < C; ++c) {
        const float wc = (k.w ? k.w[c] : 1.f) * k.ls / float(C);
        lane_store(e + c * S, lane_load(e + c * S, sb, 0.f) * cpv - gv * wc, sb);
    }
    for (i64 j = 0; j < sb; ++j)
        if (g[j] != 0.f) e[y[j] * S + j] -= g[j] * (1.f - k.ls) * (k.w ? k.w[y[j]] : 1.f);
}

// Returns (loss (N, S), dlogits (N, C, S) or None, bad): `bad` is the flat index of the first
// label outside [0, C) that is not ignore_index, or -1.
py::tuple softmax_ce_sparse(farr logits, iarr labels, farr weight, i64 ignore_index, float label_smoothing,
                            farr grad, bool with_grad) {
    require(logits.ndim() == 3, "softmax_ce_sparse: logits must be viewed as (N, C, S)");
    const i64 N = logits.shape(0), C = logits.shape(1), S = logits.shape(2);
    require(labels.size() == N * S, "softmax_ce_sparse: labels must have N*S entries");
    require(weight.size() == 0 || weight.size() == C, "softmax_ce_sparse: weight must have C entries");
    require(!with_grad || grad.size() == N * S, "softmax_ce_sparse: grad must have N*S entries");
    require(C > 0, "softmax_ce_sparse: no classes");
    py::array_t<float> loss({N, S});
    py::array_t<float> dlogits;
    if (with_grad) dlogits = py::array_t<float>({N, C, S});
    const float* px = logits.data();
    const i64* py_ = labels.data();
    const float* pg = with_grad ? grad.data() : nullptr;
    float* pl = loss.mutable_data();
    float* pe = with_grad ? dlogits.mutable_data() : nullptr;
    SparseCfg k{C, weight.size() ? weight.data() : nullptr, double(C), label_smoothing, ignore_index};
    if (k.w) {
        k.W = 0.0;
        for (i64 c = 0; c < C; ++c) k.W += k.w[c];
    }
    i64 bad = -1;
    {
        py::gil_scoped_release nogil;
        if (S == 1) {
            const i64 work = (with_grad ? 2 : 1) * N * C * S;
            parallel_for(N, work, [&](i64 n0, i64 n1) {
                for (i64 n = n0; n < n1; ++n) {
                    const i64 y = py_[n];
                    float* e = pe ? pe + n * C : nullptr;
                    if (y == ignore_index || y < 0 || y >= C) {
                        if (y != ignore_index) {
#pragma omp critical(spore_ce_bad)
                            if (bad < 0 || n < bad) bad = n;
                        }
                        pl[n] = 0.f;
                        if (e) std::fill(e, e + C, 0.f);
                        continue;
                    }
                    pl[n] = sparse_row(px + n * C, y, pg ? pg[n] : 0.f, e, k);
                }
            });
        } else {
            const i64 nb = (S + kSpatialBlock - 1) / kSpatialBlock;
            parallel_for(N * nb, (with_grad ? 2 : 1) * N * C * S, [&](i64 t0, i64 t1) {
                for (i64 t = t0; t < t1; ++t) {
                    const i64 n = t / nb, s0 = (t % nb) * kSpatialBlock;
                    const i64 sb = std::min(kSpatialBlock, S - s0);
                    i64 b = -1;
                    sparse_block(px + n * C * S + s0, py_ + n * S + s0, pg ? pg + n * S + s0 : nullptr,
                                 pe ? pe + n * C * S + s0 : nullptr, pl + n * S + s0, S, sb, k, &b);
                    if (b >= 0) {
#pragma omp critical(spore_ce_bad)
                        if (bad < 0 || n * S + s0 + b < bad) bad = n * S + s0 + b;
                    }
                }
            });
        }
    }
    return py::make_tuple(loss, with_grad ? py::object(dlogits) : py::object(py::none()), bad);
}

// The reduced loss and its logits gradient in one call (Graph mode's loss fusion): the denominator
// of 'mean' (the count, or the summed class weight, of the non-ignored labels), the per-row
// cotangent g / denominator, one pass of the kernel above, and the loss summed in double. Returns
// (total loss, dlogits, bad) where total is the 'mean' or 'sum' value; the arithmetic is the
// Python composition's (float32 cotangent rounded from the double quotient, NaN when every label
// is ignored).
py::tuple softmax_ce_sparse_reduced(farr logits, iarr labels, farr weight, i64 ignore_index, float label_smoothing,
                                    double g, bool mean) {
    require(logits.ndim() == 3, "softmax_ce_sparse_reduced: logits must be viewed as (N, C, S)");
    const i64 N = logits.shape(0), C = logits.shape(1), S = logits.shape(2);
    require(labels.size() == N * S, "softmax_ce_sparse_reduced: labels must have N*S entries");
    const i64* py_ = labels.data();
    double denom = 1.0;
    if (mean) {
        denom = 0.0;
        for (i64 j = 0; j < N * S; ++j) {
            const i64 y = py_[j];
            if (y == ignore_index) continue;
            denom += weight.size() == 0 ? 1.0 : (y >= 0 && y < C ? double(weight.data()[y]) : 0.0);
        }
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    py::array_t<float> grad({N * S});
    std::fill(grad.mutable_data(), grad.mutable_data() + N * S, float(denom != 0.0 ? g / denom : nan));
    py::tuple res = softmax_ce_sparse(logits, labels, weight, ignore_index, label_smoothing, grad, true);
    const auto loss = res[0].cast<py::array_t<float>>();
    const float* pl = loss.data();
    double total = 0.0;
    for (i64 j = 0; j < N * S; ++j) total += pl[j];
    return py::make_tuple(denom != 0.0 ? total / denom : nan, res[1], res[2]);
}

// ------------------------------------------------------------------------------------------
// Dense labels
// ------------------------------------------------------------------------------------------
//
// With T = sum_c t_c:  loss = sum_c t_c (lse - x_c) = sum_c t_c (m - x_c) + T log(sum)
//                      dloss/dx_c = T p_c - t_c        (p - t when t is a distribution)

float dense_row(const float* x, const float* t, float gs, float* e, i64 C) {
    const float m = row_max(x, C);
    const float ninf = -std::numeric_limits<float>::infinity();
    const vf mv = splat(m);
    vf sum = splat(0.f), T = splat(0.f), tm = splat(0.f);
    i64 c = 0;
    for (; c + W <= C; c += W) {
        const vf xv = loadu(x + c), tv = loadu(t + c);
        const vf v = vexp(xv - mv);
        if (e) storeu(e + c, v);
        sum += v;
        T += tv;
        tm += tv * (mv - xv);
    }
    if (c < C) {  // pad the exponent with -inf (adds 0) and the linear term with m (adds 0)
        const vf v = vexp(load_tail(x + c, C - c, ninf) - mv);
        const vf tv = load_tail(t + c, C - c, 0.f);
        if (e) store_tail(e + c, v, C - c);
        sum += v;
        T += tv;
        tm += tv * (mv - load_tail(x + c, C - c, m));
    }
    const float s = hsum(sum), Ts = hsum(T);
    if (e) {
        const float cp = gs * Ts / s;
#pragma omp simd
        for (i64 j = 0; j < C; ++j) e[j] = e[j] * cp - gs * t[j];
    }
    return hsum(tm) + Ts * std::log(s);
}

void dense_block(const float* x, const float* t, const float* gs, float* e, float* loss, i64 C, i64 S, i64 sb) {
    const float ninf = -std::numeric_limits<float>::infinity();
    vf m = splat(ninf);
    for (i64 c = 0; c < C; ++c) {
        const vf v = lane_load(x + c * S, sb, ninf);
        m = v > m ? v : m;
    }
    vf sum = splat(0.f), T = splat(0.f), tm = splat(0.f);
    for (i64 c = 0; c < C; ++c) {
        const vf xv = lane_load(x + c * S, sb, ninf), tv = lane_load(t + c * S, sb, 0.f);
        const vf v = vexp(xv - m);
        if (e) lane_store(e + c * S, v, sb);
        sum += v;
        T += tv;
        tm += tv * (m - xv);  // padded lanes turn NaN here; they are never stored
    }
    float cp[W] = {}, g[W] = {};
    for (i64 j = 0; j < sb; ++j) {
        loss[j] = tm[j] + T[j] * std::log(sum[j]);
        if (e) {
            g[j] = gs[j];
            cp[j] = g[j] * T[j] / sum[j];
        }
    }
    if (!e) return;
    const vf cpv = loadu(cp), gv = loadu(g);
    for (i64 c = 0; c < C; ++c)
        lane_store(e + c * S, lane_load(e + c * S, sb, 0.f) * cpv - gv * lane_load(t + c * S, sb, 0.f), sb);
}

// Returns (loss (N, S), dlogits (N, C, S) or None).
py::tuple softmax_ce_dense(farr logits, farr labels, farr grad, bool with_grad) {
    require(logits.ndim() == 3 && labels.ndim() == 3, "softmax_ce_dense: logits/labels must be viewed as (N, C, S)");
    const i64 N = logits.shape(0), C = logits.shape(1), S = logits.shape(2);
    require(labels.shape(0) == N && labels.shape(1) == C && labels.shape(2) == S,
            "softmax_ce_dense: labels and logits differ in shape");
    require(!with_grad || grad.size() == N * S, "softmax_ce_dense: grad must have N*S entries");
    require(C > 0, "softmax_ce_dense: no classes");
    py::array_t<float> loss({N, S});
    py::array_t<float> dlogits;
    if (with_grad) dlogits = py::array_t<float>({N, C, S});
    const float *px = logits.data(), *pt = labels.data();
    const float* pg = with_grad ? grad.data() : nullptr;
    float* pl = loss.mutable_data();
    float* pe = with_grad ? dlogits.mutable_data() : nullptr;
    {
        py::gil_scoped_release nogil;
        if (S == 1) {
            parallel_for(N, (with_grad ? 3 : 2) * N * C * S, [&](i64 n0, i64 n1) {
                for (i64 n = n0; n < n1; ++n)
                    pl[n] = dense_row(px + n * C, pt + n * C, pg ? pg[n] : 0.f, pe ? pe + n * C : nullptr, C);
            });
        } else {
            const i64 nb = (S + kSpatialBlock - 1) / kSpatialBlock;
            parallel_for(N * nb, (with_grad ? 3 : 2) * N * C * S, [&](i64 t0, i64 t1) {
                for (i64 t = t0; t < t1; ++t) {
                    const i64 n = t / nb, s0 = (t % nb) * kSpatialBlock;
                    const i64 off = n * C * S + s0;
                    dense_block(px + off, pt + off, pg ? pg + n * S + s0 : nullptr, pe ? pe + off : nullptr,
                                pl + n * S + s0, C, S, std::min(kSpatialBlock, S - s0));
                }
            });
        }
    }
    return py::make_tuple(loss, with_grad ? py::object(dlogits) : py::object(py::none()));
}

// ------------------------------------------------------------------------------------------
// Embedding gradient (scatter-add of rows)
// ------------------------------------------------------------------------------------------
//
// out[v] = sum over i with ids[i] == v of g[i] * f(v), where f = 1/count(v) with scale_by_freq and
// the padding row gets nothing. Threads split the columns, so no two write the same address and the
// result does not depend on the thread count. Lives here, with the other sparse-label kernel, so the
// norm/loss kernel family stays one unit.

py::array_t<float> embedding_backward(farr g, iarr ids, i64 num_weights, i64 padding_idx, bool scale_by_freq) {
    require(g.ndim() == 2, "embedding_backward: g must be viewed as (M, D)");
    const i64 M = g.shape(0), D = g.shape(1), V = num_weights;
    require(ids.size() == M, "embedding_backward: ids must have M entries");
    py::array_t<float> out({V, D});
    const float* pg = g.data();
    const i64* pi = ids.data();
    float* po = out.mutable_data();
    i64 bad = -1;
    {
        py::gil_scoped_release nogil;
        for (i64 i = 0; i < M && bad < 0; ++i)
            if (pi[i] < 0 || pi[i] >= V) bad = i;
        if (bad < 0) {
            std::fill(po, po + V * D, 0.f);
            std::vector<float> factor;
            if (scale_by_freq) {
                std::vector<i64> count(size_t(V), 0);
                for (i64 i = 0; i < M; ++i) ++count[size_t(pi[i])];
                factor.resize(size_t(V));
                for (i64 v = 0; v < V; ++v) factor[size_t(v)] = count[size_t(v)] ? 1.f / float(count[size_t(v)]) : 0.f;
            }
            const float* pf = scale_by_freq ? factor.data() : nullptr;
            // Columns split over the team: each column's rows are added in order by one thread, so any
            // team size gives the same bits. Short rows stay on this thread (one call, all columns).
            const auto scatter = [&](i64 j0, i64 j1) {
                for (i64 i = 0; i < M; ++i) {
                    const i64 v = pi[i];
                    if (v == padding_idx) continue;
                    const float f = pf ? pf[v] : 1.f;
                    const float* src = pg + i * D;
                    float* dst = po + v * D;
#pragma omp simd
                    for (i64 j = j0; j < j1; ++j) dst[j] += f * src[j];
                }
            };
            if (D >= 256)
                parallel_for(D, 2 * M * D, scatter);
            else
                scatter(0, D);
        }
    }
    if (bad >= 0)
        throw py::index_error("embedding_backward: id " + std::to_string(pi[bad]) + " at position " +
                              std::to_string(bad) + " is outside [0, " + std::to_string(V) + ")");
    return out;
}

}  // namespace

void register_loss(py::module_& m) {
    m.def("softmax_ce_sparse", &softmax_ce_sparse, py::arg("logits"), py::arg("labels"), py::arg("weight"),
          py::arg("ignore_index"), py::arg("label_smoothing"), py::arg("grad"), py::arg("with_grad"),
          "Softmax cross-entropy with class-index labels on logits viewed as (N, C, S): returns "
          "(loss (N, S), grad * dloss/dlogits (N, C, S) or None, first bad label index or -1).");
    m.def("softmax_ce_sparse_reduced", &softmax_ce_sparse_reduced, py::arg("logits"), py::arg("labels"),
          py::arg("weight"), py::arg("ignore_index"), py::arg("label_smoothing"), py::arg("g"), py::arg("mean"),
          "The 'mean' (mean=True) or 'sum' softmax cross-entropy and g * its logits gradient in one call: "
          "(total, dlogits (N, C, S), first bad label index or -1).");
    m.def("softmax_ce_dense", &softmax_ce_dense, py::arg("logits"), py::arg("labels"), py::arg("grad"),
          py::arg("with_grad"),
          "Softmax cross-entropy with dense (probability) labels, both viewed as (N, C, S): returns "
          "(loss (N, S), grad * dloss/dlogits (N, C, S) or None).");
    m.def("embedding_backward", &embedding_backward, py::arg("g"), py::arg("ids"), py::arg("num_weights"),
          py::arg("padding_idx"), py::arg("scale_by_freq"),
          "Scatter-add of gradient rows g (M, D) into a (num_weights, D) table gradient at ids.");
}

}  // namespace spore
