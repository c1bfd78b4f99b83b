// 2-D convolution (float32, NCHW) through oneDNN: forward (bias fused), backward-data and
// backward-weights, with stride, dilation, groups and asymmetric padding (top, bottom, left, right).
//
// Each call is described by its geometry; the primitive descriptor, the primitive and the reorders
// it needs are built once per geometry and kept in a per-thread cache (creating them costs far more
// than running them on the small shapes Spore trains). The cache is thread_local so that two Python
// threads, both running with the GIL released, never share the scratch buffers of one entry.
//
// Layouts: the caller's arrays are always plain NCHW / OIHW. oneDNN's fastest kernels want blocked
// layouts (nChw16c, OIhw16i16o, ...); asking for `any` lets it choose and we reorder at the edges.
// Whether that pays off depends on the primitive and the shape, so the policy is a switch
// (`conv_set_layout`):
//   0 = plain: every tensor stays NCHW/OIHW (oneDNN runs its im2col+gemm kernels),
//   1 = blocked: oneDNN picks every layout, reorders in and out,
//   2 = auto (default): blocked for forward and weight gradients (the jit kernels win there at every
//       size measured, 1-3 input channels included, where oneDNN reads NCHW directly), and for the
//       input gradient only when it has >= 5 channels per group or is depthwise (into 1-3
//       channels the 16-wide blocks are mostly padding: 2-7x slower than gemm). See Geom::blocked.
// Even blocked, the reorders cost ~25% of a 16->32-channel layer; `conv2d_backward` shares the
// reorder of dy between the two gradient primitives.
#include <dnnl.hpp>
#include <pybind11/stl.h>

#ifdef __GLIBC__
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels.h"

namespace spore {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

dnnl::engine& cpu_engine() {
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

dnnl::stream& cpu_stream() {
    thread_local dnnl::stream s(cpu_engine());
    return s;
}

std::atomic<int> g_layout{2};

using Pair = std::array<int64_t, 2>;
using Quad = std::array<int64_t, 4>;

// Everything that determines a convolution: shapes, stride, padding, dilation, groups.
struct Geom {
    int64_t n, c, h, w;     // input
    int64_t o, kh, kw;      // weight: (o, c/g, kh, kw)
    int64_t oh, ow;         // output
    int64_t sh, sw, pt, pb, pl, pr, dh, dw, g;

    Geom(int64_t n_, int64_t c_, int64_t h_, int64_t w_, int64_t o_, int64_t kh_, int64_t kw_, Pair stride,
         Quad pad, Pair dil, int64_t groups)
        : n(n_), c(c_), h(h_), w(w_), o(o_), kh(kh_), kw(kw_), sh(stride[0]), sw(stride[1]), pt(pad[0]),
          pb(pad[1]), pl(pad[2]), pr(pad[3]), dh(dil[0]), dw(dil[1]), g(groups) {
        if (sh < 1 || sw < 1 || dh < 1 || dw < 1 || g < 1)
            throw std::invalid_argument("conv2d: stride, dilation and groups must be >= 1");
        if (pt < 0 || pb < 0 || pl < 0 || pr < 0) throw std::invalid_argument("conv2d: negative padding");
        if (c % g || o % g) throw std::invalid_argument("conv2d: channels are not divisible by groups");
        oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
        ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
        if (oh < 1 || ow < 1) throw std::invalid_argument("conv2d: kernel larger than the padded input");
    }

    bool empty() const { return n == 0 || c == 0 || o == 0; }

    // Whether the primitive of `kind` (0 fwd, 1 bwd-data, 2 bwd-weights) runs on oneDNN-chosen
    // layouts; the auto rule comes from one-thread AVX-512 measurements (file header).
    bool blocked(int kind) const {
        const int mode = g_layout.load();
        if (mode != 2) return mode == 1;
        // Plain NCHW input gradients cost ~linearly in the input channels, the 16-wide blocked kernel
        // about the same from 1 to 16: measured (AMD EPYC, 1 thread, dx of (64,16,10,10)*(16,C,5,5)) plain
        // 0.21/0.59/1.13/1.50 ms vs blocked 0.74-0.76 ms for C = 1/3/6/8, so blocked wins from ~5 channels.
        if (kind == 1) return c / g >= 5 || (c == g && o == g);  // wide enough groups, or depthwise
        return true;
    }

    std::vector<int64_t> key(int kind, int flag) const {
        return {kind, flag, blocked(kind) ? 1 : 0, n, c, h, w, o, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, g};
    }

    memory::desc user_src() const { return {{n, c, h, w}, kF32, tag::nchw}; }
    memory::desc user_dst() const { return {{n, o, oh, ow}, kF32, tag::nchw}; }
    memory::desc user_wei() const {
        return g == 1 ? memory::desc({o, c, kh, kw}, kF32, tag::oihw)
                      : memory::desc({g, o / g, c / g, kh, kw}, kF32, tag::goihw);
    }
    // What the primitive is asked for: the user's layout, or `any` to let oneDNN choose.
    memory::desc want(const memory::desc& user, int kind) const {
        return blocked(kind) ? memory::desc(user.dims(), kF32, tag::any) : user;
    }
    memory::dims strides() const { return {sh, sw}; }
    memory::dims dilates() const { return {dh - 1, dw - 1}; }  // oneDNN counts dilation from 0
    memory::dims pad_l() const { return {pt, pl}; }
    memory::dims pad_r() const { return {pb, pr}; }

    // The forward descriptor; backward primitives need it (built with their own layout policy) as a hint.
    dnnl::convolution_forward::primitive_desc fwd_pd(bool bias, int kind = 0) const {
        const memory::desc bias_md = bias ? memory::desc({o}, kF32, tag::x) : memory::desc();
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                          want(user_src(), kind), want(user_wei(), kind), bias_md,
                                          want(user_dst(), kind),
                                          strides(), dilates(), pad_l(), pad_r());
        return {d, cpu_engine()};
    }
};

// One tensor argument of a primitive: the caller's plain buffer and, when the primitive chose
// another layout, an internal buffer plus the reorder between the two.
struct Port {
    memory::desc user_md;
    memory internal;
    dnnl::reorder reorder;
    bool input = true;
    bool needs_reorder = false;

    void init(const memory::desc& user, const memory::desc& prim, bool is_input) {
        user_md = user;
        input = is_input;
        needs_reorder = user != prim;
        if (!needs_reorder) return;
        internal = memory(prim, cpu_engine());
        reorder = is_input ? dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), user, cpu_engine(), prim))
                           : dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), prim, cpu_engine(), user));
    }

    // The layout the primitive works in (the user's when no reorder is needed).
    memory::desc internal_desc() const { return needs_reorder ? internal.get_desc() : user_md; }

    // The memory the primitive reads/writes; inputs are reordered into it right away.
    memory bind(const float* ptr, dnnl::stream& s) const {
        memory user(user_md, cpu_engine(), const_cast<float*>(ptr));
        if (!needs_reorder) return user;
        if (input) reorder.execute(s, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, internal}});
        return internal;
    }

    // For outputs: copy the primitive's result back into the caller's buffer.
    void finish(float* ptr, dnnl::stream& s) const {
        if (!needs_reorder) return;
        memory user(user_md, cpu_engine(), ptr);
        reorder.execute(s, {{DNNL_ARG_FROM, internal}, {DNNL_ARG_TO, user}});
    }
};

struct FwdEntry {
    dnnl::convolution_forward prim;
    Port src, wei, dst;
    std::string impl;
};

struct BwdDataEntry {
    dnnl::convolution_backward_data prim;
    Port diff_dst, wei, diff_src;
    std::string impl;
};

struct BwdWeiEntry {
    dnnl::convolution_backward_weights prim;
    Port src, diff_dst, diff_wei;
    std::string impl;
};

template <class E>
using Cache = std::map<std::vector<int64_t>, std::unique_ptr<E>>;

// Entries hold scratch buffers the size of the activations, so a program whose shapes keep changing
// must not grow the cache forever: past this many geometries per kind it starts over.
constexpr size_t kMaxCached = 64;

template <class E>
std::unique_ptr<E>& cache_slot(Cache<E>& cache, std::vector<int64_t> key) {
    if (cache.size() >= kMaxCached && cache.find(key) == cache.end()) cache.clear();
    return cache[std::move(key)];
}

FwdEntry& fwd_entry(const Geom& gm, bool bias) {
    thread_local Cache<FwdEntry> cache;
    auto& slot = cache_slot(cache, gm.key(0, bias));
    if (!slot) {
        auto e = std::make_unique<FwdEntry>();
        auto pd = gm.fwd_pd(bias);
        e->prim = dnnl::convolution_forward(pd);
        e->src.init(gm.user_src(), pd.src_desc(), true);
        e->wei.init(gm.user_wei(), pd.weights_desc(), true);
        e->dst.init(gm.user_dst(), pd.dst_desc(), false);
        e->impl = pd.impl_info_str();
        slot = std::move(e);
    }
    return *slot;
}

BwdDataEntry& bwd_data_entry(const Geom& gm) {
    thread_local Cache<BwdDataEntry> cache;
    auto& slot = cache_slot(cache, gm.key(1, 0));
    if (!slot) {
        auto e = std::make_unique<BwdDataEntry>();
        dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, gm.want(gm.user_src(), 1),
                                                gm.want(gm.user_wei(), 1), gm.want(gm.user_dst(), 1), gm.strides(),
                                                gm.dilates(), gm.pad_l(), gm.pad_r());
        dnnl::convolution_backward_data::primitive_desc pd(d, cpu_engine(), gm.fwd_pd(false, 1));
        e->prim = dnnl::convolution_backward_data(pd);
        e->diff_dst.init(gm.user_dst(), pd.diff_dst_desc(), true);
        e->wei.init(gm.user_wei(), pd.weights_desc(), true);
        e->diff_src.init(gm.user_src(), pd.diff_src_desc(), false);
        e->impl = pd.impl_info_str();
        slot = std::move(e);
    }
    return *slot;
}

// The weights-gradient primitive; with `bias` it also produces the bias gradient (the per-channel
// sum of dy), which it gets nearly for free while it streams dy anyway.
BwdWeiEntry& bwd_wei_entry(const Geom& gm, bool bias = false) {
    thread_local Cache<BwdWeiEntry> cache;
    auto& slot = cache_slot(cache, gm.key(2, bias));
    if (!slot) {
        auto e = std::make_unique<BwdWeiEntry>();
        const memory::desc bias_md = bias ? memory::desc({gm.o}, kF32, tag::x) : memory::desc();
        dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, gm.want(gm.user_src(), 2),
                                                   gm.want(gm.user_wei(), 2), bias_md, gm.want(gm.user_dst(), 2),
                                                   gm.strides(), gm.dilates(), gm.pad_l(), gm.pad_r());
        dnnl::convolution_backward_weights::primitive_desc pd(d, cpu_engine(), gm.fwd_pd(bias, 2));
        e->prim = dnnl::convolution_backward_weights(pd);
        e->src.init(gm.user_src(), pd.src_desc(), true);
        e->diff_dst.init(gm.user_dst(), pd.diff_dst_desc(), true);
        e->diff_wei.init(gm.user_wei(), pd.diff_weights_desc(), false);
        e->impl = pd.impl_info_str();
        slot = std::move(e);
    }
    return *slot;
}

void check_4d(const farr& a, const char* what) {
    if (a.ndim() != 4) throw std::invalid_argument(std::string("conv2d: ") + what + " must be 4-D (NCHW)");
}

py::array_t<float> zeros(std::vector<int64_t> shape) {
    py::array_t<float> out(shape);
    std::fill(out.mutable_data(), out.mutable_data() + out.size(), 0.0f);
    return out;
}

// y = conv(x, w) + b
py::array_t<float> conv2d_forward(farr x, farr w, std::optional<farr> b, Pair stride, Quad pad, Pair dilation,
                                  int64_t groups) {
    check_4d(x, "input");
    check_4d(w, "weight");
    const Geom gm(x.shape(0), x.shape(1), x.shape(2), x.shape(3), w.shape(0), w.shape(2), w.shape(3), stride, pad,
                  dilation, groups);
    if (w.shape(1) * groups != gm.c) throw std::invalid_argument("conv2d: weight in-channels * groups != input channels");
    if (b && (b->ndim() != 1 || b->shape(0) != gm.o)) throw std::invalid_argument("conv2d: bias must be (out_channels,)");
    if (gm.empty()) return zeros({gm.n, gm.o, gm.oh, gm.ow});
    py::array_t<float> y({gm.n, gm.o, gm.oh, gm.ow});
    const float* px = x.data();
    const float* pw = w.data();
    const float* pb = b ? b->data() : nullptr;
    float* py_ = y.mutable_data();
    {
        py::gil_scoped_release nogil;
        FwdEntry& e = fwd_entry(gm, pb != nullptr);
        dnnl::stream& s = cpu_stream();
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.src.bind(px, s)},
                                             {DNNL_ARG_WEIGHTS, e.wei.bind(pw, s)},
                                             {DNNL_ARG_DST, e.dst.bind(py_, s)}};
        if (pb) args[DNNL_ARG_BIAS] = memory({{gm.o}, kF32, tag::x}, cpu_engine(), const_cast<float*>(pb));
        e.prim.execute(s, args);
        e.dst.finish(py_, s);
        s.wait();
    }
    return y;
}

// dx = conv_transpose(dy, w): the gradient of conv2d with respect to its input.
py::array_t<float> conv2d_backward_data(farr dy, farr w, Quad input_shape, Pair stride, Quad pad, Pair dilation,
                                        int64_t groups) {
    check_4d(dy, "output gradient");
    check_4d(w, "weight");
    const Geom gm(input_shape[0], input_shape[1], input_shape[2], input_shape[3], w.shape(0), w.shape(2), w.shape(3),
                  stride, pad, dilation, groups);
    if (w.shape(1) * groups != gm.c) throw std::invalid_argument("conv2d: weight in-channels * groups != input channels");
    if (dy.shape(0) != gm.n || dy.shape(1) != gm.o || dy.shape(2) != gm.oh || dy.shape(3) != gm.ow)
        throw std::invalid_argument("conv2d_backward_data: output gradient shape does not match the geometry");
    if (gm.empty()) return zeros({gm.n, gm.c, gm.h, gm.w});
    py::array_t<float> dx({gm.n, gm.c, gm.h, gm.w});
    const float* pdy = dy.data();
    const float* pw = w.data();
    float* pdx = dx.mutable_data();
    {
        py::gil_scoped_release nogil;
        BwdDataEntry& e = bwd_data_entry(gm);
        dnnl::stream& s = cpu_stream();
        e.prim.execute(s, {{DNNL_ARG_DIFF_DST, e.diff_dst.bind(pdy, s)},
                           {DNNL_ARG_WEIGHTS, e.wei.bind(pw, s)},
                           {DNNL_ARG_DIFF_SRC, e.diff_src.bind(pdx, s)}});
        e.diff_src.finish(pdx, s);
        s.wait();
    }
    return dx;
}

// dw = correlate(x, dy): the gradient of conv2d with respect to its weight.
py::array_t<float> conv2d_backward_weights(farr dy, farr x, Quad filter_shape, Pair stride, Quad pad, Pair dilation,
                                           int64_t groups) {
    check_4d(dy, "output gradient");
    check_4d(x, "input");
    const Geom gm(x.shape(0), x.shape(1), x.shape(2), x.shape(3), filter_shape[0], filter_shape[2], filter_shape[3],
                  stride, pad, dilation, groups);
    if (filter_shape[1] * groups != gm.c)
        throw std::invalid_argument("conv2d: weight in-channels * groups != input channels");
    if (dy.shape(0) != gm.n || dy.shape(1) != gm.o || dy.shape(2) != gm.oh || dy.shape(3) != gm.ow)
        throw std::invalid_argument("conv2d_backward_weights: output gradient shape does not match the geometry");
    if (gm.empty()) return zeros({filter_shape[0], filter_shape[1], filter_shape[2], filter_shape[3]});
    py::array_t<float> dw({filter_shape[0], filter_shape[1], filter_shape[2], filter_shape[3]});
    const float* pdy = dy.data();
    const float* px = x.data();
    float* pdw = dw.mutable_data();
    {
        py::gil_scoped_release nogil;
        BwdWeiEntry& e = bwd_wei_entry(gm);
        dnnl::stream& s = cpu_stream();
        e.prim.execute(s, {{DNNL_ARG_SRC, e.src.bind(px, s)},
                           {DNNL_ARG_DIFF_DST, e.diff_dst.bind(pdy, s)},
                           {DNNL_ARG_DIFF_WEIGHTS, e.diff_wei.bind(pdw, s)}});
        e.diff_wei.finish(pdw, s);
        s.wait();
    }
    return dw;
}

// Both gradients of one convolution in one call, for the common training step where the input and
// the weight both need them: dy is reordered into oneDNN's layout once and shared by the two
// primitives when they want the same layout, and with `with_bias` the bias gradient comes out of the
// weights primitive. Returns (dx, dw, db or None).
py::tuple conv2d_backward(farr dy, farr x, farr w, Pair stride, Quad pad, Pair dilation, int64_t groups,
                          bool with_bias) {
    check_4d(dy, "output gradient");
    check_4d(x, "input");
    check_4d(w, "weight");
    const Geom gm(x.shape(0), x.shape(1), x.shape(2), x.shape(3), w.shape(0), w.shape(2), w.shape(3), stride, pad,
                  dilation, groups);
    if (w.shape(1) * groups != gm.c) throw std::invalid_argument("conv2d: weight in-channels * groups != input channels");
    if (dy.shape(0) != gm.n || dy.shape(1) != gm.o || dy.shape(2) != gm.oh || dy.shape(3) != gm.ow)
        throw std::invalid_argument("conv2d_backward: output gradient shape does not match the geometry");
    if (gm.empty()) {
        py::object db = with_bias ? py::object(zeros({gm.o})) : py::object(py::none());
        return py::make_tuple(zeros({gm.n, gm.c, gm.h, gm.w}), zeros({gm.o, gm.c / gm.g, gm.kh, gm.kw}), db);
    }
    py::array_t<float> dx({gm.n, gm.c, gm.h, gm.w});
    py::array_t<float> dw({gm.o, gm.c / gm.g, gm.kh, gm.kw});
    py::array_t<float> db(with_bias ? gm.o : 0);
    const float *pdy = dy.data(), *px = x.data(), *pw = w.data();
    float *pdx = dx.mutable_data(), *pdw = dw.mutable_data(), *pdb = db.mutable_data();
    {
        py::gil_scoped_release nogil;
        BwdDataEntry& ed = bwd_data_entry(gm);
        BwdWeiEntry& ew = bwd_wei_entry(gm, with_bias);
        dnnl::stream& s = cpu_stream();
        const memory dy_d = ed.diff_dst.bind(pdy, s);
        ed.prim.execute(s, {{DNNL_ARG_DIFF_DST, dy_d},
                            {DNNL_ARG_WEIGHTS, ed.wei.bind(pw, s)},
                            {DNNL_ARG_DIFF_SRC, ed.diff_src.bind(pdx, s)}});
        ed.diff_src.finish(pdx, s);
        // reuse the reordered dy when the weights primitive reads the same layout
        const memory dy_w = ew.diff_dst.internal_desc() == ed.diff_dst.internal_desc() ? dy_d : ew.diff_dst.bind(pdy, s);
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, ew.src.bind(px, s)},
                                             {DNNL_ARG_DIFF_DST, dy_w},
                                             {DNNL_ARG_DIFF_WEIGHTS, ew.diff_wei.bind(pdw, s)}};
        if (with_bias) args[DNNL_ARG_DIFF_BIAS] = memory({{gm.o}, kF32, tag::x}, cpu_engine(), pdb);
        ew.prim.execute(s, args);
        ew.diff_wei.finish(pdw, s);
        s.wait();
    }
    return py::make_tuple(dx, dw, with_bias ? py::object(db) : py::object(py::none()));
}

// db[c] = sum over n and spatial positions of dy[n, c, :]: the bias gradient, dy viewed as (N, C, R).
// Channels are independent, so they split across threads; each inner sum runs over contiguous memory.
py::array_t<float> bias_add_grad(farr dy) {
    if (dy.ndim() != 3) throw std::invalid_argument("bias_add_grad: expected dy viewed as (N, C, R)");
    const int64_t n = dy.shape(0), c = dy.shape(1), r = dy.shape(2);
    py::array_t<float> db(c);
    const float* pd = dy.data();
    float* pb = db.mutable_data();
    {
        py::gil_scoped_release nogil;
#pragma omp parallel for schedule(static)
        for (int64_t ch = 0; ch < c; ++ch) {
            double acc = 0.0;  // float64 accumulator: the sums run over N*H*W terms
            for (int64_t i = 0; i < n; ++i) {
                const float* row = pd + (i * c + ch) * r;
                float s = 0.0f;
#pragma omp simd reduction(+ : s)
                for (int64_t k = 0; k < r; ++k) s += row[k];
                acc += s;
            }
            pb[ch] = static_cast<float>(acc);
        }
    }
    return db;
}

// Which oneDNN implementations a geometry runs (for benchmarks and layout tuning).
py::dict conv2d_impl_info(Quad x_shape, Quad w_shape, Pair stride, Quad pad, Pair dilation, int64_t groups) {
    const Geom gm(x_shape[0], x_shape[1], x_shape[2], x_shape[3], w_shape[0], w_shape[2], w_shape[3], stride, pad,
                  dilation, groups);
    py::dict d;
    d["forward"] = fwd_entry(gm, false).impl;
    d["backward_data"] = bwd_data_entry(gm).impl;
    d["backward_weights"] = bwd_wei_entry(gm).impl;
    d["blocked"] = py::make_tuple(gm.blocked(0), gm.blocked(1), gm.blocked(2));
    return d;
}

}  // namespace

void register_conv(py::module_& m) {
    m.def("conv2d_forward", &conv2d_forward, py::arg("x"), py::arg("w"), py::arg("b"), py::arg("stride"),
          py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          "float32 NCHW convolution y = conv(x, w) (+ b); pad = (top, bottom, left, right)");
    m.def("conv2d_backward_data", &conv2d_backward_data, py::arg("dy"), py::arg("w"), py::arg("input_shape"),
          py::arg("stride"), py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          "gradient of conv2d with respect to its input");
    m.def("conv2d_backward_weights", &conv2d_backward_weights, py::arg("dy"), py::arg("x"), py::arg("filter_shape"),
          py::arg("stride"), py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          "gradient of conv2d with respect to its weight");
    m.def("conv2d_backward", &conv2d_backward, py::arg("dy"), py::arg("x"), py::arg("w"), py::arg("stride"),
          py::arg("pad"), py::arg("dilation"), py::arg("groups"), py::arg("with_bias") = false,
          "both gradients of conv2d in one call -> (dx, dw, db or None); dy is reordered once");
    m.def("bias_add_grad", &bias_add_grad, py::arg("dy"),
          "per-channel sum of dy viewed as (N, C, R): the gradient of a channel bias");
    m.def("conv2d_impl_info", &conv2d_impl_info, py::arg("x_shape"), py::arg("w_shape"), py::arg("stride"),
          py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          "the oneDNN implementations chosen for a geometry (forward, backward_data, backward_weights)");
    m.def("conv_set_layout", [](int mode) {
        if (mode < 0 || mode > 2) throw std::invalid_argument("conv_set_layout: 0=plain, 1=blocked, 2=auto");
        g_layout = mode;
    }, py::arg("mode"), "layout policy of the conv kernels: 0=plain NCHW, 1=oneDNN-chosen blocked, 2=auto");
    m.def("conv_get_layout", []() { return g_layout.load(); });
}

}  // namespace spore
