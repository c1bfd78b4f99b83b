// 2-D max and average pooling (float32, NCHW), forward and backward.
//
// Two implementations, chosen per call:
// - oneDNN's pooling primitives (jit, run directly on NCHW: no reorders), used whenever they compute
//   exactly MindSpore's / PyTorch's result. At one thread on the CNN shapes they are 2-5x faster than
//   the loops below, and 3-20x faster than PyTorch's CPU pooling (H2a report).
// - hand-written OpenMP loops for what oneDNN 2.6 does not express: dilated windows,
//   divisor_override, and count_include_pad windows that hang past the padding in ceil mode
//   (PyTorch clips those divisors at the padded edge; oneDNN counts the whole window). The loops run
//   tap by tap over whole output rows (see tap_columns), branch-free, so they vectorise.
// `pool_set_backend` forces the loops (0) or restores the choice (1), for tests and benchmarks.
//
// Geometry follows PyTorch / MindSpore's `max_pool2d` / `avg_pool2d`: window (kh, kw), stride,
// padding (top, bottom, left, right) and dilation (max only); the caller passes the output size it
// computed (floor or ceil mode), so windows at the far edge may hang over the padded input.
// Max pooling also returns, per output, the flat index (h * W + w) of the chosen element within its
// input plane — the `argmax` that the backward pass scatters into and that `return_indices` shows.
// From oneDNN it is converted from the workspace (the tap index within each window).
#include <dnnl.hpp>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

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
    }
};

// The kernel taps [lo, hi) of one window that land inside the input along one axis:
// positions start + t * dil for t in [0, k), kept where 0 <= pos < size.
struct Span {
    int64_t start, lo, hi;
};

Span span(int64_t start, int64_t k, int64_t dil, int64_t size) {
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

// ---- the loops ----------------------------------------------------------------------------

void max_loops(const float* px, float* py_, int64_t* pi, const PoolGeom& g) {
    const auto rows = spans(g.oh, g.sh, g.pt, g.kh, g.dh, g.h);
    const auto cols = tap_columns(g);
    const float ninf = -std::numeric_limits<float>::infinity();
#pragma omp parallel
    {
        std::vector<int32_t> tap(g.ow);  // per output of a row: the winning tap a * kw + b, -1 if none
#pragma omp for schedule(static)
        for (int64_t p = 0; p < g.planes; ++p) {
            const float* xp = px + p * g.h * g.w;
            for (int64_t i = 0; i < g.oh; ++i) {
                float* yr = py_ + (p * g.oh + i) * g.ow;
                int64_t* ir = pi + (p * g.oh + i) * g.ow;
                std::fill(yr, yr + g.ow, ninf);
                std::fill(tap.begin(), tap.end(), -1);
                const Span& r = rows[i];
                for (int64_t a = r.lo; a < r.hi; ++a) {
                    const float* xr = xp + (r.start + a * g.dh) * g.w;
                    for (int64_t b = 0; b < g.kw; ++b) {
                        const int64_t off = b * g.dw - g.pl;
                        const int32_t t = static_cast<int32_t>(a * g.kw + b);
                        float* __restrict best = yr;
                        int32_t* __restrict tp = tap.data();
                        for (int64_t j = cols[b][0]; j < cols[b][1]; ++j) {
                            // branch-free select (vectorises); ties keep the first maximum, and a NaN
                            // wins (the first one), as in PyTorch
                            const float v = xr[j * g.sw + off], m = best[j];
                            const bool take = (v > m) | ((v != v) & (m == m));
                            best[j] = take ? v : m;
                            tp[j] = take ? t : tp[j];
                        }
                    }
                }
                for (int64_t j = 0; j < g.ow; ++j) {
                    int64_t t = tap[j];
                    if (t < 0) {  // every element in the window is -inf: name the first one
                        for (int64_t b = 0; b < g.kw && r.lo < r.hi; ++b)
                            if (cols[b][0] <= j && j < cols[b][1]) {
                                t = r.lo * g.kw + b;
                                break;
                            }
                    }
                    ir[j] = t < 0 ? -1 : (r.start + (t / g.kw) * g.dh) * g.w + j * g.sw - g.pl + (t % g.kw) * g.dw;
                }
            }
        }
    }
}

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
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < g.planes; ++p) {
        const float* xp = px + p * g.h * g.w;
        for (int64_t i = 0; i < g.oh; ++i) {
            float* yr = py_ + (p * g.oh + i) * g.ow;
            std::fill(yr, yr + g.ow, 0.0f);
            const Span& r = rows[i];
            for (int64_t a = r.lo; a < r.hi; ++a) {
                const float* xr = xp + (r.start + a) * g.w;
                for (int64_t b = 0; b < g.kw; ++b) {
                    const int64_t off = b - g.pl;
                    for (int64_t j = cols[b][0]; j < cols[b][1]; ++j) yr[j] += xr[j * g.sw + off];
                }
            }
            const float* iv = inv.data() + i * g.ow;
            for (int64_t j = 0; j < g.ow; ++j) yr[j] *= iv[j];
        }
    }
}

// The adjoint of avg_forward_loops: each output spreads dy / divisor over its window.
void avg_backward_loops(const float* pdy, float* pdx, const PoolGeom& g, bool include_pad, int64_t override_) {
    const auto rows = spans(g.oh, g.sh, g.pt, g.kh, 1, g.h);
    const auto inv = inverse_divisors(g, include_pad, override_);
    const auto cols = tap_columns(g);
#pragma omp parallel
    {
        std::vector<float> v(g.ow);
#pragma omp for schedule(static)
        for (int64_t p = 0; p < g.planes; ++p) {
            float* d = pdx + p * g.h * g.w;
            std::fill(d, d + g.h * g.w, 0.0f);
            for (int64_t i = 0; i < g.oh; ++i) {
                const float* gr = pdy + (p * g.oh + i) * g.ow;
                const float* iv = inv.data() + i * g.ow;
                for (int64_t j = 0; j < g.ow; ++j) v[j] = gr[j] * iv[j];
                const Span& r = rows[i];
                for (int64_t a = r.lo; a < r.hi; ++a) {
                    float* dr = d + (r.start + a) * g.w;
                    for (int64_t b = 0; b < g.kw; ++b) {
                        const int64_t off = b - g.pl;
                        for (int64_t j = cols[b][0]; j < cols[b][1]; ++j) dr[j * g.sw + off] += v[j];
                    }
                }
            }
        }
    }
}

// ---- oneDNN ---------------------------------------------------------------------------------

using dnnl::memory;
using tag = memory::format_tag;

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
bool onednn_max_fits(const PoolGeom& g) { return g_backend.load() == 1 && g.dh == 1 && g.dw == 1; }

bool onednn_avg_fits(const PoolGeom& g, bool include_pad, int64_t override_) {
    if (g_backend.load() != 1 || override_ != 0) return false;
    if (!include_pad) return true;
    // PyTorch clips include-pad divisors at the padded edge: only equal to oneDNN's (the whole
    // window) when no window reaches past the asked padding
    return (g.oh - 1) * g.sh + g.kh <= g.h + g.pt + g.pb && (g.ow - 1) * g.sw + g.kw <= g.w + g.pl + g.pr;
}

// Workspace tap index -> flat h * W + w index within the plane. oneDNN starts each window's max at
// -FLT_MAX, so a window whose elements are all <= -FLT_MAX (-inf, typically) comes back as -FLT_MAX
// with tap 0, possibly a padded one; those rare windows are recomputed here exactly as the loops do.
template <class T>
void taps_to_argmax(const T* ws, const float* px, float* py_, int64_t* pi, const PoolGeom& g) {
    const float lowest = std::numeric_limits<float>::lowest();
    std::vector<int64_t> offset(g.kh * g.kw);  // tap -> its offset from the window's corner (no divisions
    for (int64_t t = 0; t < g.kh * g.kw; ++t) offset[t] = (t / g.kw) * g.w + t % g.kw;  // in the hot loop)
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < g.planes; ++p) {
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
}

// oneDNN's max pooling lets NaN lose every comparison; PyTorch (and the loops) let it win. A NaN in
// the input sends the call to the loops: one read of the input, ~1/3 of oneDNN's pooling time.
bool has_nan(const float* px, int64_t size) {
    int64_t nans = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : nans)
    for (int64_t i = 0; i < size; ++i) nans += px[i] != px[i];
    return nans != 0;
}

// ---- entry points ---------------------------------------------------------------------------

py::tuple max_pool2d_forward(farr x, Pair kernel, Pair stride, Quad pad, Pair dilation, Pair out_hw) {
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
        PoolEntry* e = g.planes && onednn_max_fits(g) ? &pool_entry(g, n, Kind::max) : nullptr;
        if (e && e->ok && !has_nan(px, g.planes * g.h * g.w)) {
            dnnl::stream& s = cpu_stream();
            e->fwd.execute(s, {{DNNL_ARG_SRC, memory(e->src, cpu_engine(), const_cast<float*>(px))},
                               {DNNL_ARG_DST, memory(e->dst, cpu_engine(), py_)},
                               {DNNL_ARG_WORKSPACE, e->ws}});
            s.wait();
            if (e->ws_is_u8)
                taps_to_argmax(static_cast<const uint8_t*>(e->ws.get_data_handle()), px, py_, pi, g);
            else
                taps_to_argmax(static_cast<const int32_t*>(e->ws.get_data_handle()), px, py_, pi, g);
        } else {
            max_loops(px, py_, pi, g);
        }
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
#pragma omp parallel for schedule(static) reduction(|| : bad)
        for (int64_t p = 0; p < planes; ++p) {
            float* d = pdx + p * hw;
            std::fill(d, d + hw, 0.0f);
            const float* g = pdy + p * ohw;
            const int64_t* ip = pi + p * ohw;
            for (int64_t o = 0; o < ohw; ++o) {
                const int64_t at = ip[o];
                if (at < 0) continue;
                if (at >= hw) {
                    bad = true;
                    continue;
                }
                d[at] += g[o];
            }
        }
    }
    if (bad) throw std::invalid_argument("max_pool2d_backward: argmax index outside the input plane");
    return dx;
}

// The cached oneDNN average-pooling primitive for this geometry, or null where our loops must run
// (divisor rules or padding counts oneDNN computes differently from MindSpore).
PoolEntry* avg_entry(const PoolGeom& g, int64_t n, bool count_include_pad, int64_t divisor_override) {
    if (!g.planes || !onednn_avg_fits(g, count_include_pad, divisor_override)) return nullptr;
    return &pool_entry(g, n, count_include_pad ? Kind::avg_include : Kind::avg_exclude);
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
        if (e && e->ok) {
            dnnl::stream& s = cpu_stream();
            e->fwd.execute(s, {{DNNL_ARG_SRC, memory(e->src, cpu_engine(), const_cast<float*>(px))},
                               {DNNL_ARG_DST, memory(e->dst, cpu_engine(), py_)}});
            s.wait();
        } else {
            avg_forward_loops(px, py_, g, count_include_pad, divisor_override);
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
        if (e && e->ok) {
            dnnl::stream& s = cpu_stream();
            e->bwd.execute(s, {{DNNL_ARG_DIFF_DST, memory(e->dst, cpu_engine(), const_cast<float*>(pdy))},
                               {DNNL_ARG_DIFF_SRC, memory(e->src, cpu_engine(), pdx)}});
            s.wait();
        } else {
            avg_backward_loops(pdy, pdx, g, count_include_pad, divisor_override);
        }
    }
    return dx;
}

}  // namespace

void register_pool(py::module_& m) {
    m.def("max_pool2d_forward", &max_pool2d_forward, py::arg("x"), py::arg("kernel"), py::arg("stride"),
          py::arg("pad"), py::arg("dilation"), py::arg("out_hw"),
          "float32 NCHW max pooling -> (y, argmax); argmax is the flat h*W+w index within each input plane");
    m.def("max_pool2d_backward", &max_pool2d_backward, py::arg("dy"), py::arg("argmax"), py::arg("input_shape"),
          "gradient of max pooling: scatters dy to the argmax positions");
    m.def("avg_pool2d_forward", &avg_pool2d_forward, py::arg("x"), py::arg("kernel"), py::arg("stride"),
          py::arg("pad"), py::arg("out_hw"), py::arg("count_include_pad"), py::arg("divisor_override"),
          "float32 NCHW average pooling (PyTorch/MindSpore divisor rules)");
    m.def("avg_pool2d_backward", &avg_pool2d_backward, py::arg("dy"), py::arg("input_shape"), py::arg("kernel"),
          py::arg("stride"), py::arg("pad"), py::arg("count_include_pad"), py::arg("divisor_override"),
          "gradient of average pooling");
    m.def("pool_set_backend", [](int mode) {
        if (mode != 0 && mode != 1) throw std::invalid_argument("pool_set_backend: 0=loops only, 1=oneDNN where exact");
        g_backend = mode;
    }, py::arg("mode"), "pooling implementation: 0 = the OpenMP loops only, 1 = oneDNN where it is exact (default)");
    m.def("pool_get_backend", []() { return g_backend.load(); });
}

}  // namespace spore
