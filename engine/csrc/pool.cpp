// 2-D max and average pooling (float32, NCHW), forward and backward.
//
// Implementations, chosen per call:
// - AVX2 vector rows (max and average forward, column stride 1 or 2, any window, padding and
//   dilation): 8 outputs per step with every tap of their windows in registers, masked loads at the
//   padded edges (see "AVX2 building blocks"). The non-overlapping 2x2 / stride-2 window of every
//   small CNN gets its own step that produces the maxima and their argmax from one read of the input.
// - the portable code, for strides of 3 or more and builds without AVX2: the non-overlapping max
//   pass (max_tiles) and tap-major OpenMP loops that run tap by tap over whole output rows (see
//   tap_columns), branch-free, so they vectorise. Average backward: one write per element for
//   non-overlapping windows, else the tap-major scatter.
// - oneDNN's pooling primitives (run directly on NCHW: no reorders), only where they compute exactly
//   MindSpore's / PyTorch's result AND oneDNN has a jit kernel for the geometry. oneDNN 2.6 has none
//   for plain NCHW on AVX2 machines and falls back to `simple_nchw`, a scalar reference loop,
//   measured on a 2-core AVX2 EPYC (Zen 3) at one thread: max 32x16x32x32 2x2/s2 7.8 ms (this file's
//   loops before the vector rows: 0.82 ms, now 0.12 ms), 3x3/s2/pad 1 on 32x64x32x32 44 ms (6.3 ms,
//   now 1.7 ms); average pooling forward 6-17x slower than the code here. Non-overlapping max
//   pooling never goes to oneDNN (one pass here; oneDNN needs a NaN pre-scan and a
//   workspace-to-argmax pass on top);
//   where oneDNN has jit kernels (AVX-512 machines) the other cases go there, following the H2a
//   measurement (jit 2-5x faster than the tap-major loops; not re-measured against the vector rows).
// What oneDNN 2.6 cannot express always runs here: dilated windows, divisor_override, and
// count_include_pad windows that hang past the padding in ceil mode (PyTorch clips those divisors at
// the padded edge; oneDNN counts the whole window).
// `pool_set_backend` picks the policy: 0 = Spore's own code only, 1 = the measured choice above
// (default), 2 = oneDNN wherever it is exact (tests and A/B benchmarks). `pool2d_impl_info` names
// what a geometry runs on.
//
// Geometry follows PyTorch / MindSpore's `max_pool2d` / `avg_pool2d`: window (kh, kw), stride,
// padding (top, bottom, left, right) and dilation (max only); the caller passes the output size it
// computed (floor or ceil mode), so windows at the far edge may hang over the padded input.
// Max pooling also returns, per output, the flat index (h * W + w) of the chosen element within its
// input plane — the `argmax` that the backward pass scatters into and that `return_indices` shows.
// Every implementation follows one rule: the window is scanned row-major, a later element replaces
// the running maximum only if it is greater, or if it is a NaN and the maximum is not (the first NaN
// wins, as in PyTorch); a window of -inf names its first element inside the input, a window entirely
// in the padding gives -inf and -1. Spore's implementations agree bit for bit (average pooling too:
// every path sums a window's taps in row-major order from +0).
// From oneDNN the index is converted from the workspace (the tap index within each window).
#include <dnnl.hpp>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "grain.h"
#include "kernels.h"

namespace spore {
namespace {

using Pair = std::array<int64_t, 2>;
using Quad = std::array<int64_t, 4>;
using iarr = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

struct PoolGeom {
    int64_t planes, h, w, oh, ow, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw;

    void check() const {
        if (kh < 1 || kw < 1 || sh < 1 || sw < 1 || dh < 1 || dw < 1)
            throw std::invalid_argument("pool2d: kernel, stride and dilation must be >= 1");
        if (pt < 0 || pb < 0 || pl < 0 || pr < 0) throw std::invalid_argument("pool2d: negative padding");
        if (oh < 0 || ow < 0) throw std::invalid_argument("pool2d: negative output size");
        // the loops keep a tap's offset from its window's corner (plus a few columns) in 32 bits
        if ((h + pt + 1) * (w + pl + 16) > std::numeric_limits<int32_t>::max())
            throw std::invalid_argument("pool2d: input planes of about 2^31 elements or more are not supported");
    }
};

// A pooling pass's work for the grain rule (grain.h): the input read plus every window tap and output.
inline int64_t pool_work(const PoolGeom& g) { return g.planes * (g.h * g.w + g.oh * g.ow * (g.kh * g.kw + 1)); }

// The kernel taps [lo, hi) of one window that land inside the input along one axis:
// positions start + t * dil for t in [0, k), kept where 0 <= pos < size.
struct Span {
    int64_t start, lo, hi;
};

Span span(int64_t start, int64_t k, int64_t dil, int64_t size) {
    if (dil == 1) {  // no divisions: the common case, and spans() runs per call on the hot path
        const int64_t lo = std::clamp<int64_t>(-start, 0, k);
        return {start, lo, std::clamp<int64_t>(size - start, lo, k)};
    }
    int64_t lo = start < 0 ? (-start + dil - 1) / dil : 0;
    int64_t hi = start + (k - 1) * dil < size ? k : (size - start + dil - 1) / dil;
    hi = std::max(hi, lo);
    return {start, std::min(lo, k), std::min(hi, k)};
}

std::vector<Span> spans(int64_t out, int64_t stride, int64_t pad, int64_t k, int64_t dil, int64_t size) {
    std::vector<Span> s(out);
    for (int64_t i = 0; i < out; ++i) s[i] = span(i * stride - pad, k, dil, size);
    return s;
}

PoolGeom geom(int64_t planes, int64_t h, int64_t w, Pair out, Pair kernel, Pair stride, Quad pad, Pair dil) {
    PoolGeom g{planes, h, w, out[0], out[1], kernel[0], kernel[1], stride[0], stride[1],
               pad[0], pad[1], pad[2], pad[3], dil[0], dil[1]};
    g.check();
    return g;
}

void check_4d(const py::array& a, const char* op) {
    if (a.ndim() != 4) throw std::invalid_argument(std::string(op) + ": expected a 4-D NCHW array");
}

// The output columns [lo, hi) whose window tap b lands inside the input: 0 <= j*sw - pl + b*dw < w.
// Looping tap by tap over such a range ("tap-major") keeps the inner loop free of bounds checks and
// branches, so it vectorises; the taps of every output are still visited in row-major order, which
// keeps "the first maximum wins" exactly as in a window-by-window loop.
std::vector<std::array<int64_t, 2>> tap_columns(const PoolGeom& g) {
    std::vector<std::array<int64_t, 2>> cols(g.kw);
    for (int64_t b = 0; b < g.kw; ++b) {
        const int64_t off = b * g.dw - g.pl;
        int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;                 // first j with col >= 0
        int64_t hi = g.w - off <= 0 ? 0 : (g.w - off + g.sw - 1) / g.sw;      // first j with col >= w
        cols[b] = {std::min(lo, g.ow), std::min(std::max(hi, lo), g.ow)};
    }
    return cols;
}

// The column stride as a template parameter for the tap-major loops: 1 and 2 (nearly every pooling
// layer) get inner loops whose loads the compiler turns into plain / de-interleaving vector loads; a
// runtime stride (S == 0) leaves strided scalar loads (measured: average backward, 3x3 / stride 1,
// 32x16x32x32: 2.5 -> 1.4 ms). With AVX2 the vector rows take strides 1 and 2 where they can.
template <class F>
void with_stride(int64_t s, F&& f) {
    if (s == 1)
        f(std::integral_constant<int64_t, 1>{});
    else if (s == 2)
        f(std::integral_constant<int64_t, 2>{});
    else
        f(std::integral_constant<int64_t, 0>{});
}

#ifdef __AVX2__
// ---- AVX2 building blocks -------------------------------------------------------------------
//
// The vector paths compute 8 consecutive outputs of an output row per step, keeping their running
// result in registers across all taps of their windows: tap-major loops pass over a whole output
// row once per tap, and with the short rows of CNN pooling (5-32 outputs) their loop overheads
// dominate. A row is covered by steps at 0, 8, 16, ... and, for a remainder, one that ends at the
// row's end (overlapping the one before: it recomputes a few outputs to the same values). Steps
// whose windows lie inside the input load plainly; steps at the padded edges (and rows narrower
// than 8) mask the loads.

// The taps p[0], p[S], ..., p[7 S] of 8 consecutive outputs at column stride S: stride 1 is one load;
// stride 2 takes the even columns of p[0..16) with one shuffle, which leaves the outputs in lane
// order [0 1 4 5 2 3 6 7]: unshuffle() puts a result right once, rather than permuting every tap.
// That reads p[15], one past the last tap; "Early" takes the odd columns of p[-1..15) instead, for
// rows where the column before the first tap is inside the input.
template <int64_t S, bool Early>
inline __m256 load_taps(const float* p) {
    if constexpr (S == 1) {
        return _mm256_loadu_ps(p);
    } else if constexpr (Early) {
        return _mm256_shuffle_ps(_mm256_loadu_ps(p - 1), _mm256_loadu_ps(p + 7), _MM_SHUFFLE(3, 1, 3, 1));
    } else {
        return _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _MM_SHUFFLE(2, 0, 2, 0));
    }
}

// 8 floats q[0..8) at input columns c, c+1, ..., c+7: those outside [0, w) are not read (maskload
// does not touch masked lanes) and come back as `fill` (max: -inf, which never replaces a maximum;
// average: 0, which leaves a sum unchanged).
inline __m256 load_masked(const float* q, int64_t c, int64_t w, __m256 fill) {
    const __m256i col = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int32_t>(c)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i in = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), col),
                                           _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(w)), col));
    return _mm256_blendv_ps(fill, _mm256_maskload_ps(q, in), _mm256_castsi256_ps(in));
}

// load_taps for a step at a padded edge: p is at input column c.
template <int64_t S, bool Early>
inline __m256 load_taps_masked(const float* p, int64_t c, int64_t w, __m256 fill) {
    if constexpr (S == 1) {
        return load_masked(p, c, w, fill);
    } else if constexpr (Early) {
        return _mm256_shuffle_ps(load_masked(p - 1, c - 1, w, fill), load_masked(p + 7, c + 7, w, fill),
                                 _MM_SHUFFLE(3, 1, 3, 1));
    } else {
        return _mm256_shuffle_ps(load_masked(p, c, w, fill), load_masked(p + 8, c + 8, w, fill),
                                 _MM_SHUFFLE(2, 0, 2, 0));
    }
}

template <int64_t S>
inline __m256 unshuffle(__m256 v) {
    if constexpr (S == 1) return v;
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}

// The outputs [jl, jr) of a row whose steps load plainly: every tap inside the input columns, and
// every column the loads read (at stride 2 without Early, the one after the last tap too). Early is
// chosen where the first such output's first tap has a column before it.
struct PlainColumns {
    int64_t jl, jr;
    bool early;
};

template <int64_t S>
PlainColumns plain_columns(const PoolGeom& g) {
    PlainColumns c{std::min((g.pl + S - 1) / S, g.ow), 0, false};
    c.early = S == 2 && c.jl * S - g.pl >= 1;
    const int64_t last = g.w - 1 - (S == 2 && !c.early ? 1 : 0) - (g.kw - 1) * g.dw + g.pl;  // j * S <= last
    c.jr = last < 0 ? c.jl : std::clamp(last / S + 1, c.jl, g.ow);
    return c;
}
#endif

// ---- max pooling --------------------------------------------------------------------------

// v replaces the running maximum m: greater, or the first NaN (a NaN m stays).
inline bool takes(float v, float m) { return (v > m) | ((v != v) & (m == m)); }

// One window, scanned row-major over its taps inside the input (rows of span r, columns of span q):
// the edge windows of the vector paths below. The first tap starts the maximum; a window entirely in
// the padding gives -inf and -1, as the tap-major loops do.
inline void max_window(const float* xp, const PoolGeom& g, const Span& r, const Span& q, float& y, int64_t& at) {
    if (r.lo == r.hi || q.lo == q.hi) {
        y = -std::numeric_limits<float>::infinity();
        at = -1;
        return;
    }
    const int64_t c0 = q.start + q.lo * g.dw, c1 = q.start + (q.hi - 1) * g.dw;  // first and last column
    int64_t best = (r.start + r.lo * g.dh) * g.w + c0;
    float m = xp[best];
    for (int64_t a = r.lo; a < r.hi; ++a) {
        const int64_t row = (r.start + a * g.dh) * g.w;
        for (int64_t c = a == r.lo ? c0 + g.dw : c0; c <= c1; c += g.dw)
            if (takes(xp[row + c], m)) {
                m = xp[row + c];
                best = row + c;
            }
    }
    y = m;
    at = best;
}

// -- the tap-major loops (any stride; the portable path)

// One tap over the output columns [j0, j1) of a row: best / tp hold the running maximum and the
// winning tap's offset from the window's corner (-1: none yet).
template <int64_t S>
inline void max_tap(const float* __restrict xr, int64_t off, int64_t sw_rt, int32_t t, int64_t j0, int64_t j1,
                    float* __restrict best, int32_t* __restrict tp) {
    const int64_t sw = S ? S : sw_rt;
    for (int64_t j = j0; j < j1; ++j) {
        // branch-free select (vectorises)
        const float v = xr[j * sw + off], m = best[j];
        const bool take = takes(v, m);
        best[j] = take ? v : m;
        tp[j] = take ? t : tp[j];
    }
}

void max_loops(const float* px, float* py_, int64_t* pi, const PoolGeom& g) {
    const auto rows = spans(g.oh, g.sh, g.pt, g.kh, g.dh, g.h);
    const auto cols = tap_columns(g);
    const float ninf = -std::numeric_limits<float>::infinity();
    with_stride(g.sw, [&](auto stride) {
        constexpr int64_t S = decltype(stride)::value;
        parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
            std::vector<int32_t> tap(g.ow);  // per output of a row: the winning tap's offset, -1 if none
            for (int64_t p = p0; p < p1; ++p) {
                const float* xp = px + p * g.h * g.w;
                for (int64_t i = 0; i < g.oh; ++i) {
                    float* yr = py_ + (p * g.oh + i) * g.ow;
                    int64_t* ir = pi + (p * g.oh + i) * g.ow;
                    std::fill(yr, yr + g.ow, ninf);
                    std::fill(tap.begin(), tap.end(), -1);
                    const Span& r = rows[i];
                    for (int64_t a = r.lo; a < r.hi; ++a) {
                        const float* xr = xp + (r.start + a * g.dh) * g.w;
                        for (int64_t b = 0; b < g.kw; ++b)
                            max_tap<S>(xr, b * g.dw - g.pl, g.sw, static_cast<int32_t>(a * g.dh * g.w + b * g.dw),
                                       cols[b][0], cols[b][1], yr, tap.data());
                    }
                    // the index is the window's corner plus the tap's offset: no division per output
                    const int64_t corner = r.start * g.w - g.pl;
                    bool none = false;
                    for (int64_t j = 0; j < g.ow; ++j) {
                        none |= tap[j] < 0;
                        ir[j] = corner + j * g.sw + tap[j];
                    }
                    if (none)  // windows of -inf only (or entirely in the padding)
                        for (int64_t j = 0; j < g.ow; ++j)
                            if (tap[j] < 0) max_window(xp, g, r, span(j * g.sw - g.pl, g.kw, g.dw, g.w), yr[j], ir[j]);
                }
            }
        });
    });
}

// -- the non-overlapping fast path
//
// Window == stride, no dilation, no padding before (padding after, or ceil mode, only clips the
// last row / column of windows): every input element is read once. This is the portable form (and,
// with AVX2, the one for windows 3 or more wide); with AVX2 the vector rows below run strides 1 and
// 2, where the 2x2 / stride-2 window of every small CNN gets its own step (max_2x2_step).

bool tiles_fit(const PoolGeom& g) {
    return g.kh == g.sh && g.kw == g.sw && g.dh == 1 && g.dw == 1 && g.pt == 0 && g.pl == 0;
}

// Full windows of one output row (n of them, all inside the input), any window size: tap-major as
// in the general loops, started from each window's first element, with the column stride (== window
// width) a compile-time constant where it is 2 or 3.
template <int64_t K>
void max_tiles_row(const float* xr, int64_t w, int64_t kh, int64_t kw_rt, int64_t corner, int64_t n, float* y,
                   int64_t* idx, int32_t* __restrict off) {
    const int64_t kw = K ? K : kw_rt;
    float* __restrict best = y;
    for (int64_t j = 0; j < n; ++j) {
        best[j] = xr[j * kw];
        off[j] = 0;
    }
    for (int64_t a = 0; a < kh; ++a)
        for (int64_t b = a == 0 ? 1 : 0; b < kw; ++b) {
            const float* __restrict x = xr + a * w + b;
            const int32_t t = static_cast<int32_t>(a * w + b);
            for (int64_t j = 0; j < n; ++j) {
                const float v = x[j * kw], m = best[j];
                const bool take = takes(v, m);
                best[j] = take ? v : m;
                off[j] = take ? t : off[j];
            }
        }
    for (int64_t j = 0; j < n; ++j) idx[j] = corner + j * kw + off[j];
}

void max_tiles(const float* px, float* py_, int64_t* pi, const PoolGeom& g) {
    const auto rows = spans(g.oh, g.sh, 0, g.kh, 1, g.h), cols = spans(g.ow, g.sw, 0, g.kw, 1, g.w);
    // the full windows: rows < fh, columns < fw; the rest (clipped by padding after / ceil mode) go
    // window by window
    const int64_t fh = std::min(g.oh, g.h / g.kh), fw = std::min(g.ow, g.w / g.kw);
    parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
        std::vector<int32_t> off(fw);
        for (int64_t p = p0; p < p1; ++p) {
            const float* xp = px + p * g.h * g.w;
            float* yp = py_ + p * g.oh * g.ow;
            int64_t* ip = pi + p * g.oh * g.ow;
            for (int64_t i = 0; i < fh; ++i) {
                const int64_t corner = i * g.kh * g.w;
                const float* xr = xp + corner;
                float* yr = yp + i * g.ow;
                int64_t* ir = ip + i * g.ow;
                if (g.kw == 2) {
                    max_tiles_row<2>(xr, g.w, g.kh, g.kw, corner, fw, yr, ir, off.data());
                } else if (g.kw == 3) {
                    max_tiles_row<3>(xr, g.w, g.kh, g.kw, corner, fw, yr, ir, off.data());
                } else {
                    max_tiles_row<0>(xr, g.w, g.kh, g.kw, corner, fw, yr, ir, off.data());
                }
                for (int64_t j = fw; j < g.ow; ++j) max_window(xp, g, rows[i], cols[j], yr[j], ir[j]);
            }
            for (int64_t i = fh; i < g.oh; ++i)
                for (int64_t j = 0; j < g.ow; ++j)
                    max_window(xp, g, rows[i], cols[j], yp[i * g.ow + j], ip[i * g.ow + j]);
        }
    });
}

#ifdef __AVX2__
// -- AVX2: 8 outputs per step (see "AVX2 building blocks"), running maximum and tap offset in
// registers

// The lane-wise takes(): NLE_UQ ("not v <= m", also true when either is NaN) is v > m or a NaN v;
// ORD(m, m) drops the lanes whose maximum already is a NaN.
inline __m256 takes8(__m256 v, __m256 m) {
    return _mm256_and_ps(_mm256_cmp_ps(v, m, _CMP_NLE_UQ), _mm256_cmp_ps(m, m, _CMP_ORD_Q));
}

// Stores 8 values and their flat indices corner + S * lane + offset (offset: int32 bits in float
// lanes, in load_taps' lane order).
template <int64_t S>
inline void store8(__m256 m, __m256 off, int64_t corner, float* y, int64_t* idx) {
    _mm256_storeu_ps(y, unshuffle<S>(m));
    const __m256i o = _mm256_add_epi32(_mm256_castps_si256(unshuffle<S>(off)),
                                       _mm256_setr_epi32(0, S, 2 * S, 3 * S, 4 * S, 5 * S, 6 * S, 7 * S));
    const __m256i base = _mm256_set1_epi64x(corner);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx),
                        _mm256_add_epi64(base, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(o))));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + 4),
                        _mm256_add_epi64(base, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(o, 1))));
}

inline __m256 offset8(int64_t t) { return _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int32_t>(t))); }

// Outputs j..j+7 of output row r into y[0..8) / idx[0..8); taps[8 (a kw + b)] holds 8 copies of tap
// (a, b)'s offset from the window's corner. Each window row's first tap starts its maximum (no -inf
// fill and no "no tap yet" state: an all -inf window names its first element for free, and a NaN
// there is never replaced). Each window row is its own chain of selects, merged into the result in
// row order (the rule is associative: an earlier part's maximum loses to a later part's only if
// takes() says so), so the rows' chains run in parallel instead of one chain of kh * kw dependent
// selects. Masked (edge) steps: a masked tap enters as -inf and so can only stay the winner of a
// lane whose maximum is -inf; the caller redoes those lanes.
template <int64_t S, bool Early, bool Masked>
inline void max_step(const float* xp, const PoolGeom& g, const Span& r, const int32_t* taps, int64_t j, float* y,
                     int64_t* idx) {
    const int64_t col = j * S - g.pl, corner = r.start * g.w + col;  // the window's corner (maybe padding)
    const float* c = xp + corner;
    const auto load = [&](const float* p, int64_t b) {
        if constexpr (Masked)
            return load_taps_masked<S, Early>(p, col + b * g.dw, g.w,
                                              _mm256_set1_ps(-std::numeric_limits<float>::infinity()));
        else
            return load_taps<S, Early>(p);
    };
    __m256 m = _mm256_setzero_ps(), off = m;
    for (int64_t a = r.lo; a < r.hi; ++a) {
        const float* row = c + a * g.dh * g.w;
        const float* ta = reinterpret_cast<const float*>(taps + 8 * a * g.kw);  // loaded as int32 bits
        __m256 ma = load(row, 0), oa = _mm256_loadu_ps(ta);
        for (int64_t b = 1; b < g.kw; ++b) {
            const __m256 v = load(row + b * g.dw, b), k = takes8(v, ma);
            ma = _mm256_blendv_ps(ma, v, k);
            oa = _mm256_blendv_ps(oa, _mm256_loadu_ps(ta + 8 * b), k);
        }
        if (a == r.lo) {
            m = ma;
            off = oa;
        } else {
            const __m256 k = takes8(ma, m);
            m = _mm256_blendv_ps(m, ma, k);
            off = _mm256_blendv_ps(off, oa, k);
        }
    }
    store8<S>(m, off, corner, y, idx);
}

// max_step for 2x2 windows at stride 2 without padding (the non-overlapping fast path), on a full
// pair of input rows from x0: both taps of a row come from the same two loads.
inline void max_2x2_step(const float* x0, int64_t w, int64_t corner, int64_t j, float* y, int64_t* idx) {
    const __m256 a0 = _mm256_loadu_ps(x0 + 2 * j), b0 = _mm256_loadu_ps(x0 + 2 * j + 8);
    const __m256 a1 = _mm256_loadu_ps(x0 + w + 2 * j), b1 = _mm256_loadu_ps(x0 + w + 2 * j + 8);
    const __m256 e0 = _mm256_shuffle_ps(a0, b0, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o0 = _mm256_shuffle_ps(a0, b0, _MM_SHUFFLE(3, 1, 3, 1));
    const __m256 e1 = _mm256_shuffle_ps(a1, b1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 o1 = _mm256_shuffle_ps(a1, b1, _MM_SHUFFLE(3, 1, 3, 1));
    // each row's pair, then the rows merged (as in max_step)
    __m256 k = takes8(o0, e0);
    __m256 m = _mm256_blendv_ps(e0, o0, k), off = _mm256_blendv_ps(offset8(0), offset8(1), k);
    k = takes8(o1, e1);
    const __m256 m1 = _mm256_blendv_ps(e1, o1, k), off1 = _mm256_blendv_ps(offset8(w), offset8(w + 1), k);
    k = takes8(m1, m);
    m = _mm256_blendv_ps(m, m1, k);
    off = _mm256_blendv_ps(off, off1, k);
    store8<2>(m, off, corner + 2 * j, y + j, idx + j);
}

// The per-call constants of max_avx2.
struct MaxRowPlan {
    std::vector<Span> rows, cols;
    std::vector<int32_t> taps;  // 8 copies of each tap's offset: one load per tap (a broadcast from a
                                // general register costs more)
    int64_t jl, jr;             // the plain-load outputs [jl, jr): every tap, and every column loaded, inside
    bool quad;                  // 2x2 windows at stride 2, no padding before: max_2x2_step, which loads
    int64_t jr_quad;            // no column past the last tap, on the outputs [0, jr_quad)
};

// A step at a padded edge, or of a row narrower than 8 (n < 8 outputs): masked loads. Out of line,
// to keep the plain steps' loop small.
template <int64_t S, bool Early>
__attribute__((noinline)) void max_edge_step(const float* xp, const PoolGeom& g, const MaxRowPlan& plan,
                                             const Span& r, int64_t j, int64_t n, float* yr, int64_t* ir) {
    alignas(32) float y8[8];
    alignas(32) int64_t i8[8];
    float* y = n == 8 ? yr + j : y8;
    int64_t* at = n == 8 ? ir + j : i8;
    max_step<S, Early, true>(xp, g, r, plan.taps.data(), j, y, at);
    // lanes whose maximum is -inf may name a masked tap: redo them (rare)
    const __m256 ninf = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    for (int bad = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(y), ninf, _CMP_EQ_OQ)) & ((1 << n) - 1); bad;
         bad &= bad - 1) {
        const int l = __builtin_ctz(bad);
        max_window(xp, g, r, plan.cols[j + l], y[l], at[l]);
    }
    if (n < 8) {
        std::copy(y8, y8 + n, yr + j);
        std::copy(i8, i8 + n, ir + j);
    }
}

// All outputs of output row i of one plane at column stride S (1 or 2).
template <int64_t S, bool Early>
inline void max_row_avx2(const float* xp, const PoolGeom& g, const MaxRowPlan& plan, int64_t i, float* yr,
                         int64_t* ir) {
    const Span& r = plan.rows[i];
    if (r.lo == r.hi) {  // the window rows are all padding
        for (int64_t j = 0; j < g.ow; ++j) max_window(xp, g, r, plan.cols[j], yr[j], ir[j]);
        return;
    }
    if (plan.quad && r.hi - r.lo == 2) {
        const float* x0 = xp + r.start * g.w;
        if (g.ow < 8) {
            // A row narrower than a vector (LeNet's 10x10 -> 5x5) may still take one plain step when
            // its extra lanes read inside this plane and write outputs of later rows of this plane,
            // which this thread computes (and so overwrites) next.
            if (plan.jr_quad == g.ow && i * g.ow + 8 <= g.oh * g.ow && (r.start + 1) * g.w + 16 <= g.h * g.w)
                return max_2x2_step(x0, g.w, r.start * g.w, 0, yr, ir);
            return max_edge_step<S, Early>(xp, g, plan, r, 0, g.ow, yr, ir);
        }
        int64_t j = 0;
        for (; j + 8 <= plan.jr_quad; j += 8) max_2x2_step(x0, g.w, r.start * g.w, j, yr, ir);
        if (j < plan.jr_quad && plan.jr_quad >= 8) {
            max_2x2_step(x0, g.w, r.start * g.w, plan.jr_quad - 8, yr, ir);
            j = plan.jr_quad;
        }
        // what is left is the clipped window of an odd width, if any (ow <= ceil(w / 2))
        for (; j < g.ow; ++j) max_window(xp, g, r, plan.cols[j], yr[j], ir[j]);
        return;
    }
    if (g.ow < 8) return max_edge_step<S, Early>(xp, g, plan, r, 0, g.ow, yr, ir);
    const auto step = [&](int64_t j) {
        if (plan.jl <= j && j + 8 <= plan.jr)
            max_step<S, Early, false>(xp, g, r, plan.taps.data(), j, yr + j, ir + j);
        else
            max_edge_step<S, Early>(xp, g, plan, r, j, 8, yr, ir);
    };
    int64_t j = 0;
    for (; j + 8 <= g.ow; j += 8) step(j);
    if (j < g.ow) step(g.ow - 8);
}

template <int64_t S, bool Early>
void max_plane_avx2(const float* xp, const PoolGeom& g, const MaxRowPlan& plan, float* yp, int64_t* ip) {
    for (int64_t i = 0; i < g.oh; ++i) max_row_avx2<S, Early>(xp, g, plan, i, yp + i * g.ow, ip + i * g.ow);
}

template <int64_t S>
void max_avx2(const float* px, float* py_, int64_t* pi, const PoolGeom& g) {
    MaxRowPlan plan{spans(g.oh, g.sh, g.pt, g.kh, g.dh, g.h), spans(g.ow, g.sw, g.pl, g.kw, g.dw, g.w),
                    std::vector<int32_t>(8 * g.kh * g.kw), 0, 0, false};
    for (int64_t t = 0; t < g.kh * g.kw; ++t)
        std::fill_n(plan.taps.begin() + 8 * t, 8, static_cast<int32_t>((t / g.kw) * g.dh * g.w + (t % g.kw) * g.dw));
    const PlainColumns plain = plain_columns<S>(g);
    const bool early = plain.early;
    plan.jl = plain.jl;
    plan.jr = plain.jr;
    plan.quad = S == 2 && tiles_fit(g) && g.kh == 2 && g.kw == 2;
    plan.jr_quad = std::min(g.ow, g.w / 2);
    const auto plane = early ? &max_plane_avx2<S, true> : &max_plane_avx2<S, false>;
    parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p)
            plane(px + p * g.h * g.w, g, plan, py_ + p * g.oh * g.ow, pi + p * g.oh * g.ow);
    });
}
#endif

// Spore's own max pooling: with AVX2, the vector rows at strides 1 and 2 (including the 2x2 fast
// path); otherwise the non-overlapping fast path where it applies, else the tap-major loops.
void max_own(const float* px, float* py_, int64_t* pi, const PoolGeom& g) {
#ifdef __AVX2__
    if (g.sw == 1) return max_avx2<1>(px, py_, pi, g);
    if (g.sw == 2) return max_avx2<2>(px, py_, pi, g);
#endif
    if (tiles_fit(g)) return max_tiles(px, py_, pi, g);
    max_loops(px, py_, pi, g);
}

// ---- average pooling -----------------------------------------------------------------

// The divisor of one average window, PyTorch's rule: the window clipped to the padded input
// (count_include_pad) or to the input itself, unless divisor_override is set.
inline float divisor(const Span& r, const Span& q, const PoolGeom& g, bool include_pad, int64_t override_) {
    if (override_) return static_cast<float>(override_);
    if (include_pad) {
        const int64_t h_end = std::min(r.start + g.kh, g.h + g.pb), w_end = std::min(q.start + g.kw, g.w + g.pr);
        return static_cast<float>((h_end - r.start) * (w_end - q.start));
    }
    return static_cast<float>((r.hi - r.lo) * (q.hi - q.lo));
}

// 1 / divisor of every output position (the same for every plane).
std::vector<float> inverse_divisors(const PoolGeom& g, bool include_pad, int64_t override_) {
    const auto rows = spans(g.oh, g.sh, g.pt, g.kh, 1, g.h);
    const auto cols = spans(g.ow, g.sw, g.pl, g.kw, 1, g.w);
    std::vector<float> inv(g.oh * g.ow);
    for (int64_t i = 0; i < g.oh; ++i)
        for (int64_t j = 0; j < g.ow; ++j) {
            const float d = divisor(rows[i], cols[j], g, include_pad, override_);
            inv[i * g.ow + j] = d > 0 ? 1.0f / d : 0.0f;
        }
    return inv;
}

void avg_forward_loops(const float* px, float* py_, const PoolGeom& g, bool include_pad, int64_t override_) {
    const auto rows = spans(g.oh, g.sh, g.pt, g.kh, 1, g.h);
    const auto inv = inverse_divisors(g, include_pad, override_);
    const auto cols = tap_columns(g);
    with_stride(g.sw, [&](auto stride) {
        constexpr int64_t S = decltype(stride)::value;
        const int64_t sw = S ? S : g.sw;
        parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
            for (int64_t p = p0; p < p1; ++p) {
                const float* xp = px + p * g.h * g.w;
                for (int64_t i = 0; i < g.oh; ++i) {
                    float* __restrict yr = py_ + (p * g.oh + i) * g.ow;
                    std::fill(yr, yr + g.ow, 0.0f);
                    const Span& r = rows[i];
                    for (int64_t a = r.lo; a < r.hi; ++a) {
                        const float* __restrict xr = xp + (r.start + a) * g.w;
                        for (int64_t b = 0; b < g.kw; ++b) {
                            const int64_t off = b - g.pl;
                            for (int64_t j = cols[b][0]; j < cols[b][1]; ++j) yr[j] += xr[j * sw + off];
                        }
                    }
                    const float* iv = inv.data() + i * g.ow;
                    for (int64_t j = 0; j < g.ow; ++j) yr[j] *= iv[j];
                }
            }
        });
    });
}

// The adjoint of avg_forward_loops: each output spreads dy / divisor over its window.
void avg_backward_loops(const float* pdy, float* pdx, const PoolGeom& g, bool include_pad, int64_t override_) {
    const auto rows = spans(g.oh, g.sh, g.pt, g.kh, 1, g.h);
    const auto inv = inverse_divisors(g, include_pad, override_);
    const auto cols = tap_columns(g);
    // stride 1 only: GCC's vectorised stride-2 scatter-add is slower than the scalar one on short rows
    // (measured: 32x64x32x32, 3x3 / stride 2: 5.3 ms vs 4.6 ms)
    with_stride(g.sw == 1 ? 1 : 0, [&](auto stride) {
        constexpr int64_t S = decltype(stride)::value;
        const int64_t sw = S ? S : g.sw;
        parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
            std::vector<float> v(g.ow);
            for (int64_t p = p0; p < p1; ++p) {
                float* d = pdx + p * g.h * g.w;
                std::fill(d, d + g.h * g.w, 0.0f);
                for (int64_t i = 0; i < g.oh; ++i) {
                    const float* gr = pdy + (p * g.oh + i) * g.ow;
                    const float* iv = inv.data() + i * g.ow;
                    for (int64_t j = 0; j < g.ow; ++j) v[j] = gr[j] * iv[j];
                    const Span& r = rows[i];
                    for (int64_t a = r.lo; a < r.hi; ++a) {
                        float* __restrict dr = d + (r.start + a) * g.w;
                        const float* __restrict vr = v.data();
                        for (int64_t b = 0; b < g.kw; ++b) {
                            const int64_t off = b - g.pl;
                            for (int64_t j = cols[b][0]; j < cols[b][1]; ++j) dr[j * sw + off] += vr[j];
                        }
                    }
                }
            }
        });
    });
}

#ifdef __AVX2__
// Outputs j..j+7 of output row r into y[0..8): the taps summed in row-major order starting from 0,
// as the loops do (a masked tap adds 0, which changes no sum: a sum that starts at +0 is never -0),
// times 1 / divisor (inv: this row's), so the result is bit for bit the loops'.
template <int64_t S, bool Early, bool Masked>
inline void avg_step(const float* xp, const PoolGeom& g, const Span& r, int64_t j, const float* inv, float* y) {
    const int64_t col = j * S - g.pl;
    const float* c = xp + r.start * g.w + col;
    const __m256 zero = _mm256_setzero_ps();
    __m256 acc = zero;
    for (int64_t a = r.lo; a < r.hi; ++a) {
        const float* row = c + a * g.w;
        for (int64_t b = 0; b < g.kw; ++b) {
            if constexpr (Masked)
                acc = _mm256_add_ps(acc, load_taps_masked<S, Early>(row + b, col + b, g.w, zero));
            else
                acc = _mm256_add_ps(acc, load_taps<S, Early>(row + b));
        }
    }
    _mm256_storeu_ps(y, _mm256_mul_ps(unshuffle<S>(acc), _mm256_loadu_ps(inv + j)));
}

// inv: 1 / divisor per output, padded by 8 so that a step of a row narrower than 8 may read it.
template <int64_t S, bool Early>
void avg_plane_avx2(const float* xp, const PoolGeom& g, const Span* rows, PlainColumns plain, const float* inv,
                    float* yp) {
    for (int64_t i = 0; i < g.oh; ++i) {
        const Span& r = rows[i];
        float* yr = yp + i * g.ow;
        const float* iv = inv + i * g.ow;
        if (g.ow < 8) {
            alignas(32) float y8[8];
            avg_step<S, Early, true>(xp, g, r, 0, iv, y8);
            std::copy(y8, y8 + g.ow, yr);
            continue;
        }
        const auto step = [&](int64_t j) {
            if (plain.jl <= j && j + 8 <= plain.jr)
                avg_step<S, Early, false>(xp, g, r, j, iv, yr + j);
            else
                avg_step<S, Early, true>(xp, g, r, j, iv, yr + j);
        };
        int64_t j = 0;
        for (; j + 8 <= g.ow; j += 8) step(j);
        if (j < g.ow) step(g.ow - 8);
    }
}

template <int64_t S>
void avg_forward_avx2(const float* px, float* py_, const PoolGeom& g, bool include_pad, int64_t override_) {
    const auto rows = spans(g.oh, g.sh, g.pt, g.kh, 1, g.h);
    auto inv = inverse_divisors(g, include_pad, override_);
    inv.resize(inv.size() + 8, 0.0f);
    const PlainColumns plain = plain_columns<S>(g);
    const auto plane = plain.early ? &avg_plane_avx2<S, true> : &avg_plane_avx2<S, false>;
    parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p)
            plane(px + p * g.h * g.w, g, rows.data(), plain, inv.data(), py_ + p * g.oh * g.ow);
    });
}
#endif

// Spore's average pooling forward: with AVX2 the vector rows at strides 1 and 2, else the loops.
void avg_forward_own(const float* px, float* py_, const PoolGeom& g, bool include_pad, int64_t override_) {
#ifdef __AVX2__
    if (g.sw == 1) return avg_forward_avx2<1>(px, py_, g, include_pad, override_);
    if (g.sw == 2) return avg_forward_avx2<2>(px, py_, g, include_pad, override_);
#endif
    avg_forward_loops(px, py_, g, include_pad, override_);
}

// The backward pass of non-overlapping windows (tiles_fit): every input element lies in at most one
// window, so dx is written once, dy / divisor into the window's elements and 0 outside every window,
// with no zero fill and no read-modify-write. The value written is 0 + v, what the loops' += onto
// their zero fill gives (a -0 becomes +0). The window width is a compile-time constant where it is 2
// or 3, so the writes of a row vectorise.
template <int64_t K>
void avg_tiles_backward_rows(const float* gr, const float* iv, const PoolGeom& g, int64_t i, float* d,
                             float* __restrict v) {
    const int64_t kw = K ? K : g.kw, fw = std::min(g.ow, g.w / kw);
    for (int64_t j = 0; j < g.ow; ++j) v[j] = 0.0f + gr[j] * iv[j];
    for (int64_t r = i * g.kh; r < std::min(i * g.kh + g.kh, g.h); ++r) {
        float* __restrict dr = d + r * g.w;
        for (int64_t j = 0; j < fw; ++j)
            for (int64_t b = 0; b < kw; ++b) dr[j * kw + b] = v[j];
        for (int64_t c = fw * kw; c < g.w; ++c) {  // a clipped window at the right edge, then no window
            const int64_t j = c / kw;
            dr[c] = j < g.ow ? v[j] : 0.0f;
        }
    }
}

void avg_tiles_backward(const float* pdy, float* pdx, const PoolGeom& g, bool include_pad, int64_t override_) {
    const auto inv = inverse_divisors(g, include_pad, override_);
    parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
        std::vector<float> v(g.ow);
        for (int64_t p = p0; p < p1; ++p) {
            float* d = pdx + p * g.h * g.w;
            for (int64_t i = 0; i < g.oh; ++i) {
                const float* gr = pdy + (p * g.oh + i) * g.ow;
                const float* iv = inv.data() + i * g.ow;
                if (g.kw == 2)
                    avg_tiles_backward_rows<2>(gr, iv, g, i, d, v.data());
                else if (g.kw == 3)
                    avg_tiles_backward_rows<3>(gr, iv, g, i, d, v.data());
                else
                    avg_tiles_backward_rows<0>(gr, iv, g, i, d, v.data());
            }
            const int64_t covered = std::min(g.oh * g.kh, g.h);  // rows below every window
            std::fill(d + covered * g.w, d + g.h * g.w, 0.0f);
        }
    });
}

// Spore's average pooling backward: the one-write pass for non-overlapping windows, else the loops.
void avg_backward_own(const float* pdy, float* pdx, const PoolGeom& g, bool include_pad, int64_t override_) {
    if (tiles_fit(g)) return avg_tiles_backward(pdy, pdx, g, include_pad, override_);
    avg_backward_loops(pdy, pdx, g, include_pad, override_);
}

// ---- oneDNN ---------------------------------------------------------------------------------

using dnnl::memory;
using tag = memory::format_tag;

// 0 = Spore's code only, 1 = measured choice (default), 2 = oneDNN wherever exact (header comment)
std::atomic<int> g_backend{1};

dnnl::engine& cpu_engine() {
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

dnnl::stream& cpu_stream() {
    thread_local dnnl::stream s(cpu_engine());
    return s;
}

enum class Kind : int { max = 0, avg_include = 1, avg_exclude = 2 };

// oneDNN's right padding: enough for the last (ceil-mode) window, never less than asked.
int64_t right_pad(int64_t size, int64_t out, int64_t s, int64_t k, int64_t before, int64_t after) {
    return std::max(after, (out - 1) * s + k - size - before);
}

// A forward/backward primitive pair for one geometry, cached per thread like the conv primitives.
struct PoolEntry {
    dnnl::pooling_forward fwd;
    dnnl::pooling_backward bwd;
    memory::desc src, dst, ws_md;
    memory ws;             // max: the workspace (tap index per output), converted to argmax after
    bool ws_is_u8 = true;
    bool ok = false;       // false: oneDNN cannot run this geometry as asked (the loops will)
    bool jit = false;      // both primitives are jit kernels (not the scalar `simple_nchw` reference)
    std::string impl;      // the forward primitive's implementation name, for pool2d_impl_info
};

PoolEntry& pool_entry(const PoolGeom& g, int64_t n, Kind kind) {
    thread_local std::map<std::vector<int64_t>, std::unique_ptr<PoolEntry>> cache;
    std::vector<int64_t> key{static_cast<int64_t>(kind), n, g.planes, g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw,
                             g.pt, g.pb, g.pl, g.pr};
    if (cache.size() >= 64 && cache.find(key) == cache.end()) cache.clear();
    auto& slot = cache[key];
    if (slot) return *slot;
    slot = std::make_unique<PoolEntry>();
    PoolEntry& e = *slot;
    const int64_t c = g.planes / n;
    e.src = memory::desc({n, c, g.h, g.w}, memory::data_type::f32, tag::nchw);
    e.dst = memory::desc({n, c, g.oh, g.ow}, memory::data_type::f32, tag::nchw);
    const auto alg = kind == Kind::max           ? dnnl::algorithm::pooling_max
                     : kind == Kind::avg_include ? dnnl::algorithm::pooling_avg_include_padding
                                                 : dnnl::algorithm::pooling_avg_exclude_padding;
    const memory::dims strides{g.sh, g.sw}, kernel{g.kh, g.kw}, pad_l{g.pt, g.pl},
        pad_r{right_pad(g.h, g.oh, g.sh, g.kh, g.pt, g.pb), right_pad(g.w, g.ow, g.sw, g.kw, g.pl, g.pr)};
    try {
        dnnl::pooling_forward::desc fd(dnnl::prop_kind::forward_training, alg, e.src, e.dst, strides, kernel, pad_l,
                                       pad_r);
        dnnl::pooling_forward::primitive_desc fpd(fd, cpu_engine());
        dnnl::pooling_backward::desc bd(alg, e.src, e.dst, strides, kernel, pad_l, pad_r);
        dnnl::pooling_backward::primitive_desc bpd(bd, cpu_engine(), fpd);
        e.fwd = dnnl::pooling_forward(fpd);
        e.bwd = dnnl::pooling_backward(bpd);
        e.impl = fpd.impl_info_str();
        e.jit = e.impl.rfind("jit", 0) == 0 && std::string(bpd.impl_info_str()).rfind("jit", 0) == 0;
        if (kind == Kind::max) {
            // the argmax conversion reads the workspace as a plain NCHW array of tap indices
            e.ws_md = fpd.workspace_desc();
            const auto dt = e.ws_md.data_type();
            e.ws_is_u8 = dt == memory::data_type::u8;
            if (!e.ws_is_u8 && dt != memory::data_type::s32) return e;
            if (e.ws_md != memory::desc({n, c, g.oh, g.ow}, dt, tag::nchw)) return e;
            e.ws = memory(e.ws_md, cpu_engine());
        }
        e.ok = true;
    } catch (const dnnl::error&) {
        e.ok = false;
    }
    return e;
}

// Whether oneDNN computes exactly the asked-for pooling.
bool onednn_max_exact(const PoolGeom& g) { return g.dh == 1 && g.dw == 1; }

bool onednn_avg_exact(const PoolGeom& g, bool include_pad, int64_t override_) {
    if (override_ != 0) return false;
    if (!include_pad) return true;
    // PyTorch clips include-pad divisors at the padded edge: only equal to oneDNN's (the whole
    // window) when no window reaches past the asked padding
    return (g.oh - 1) * g.sh + g.kh <= g.h + g.pt + g.pb && (g.ow - 1) * g.sw + g.kw <= g.w + g.pl + g.pr;
}

// The cached oneDNN primitive the backend policy picks for this geometry, or null where Spore's code
// runs: policy 0 never uses oneDNN; 2 uses it wherever it is exact; 1 (default) only where it is
// exact, jit, and (max) not the non-overlapping fast path, which beats it (header comment).
PoolEntry* chosen_entry(const PoolGeom& g, int64_t n, Kind kind, bool exact) {
    const int mode = g_backend.load();
    if (!g.planes || !exact || mode == 0) return nullptr;
    if (mode == 1 && kind == Kind::max && tiles_fit(g)) return nullptr;
    PoolEntry& e = pool_entry(g, n, kind);
    if (!e.ok || (mode == 1 && !e.jit)) return nullptr;
    return &e;
}

PoolEntry* max_entry(const PoolGeom& g, int64_t n) { return chosen_entry(g, n, Kind::max, onednn_max_exact(g)); }

PoolEntry* avg_entry(const PoolGeom& g, int64_t n, bool count_include_pad, int64_t divisor_override) {
    return chosen_entry(g, n, count_include_pad ? Kind::avg_include : Kind::avg_exclude,
                        onednn_avg_exact(g, count_include_pad, divisor_override));
}

// Workspace tap index -> flat h * W + w index within the plane. oneDNN starts each window's max at
// -FLT_MAX, so a window whose elements are all <= -FLT_MAX (-inf, typically) comes back as -FLT_MAX
// with tap 0, possibly a padded one; those rare windows are recomputed here exactly as the loops do.
template <class T>
void taps_to_argmax(const T* ws, const float* px, float* py_, int64_t* pi, const PoolGeom& g) {
    const float lowest = std::numeric_limits<float>::lowest();
    std::vector<int64_t> offset(g.kh * g.kw);  // tap -> its offset from the window's corner (no divisions
    for (int64_t t = 0; t < g.kh * g.kw; ++t) offset[t] = (t / g.kw) * g.w + t % g.kw;  // in the hot loop)
    parallel_for(g.planes, pool_work(g), [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
            const float* xp = px + p * g.h * g.w;
            for (int64_t i = 0; i < g.oh; ++i) {
                const int64_t r0 = i * g.sh - g.pt;
                const T* wr = ws + (p * g.oh + i) * g.ow;
                float* yr = py_ + (p * g.oh + i) * g.ow;
                int64_t* ir = pi + (p * g.oh + i) * g.ow;
                for (int64_t j = 0; j < g.ow; ++j) {
                    const int64_t c0 = j * g.sw - g.pl;
                    if (yr[j] != lowest) {
                        ir[j] = r0 * g.w + c0 + offset[wr[j]];
                        continue;
                    }
                    int64_t at = -1;
                    float best = 0.0f;
                    for (int64_t r = std::max<int64_t>(r0, 0); r < std::min(r0 + g.kh, g.h); ++r)
                        for (int64_t q = std::max<int64_t>(c0, 0); q < std::min(c0 + g.kw, g.w); ++q)
                            if (at < 0 || xp[r * g.w + q] > best) {
                                at = r * g.w + q;
                                best = xp[at];
                            }
                    ir[j] = at;
                    yr[j] = at < 0 ? -std::numeric_limits<float>::infinity() : best;
                }
            }
        }
    });
}

// oneDNN's max pooling lets NaN lose every comparison; PyTorch (and the loops) let it win. A NaN in
// the input sends the call to the loops: one read of the input, ~1/3 of oneDNN's pooling time.
bool has_nan(const float* px, int64_t size) {
    return parallel_any(size, size, [&](int64_t lo, int64_t hi) {
        int64_t nans = 0;
#pragma omp simd reduction(+ : nans)
        for (int64_t i = lo; i < hi; ++i) nans += px[i] != px[i];
        return nans != 0;
    });
}

// ---- entry points ---------------------------------------------------------------------------

// ReLU of the pooled maxima, in the same call (Graph mode's MaxPool + ReLU fusion): an output that
// the ReLU zeroes (or a NaN, which ReLU keeps but whose gradient mask is 0) gets argmax -1, so the
// backward scatter skips it exactly where ReluGrad would have zeroed its gradient.
void relu_epilogue(float* y, int64_t* idx, int64_t size) {
    parallel_for(size, 3 * size, [&](int64_t lo, int64_t hi) {
#pragma omp simd
        for (int64_t i = lo; i < hi; ++i) {
            const float v = y[i];
            const bool pass = v > 0.0f;
            y[i] = pass || v != v ? v : 0.0f;
            idx[i] = pass ? idx[i] : -1;
        }
    });
}

py::tuple max_pool2d_forward(farr x, Pair kernel, Pair stride, Quad pad, Pair dilation, Pair out_hw, bool relu) {
    check_4d(x, "max_pool2d");
    const int64_t n = x.shape(0), c = x.shape(1);
    const PoolGeom g = geom(n * c, x.shape(2), x.shape(3), out_hw, kernel, stride, pad, dilation);
    py::array_t<float> y({n, c, g.oh, g.ow});
    py::array_t<int64_t> idx({n, c, g.oh, g.ow});
    const float* px = x.data();
    float* py_ = y.mutable_data();
    int64_t* pi = idx.mutable_data();
    {
        py::gil_scoped_release nogil;
        PoolEntry* e = max_entry(g, n);
        if (e && !has_nan(px, g.planes * g.h * g.w)) {
            dnnl::stream& s = cpu_stream();
            e->fwd.execute(s, {{DNNL_ARG_SRC, memory(e->src, cpu_engine(), const_cast<float*>(px))},
                               {DNNL_ARG_DST, memory(e->dst, cpu_engine(), py_)},
                               {DNNL_ARG_WORKSPACE, e->ws}});
            s.wait();
            if (e->ws_is_u8)
                taps_to_argmax(static_cast<const uint8_t*>(e->ws.get_data_handle()), px, py_, pi, g);
            else
                taps_to_argmax(static_cast<const int32_t*>(e->ws.get_data_handle()), px, py_, pi, g);
        } else if (g.planes) {
            max_own(px, py_, pi, g);
        }
        if (relu) relu_epilogue(py_, pi, g.planes * g.oh * g.ow);
    }
    return py::make_tuple(y, idx);
}

// dx[plane][argmax] += dy: every output sends its gradient to the element it picked.
py::array_t<float> max_pool2d_backward(farr dy, iarr argmax, Quad input_shape) {
    check_4d(dy, "max_pool2d_backward");
    if (argmax.ndim() != 4 || argmax.size() != dy.size())
        throw std::invalid_argument("max_pool2d_backward: argmax must have the output gradient's shape");
    const int64_t planes = input_shape[0] * input_shape[1], hw = input_shape[2] * input_shape[3];
    if (dy.shape(0) * dy.shape(1) != planes) throw std::invalid_argument("max_pool2d_backward: N*C mismatch");
    const int64_t ohw = dy.shape(2) * dy.shape(3);
    py::array_t<float> dx({input_shape[0], input_shape[1], input_shape[2], input_shape[3]});
    const float* pdy = dy.data();
    const int64_t* pi = argmax.data();
    float* pdx = dx.mutable_data();
    bool bad = false;
    {
        py::gil_scoped_release nogil;
        bad = parallel_any(planes, planes * (hw + 3 * ohw), [&](int64_t p0, int64_t p1) {
            bool out = false;
            for (int64_t p = p0; p < p1; ++p) {
                float* d = pdx + p * hw;
                std::fill(d, d + hw, 0.0f);
                const float* g = pdy + p * ohw;
                const int64_t* ip = pi + p * ohw;
                for (int64_t o = 0; o < ohw; ++o) {
                    const int64_t at = ip[o];
                    if (at < 0) continue;
                    if (at >= hw) {
                        out = true;
                        continue;
                    }
                    d[at] += g[o];
                }
            }
            return out;
        });
    }
    if (bad) throw std::invalid_argument("max_pool2d_backward: argmax index outside the input plane");
    return dx;
}

py::array_t<float> avg_pool2d_forward(farr x, Pair kernel, Pair stride, Quad pad, Pair out_hw, bool count_include_pad,
                                      int64_t divisor_override) {
    check_4d(x, "avg_pool2d");
    const int64_t n = x.shape(0), c = x.shape(1);
    const PoolGeom g = geom(n * c, x.shape(2), x.shape(3), out_hw, kernel, stride, pad, {1, 1});
    py::array_t<float> y({n, c, g.oh, g.ow});
    const float* px = x.data();
    float* py_ = y.mutable_data();
    {
        py::gil_scoped_release nogil;
        PoolEntry* e = avg_entry(g, n, count_include_pad, divisor_override);
        if (e) {
            dnnl::stream& s = cpu_stream();
            e->fwd.execute(s, {{DNNL_ARG_SRC, memory(e->src, cpu_engine(), const_cast<float*>(px))},
                               {DNNL_ARG_DST, memory(e->dst, cpu_engine(), py_)}});
            s.wait();
        } else {
            avg_forward_own(px, py_, g, count_include_pad, divisor_override);
        }
    }
    return y;
}

py::array_t<float> avg_pool2d_backward(farr dy, Quad input_shape, Pair kernel, Pair stride, Quad pad,
                                       bool count_include_pad, int64_t divisor_override) {
    check_4d(dy, "avg_pool2d_backward");
    const int64_t n = input_shape[0], planes = input_shape[0] * input_shape[1];
    if (dy.shape(0) * dy.shape(1) != planes) throw std::invalid_argument("avg_pool2d_backward: N*C mismatch");
    const PoolGeom g = geom(planes, input_shape[2], input_shape[3], {dy.shape(2), dy.shape(3)}, kernel, stride, pad,
                            {1, 1});
    py::array_t<float> dx({input_shape[0], input_shape[1], input_shape[2], input_shape[3]});
    const float* pdy = dy.data();
    float* pdx = dx.mutable_data();
    {
        py::gil_scoped_release nogil;
        PoolEntry* e = avg_entry(g, n, count_include_pad, divisor_override);
        if (e) {
            dnnl::stream& s = cpu_stream();
            e->bwd.execute(s, {{DNNL_ARG_DIFF_DST, memory(e->dst, cpu_engine(), const_cast<float*>(pdy))},
                               {DNNL_ARG_DIFF_SRC, memory(e->src, cpu_engine(), pdx)}});
            s.wait();
        } else {
            avg_backward_own(pdy, pdx, g, count_include_pad, divisor_override);
        }
    }
    return dx;
}

// What a pooling call of this geometry runs on under the current policy: "max_tiles" (the
// non-overlapping fast path), "loops", or "onednn:<implementation>" (max pooling: for an input
// without NaN, which always goes to Spore's code).
std::string pool2d_impl_info(const std::string& kind, Quad x_shape, Pair kernel, Pair stride, Quad pad,
                             Pair dilation, Pair out_hw, bool count_include_pad, int64_t divisor_override) {
    if (kind != "max" && kind != "avg") throw std::invalid_argument("pool2d_impl_info: kind must be 'max' or 'avg'");
    const PoolGeom g = geom(x_shape[0] * x_shape[1], x_shape[2], x_shape[3], out_hw, kernel, stride, pad, dilation);
    if (kind == "max") {
        const PoolEntry* e = max_entry(g, x_shape[0]);
        return e ? "onednn:" + e->impl : tiles_fit(g) ? "max_tiles" : "loops";
    }
    if (g.dh != 1 || g.dw != 1) throw std::invalid_argument("pool2d_impl_info: average pooling has no dilation");
    const PoolEntry* e = avg_entry(g, x_shape[0], count_include_pad, divisor_override);
    return e ? "onednn:" + e->impl : "loops";
}

}  // namespace

void register_pool(py::module_& m) {
    m.def("max_pool2d_forward", &max_pool2d_forward, py::arg("x"), py::arg("kernel"), py::arg("stride"),
          py::arg("pad"), py::arg("dilation"), py::arg("out_hw"), py::arg("relu") = false,
          "float32 NCHW max pooling -> (y, argmax); argmax is the flat h*W+w index within each input plane; "
          "relu: y = ReLU(y) and argmax -1 where the ReLU passes no gradient");
    m.def("max_pool2d_backward", &max_pool2d_backward, py::arg("dy"), py::arg("argmax"), py::arg("input_shape"),
          "gradient of max pooling: scatters dy to the argmax positions");
    m.def("avg_pool2d_forward", &avg_pool2d_forward, py::arg("x"), py::arg("kernel"), py::arg("stride"),
          py::arg("pad"), py::arg("out_hw"), py::arg("count_include_pad"), py::arg("divisor_override"),
          "float32 NCHW average pooling (PyTorch/MindSpore divisor rules)");
    m.def("avg_pool2d_backward", &avg_pool2d_backward, py::arg("dy"), py::arg("input_shape"), py::arg("kernel"),
          py::arg("stride"), py::arg("pad"), py::arg("count_include_pad"), py::arg("divisor_override"),
          "gradient of average pooling");
    m.def("pool2d_impl_info", &pool2d_impl_info, py::arg("kind"), py::arg("x_shape"), py::arg("kernel"),
          py::arg("stride"), py::arg("pad"), py::arg("dilation"), py::arg("out_hw"),
          py::arg("count_include_pad") = true, py::arg("divisor_override") = 0,
          "what pooling of this geometry runs on under the current policy: 'max_tiles', 'loops' or 'onednn:<impl>'");
    m.def("pool_set_backend", [](int mode) {
        if (mode < 0 || mode > 2)
            throw std::invalid_argument(
                "pool_set_backend: 0=Spore's loops only, 1=measured choice (default), 2=oneDNN wherever exact");
        g_backend = mode;
    }, py::arg("mode"),
          "pooling implementation: 0 = Spore's loops only, 1 = the measured choice (default: oneDNN only where it "
          "is exact and has a jit kernel), 2 = oneDNN wherever it is exact");
    m.def("pool_get_backend", []() { return g_backend.load(); });
}

}  // namespace spore
