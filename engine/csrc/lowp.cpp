// Low-precision kernels for mixed precision (spore/amp/lowp.py): bfloat16 convolution through oneDNN,
// and ReLU / its gradient on float16 and bfloat16 arrays.
//
// bf16 convolution: before this file O2-bf16 convolutions converted operands to float32, ran the fp32
// conv and rounded back (SimpleCNN 8.0 ms per step against 1.8 at O0). oneDNN 2.6 has bf16 forward,
// backward-data and backward-weights convolutions (jit:avx512_core_bf16 here, AMX where present) with
// float32 accumulation; inputs and outputs are bf16 bit patterns (uint16), each output rounded once from
// the float32 accumulator (round to nearest even, as ml_dtypes' astype). The primitive picks its own
// layouts (format `any`) and the user's NCHW / OIHW arrays are reordered in and out when they differ;
// primitives are cached per geometry and team size (thread_local, like the fp32 conv cache).
//
// ReLU on 16-bit floats: NumPy runs np.maximum on float16 and ml_dtypes' bfloat16 in scalar loops
// (~4-10 ns per element; a 32x16x32x32 activation took 2.4 ms, more than the convolution). These
// kernels work on the bit patterns and give exactly what the float32 kernels give, rounded (ReLU and
// its gradient are exact in any binary float format): max(x, 0) keeps x unless it is negative or -0
// (NaN kept), and the gradient passes g where the ReLU output is > 0 and gives g * 0 elsewhere
// (signed zero, NaN for an infinite or NaN g), as NumPy's multiply by the mask does.
#include <pybind11/stl.h>

#include <dnnl.hpp>

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "batch_chunks.h"
#include "grain.h"
#include "kernels.h"
#include "lowp16.h"
#include "team_gemm.h"

namespace spore {
namespace {

using lowp16::add_first_nan;
using lowp16::relu_bits;
using lowp16::relu_grad_bits;
using lowp16::kRun;
using lowp16::narrow16;
using lowp16::widen16;
using lowp16::widen_scratch;

using u16arr = py::array_t<uint16_t, py::array::c_style | py::array::forcecast>;
using memory = dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;
using Pair = std::array<int64_t, 2>;
using Quad = std::array<int64_t, 4>;

dnnl::engine& eng() {
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

// One operand: the user's plain buffer, and the primitive's own layout when it differs (reordered
// in for inputs, out for outputs).
struct Port {
    memory::desc user, internal;
    bool reorder = false;
    memory scratch;
    dnnl::reorder to_internal, to_user;

    void init(const memory::desc& u, const memory::desc& in, bool input) {
        user = u;
        internal = in;
        reorder = u != in;
        if (!reorder) return;
        scratch = memory(in, eng());
        memory um(u, eng(), DNNL_MEMORY_NONE);
        if (input)
            to_internal = dnnl::reorder(um, scratch);
        else
            to_user = dnnl::reorder(scratch, um);
    }
    memory bind(const void* p, dnnl::stream& s) {
        memory um(user, eng(), const_cast<void*>(p));
        if (!reorder) return um;
        if (to_internal) to_internal.execute(s, um, scratch);
        return scratch;
    }
    void finish(void* p, dnnl::stream& s) {
        if (!reorder) return;
        memory um(user, eng(), p);
        to_user.execute(s, scratch, um);
    }
};

struct Geom {
    int64_t n, c, h, w, o, kh, kw, oh, ow, g;
    Pair stride, dil;
    Quad pad;  // top, bottom, left, right

    memory::desc src() const { return {{n, c, h, w}, dt::bf16, tag::nchw}; }
    memory::desc dst() const { return {{n, o, oh, ow}, dt::bf16, tag::nchw}; }
    memory::desc wei() const {
        if (g == 1) return {{o, c, kh, kw}, dt::bf16, tag::oihw};
        return {{g, o / g, c / g, kh, kw}, dt::bf16, tag::goihw};
    }
    memory::dims wdims() const {
        return g == 1 ? memory::dims{o, c, kh, kw} : memory::dims{g, o / g, c / g, kh, kw};
    }
    memory::desc wei32() const { return {wdims(), dt::f32, g == 1 ? tag::oihw : tag::goihw}; }
    static memory::desc any(const memory::desc& d, dt type = dt::bf16) { return memory::desc(d.dims(), type, tag::any); }
    memory::dims strides() const { return {stride[0], stride[1]}; }
    memory::dims dilates() const { return {dil[0] - 1, dil[1] - 1}; }  // oneDNN counts dilation from 0
    memory::dims pad_l() const { return {pad[0], pad[2]}; }
    memory::dims pad_r() const { return {pad[1], pad[3]}; }
    int64_t macs() const { return n * o * oh * ow * (c / g) * kh * kw; }
    std::vector<int64_t> key(int kind, bool bias) const {
        return {kind, bias, n, c, h, w, o, kh, kw, g, stride[0], stride[1], dil[0], dil[1], pad[0], pad[1], pad[2],
                pad[3], omp_get_max_threads()};
    }
    dnnl::convolution_forward::primitive_desc fwd_pd(bool bias) const {
        const memory::desc b = bias ? memory::desc({o}, dt::bf16, tag::x) : memory::desc();
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                          any(src()), any(wei()), b, any(dst()), strides(), dilates(), pad_l(),
                                          pad_r());
        return {d, eng()};
    }
};

Geom make_geom(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw, Pair stride, Quad pad,
               Pair dil, int64_t g) {
    if (g < 1 || c % g || o % g) throw std::invalid_argument("conv2d_bf16: channels must divide by groups");
    if (stride[0] < 1 || stride[1] < 1 || dil[0] < 1 || dil[1] < 1)
        throw std::invalid_argument("conv2d_bf16: stride and dilation must be >= 1");
    const int64_t eh = (kh - 1) * dil[0] + 1, ew = (kw - 1) * dil[1] + 1;
    const int64_t oh = (h + pad[0] + pad[1] - eh) / stride[0] + 1, ow = (w + pad[2] + pad[3] - ew) / stride[1] + 1;
    if (oh < 1 || ow < 1) throw std::invalid_argument("conv2d_bf16: kernel larger than the padded input");
    return Geom{n, c, h, w, o, kh, kw, oh, ow, g, stride, dil, pad};
}

struct Fwd {
    dnnl::convolution_forward prim;
    Port src, wei, dst;
    std::string impl;
};
struct BwdData {
    dnnl::convolution_backward_data prim;
    Port dy, wei, dx;
    std::string impl;
};
struct BwdWei {
    dnnl::convolution_backward_weights prim;
    Port src, dy, dw;
    std::string impl;
};

template <typename E>
using Cache = std::map<std::vector<int64_t>, std::unique_ptr<E>>;

template <typename E, typename Make>
E& cached(Cache<E>& cache, const std::vector<int64_t>& key, Make make) {
    auto it = cache.find(key);
    if (it != cache.end()) return *it->second;
    if (cache.size() >= 64) cache.clear();
    try {
        return *cache.emplace(key, make()).first->second;
    } catch (const dnnl::error& e) {  // no AVX512: oneDNN has no bf16 convolution (spore.amp.lowp computes in float32)
        throw std::runtime_error(std::string("conv2d_bf16: oneDNN has no bf16 convolution on this CPU (") + e.what() + ")");
    }
}

Fwd& fwd_entry(const Geom& gm, bool bias) {
    thread_local Cache<Fwd> cache;
    return cached(cache, gm.key(0, bias), [&] {
        auto e = std::make_unique<Fwd>();
        auto pd = gm.fwd_pd(bias);
        e->prim = dnnl::convolution_forward(pd);
        e->src.init(gm.src(), pd.src_desc(), true);
        e->wei.init(gm.wei(), pd.weights_desc(), true);
        e->dst.init(gm.dst(), pd.dst_desc(), false);
        e->impl = pd.impl_info_str();
        return e;
    });
}

BwdData& bwd_data_entry(const Geom& gm) {
    thread_local Cache<BwdData> cache;
    return cached(cache, gm.key(1, false), [&] {
        auto e = std::make_unique<BwdData>();
        dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, Geom::any(gm.src()),
                                                Geom::any(gm.wei()), Geom::any(gm.dst()), gm.strides(), gm.dilates(),
                                                gm.pad_l(), gm.pad_r());
        dnnl::convolution_backward_data::primitive_desc pd(d, eng(), gm.fwd_pd(false));
        e->prim = dnnl::convolution_backward_data(pd);
        e->dy.init(gm.dst(), pd.diff_dst_desc(), true);
        e->wei.init(gm.wei(), pd.weights_desc(), true);
        e->dx.init(gm.src(), pd.diff_src_desc(), false);
        e->impl = pd.impl_info_str();
        return e;
    });
}

// `wide`: float32 weight and bias gradients (a batch chunk's, summed with the other chunks' before the
// one rounding to bf16), else bf16 ones.
BwdWei& bwd_wei_entry(const Geom& gm, bool bias, bool wide = false) {
    thread_local Cache<BwdWei> cache;
    return cached(cache, gm.key(wide ? 3 : 2, bias), [&] {
        auto e = std::make_unique<BwdWei>();
        const dt gt = wide ? dt::f32 : dt::bf16;
        const memory::desc b = bias ? memory::desc({gm.o}, gt, tag::x) : memory::desc();
        dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, Geom::any(gm.src()),
                                                   Geom::any(gm.wei(), gt), b, Geom::any(gm.dst()), gm.strides(),
                                                   gm.dilates(), gm.pad_l(), gm.pad_r());
        dnnl::convolution_backward_weights::primitive_desc pd(d, eng(), gm.fwd_pd(bias));
        e->prim = dnnl::convolution_backward_weights(pd);
        e->src.init(gm.src(), pd.src_desc(), true);
        e->dy.init(gm.dst(), pd.diff_dst_desc(), true);
        e->dw.init(wide ? gm.wei32() : gm.wei(), pd.diff_weights_desc(), false);
        e->impl = pd.impl_info_str();
        return e;
    });
}

void check4(const u16arr& a, const char* what) {
    if (a.ndim() != 4) throw std::invalid_argument(std::string("conv2d_bf16: ") + what + " must be 4-D (NCHW)");
}

py::array_t<uint16_t> zeros16(std::vector<int64_t> shape) {
    py::array_t<uint16_t> out(shape);
    std::fill(out.mutable_data(), out.mutable_data() + out.size(), uint16_t{0});
    return out;
}

void run_fwd(const Geom& gm, const uint16_t* x, const uint16_t* w, const uint16_t* b, uint16_t* y) {
    GemmTeam team(gm.macs());
    Fwd& e = fwd_entry(gm, b != nullptr);
    dnnl::stream s(eng());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.src.bind(x, s)},
                                         {DNNL_ARG_WEIGHTS, e.wei.bind(w, s)},
                                         {DNNL_ARG_DST, e.dst.bind(y, s)}};
    if (b) args[DNNL_ARG_BIAS] = memory({{gm.o}, dt::bf16, tag::x}, eng(), const_cast<uint16_t*>(b));
    e.prim.execute(s, args);
    e.dst.finish(y, s);
    s.wait();
}

void run_bwd_data(const Geom& gm, const uint16_t* dy, const uint16_t* w, uint16_t* dx) {
    GemmTeam team(gm.macs());
    BwdData& e = bwd_data_entry(gm);
    dnnl::stream s(eng());
    e.prim.execute(s, {{DNNL_ARG_DIFF_DST, e.dy.bind(dy, s)},
                       {DNNL_ARG_WEIGHTS, e.wei.bind(w, s)},
                       {DNNL_ARG_DIFF_SRC, e.dx.bind(dx, s)}});
    e.dx.finish(dx, s);
    s.wait();
}

// dw, db: uint16_t (bf16) or, for a batch chunk's partial gradients, float.
template <typename G>
void run_bwd_wei(const Geom& gm, const uint16_t* dy, const uint16_t* x, G* dw, G* db) {
    constexpr bool wide = std::is_same<G, float>::value;
    GemmTeam team(gm.macs());
    BwdWei& e = bwd_wei_entry(gm, db != nullptr, wide);
    dnnl::stream s(eng());
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.src.bind(x, s)},
                                         {DNNL_ARG_DIFF_DST, e.dy.bind(dy, s)},
                                         {DNNL_ARG_DIFF_WEIGHTS, e.dw.bind(dw, s)}};
    if (db) args[DNNL_ARG_DIFF_BIAS] = memory({{gm.o}, wide ? dt::f32 : dt::bf16, tag::x}, eng(), db);
    e.prim.execute(s, args);
    e.dw.finish(dw, s);
    s.wait();
}

py::array_t<uint16_t> conv2d_bf16_forward(u16arr x, u16arr w, std::optional<u16arr> b, Pair stride, Quad pad,
                                          Pair dilation, int64_t groups) {
    check4(x, "input");
    check4(w, "weight");
    const Geom gm = make_geom(x.shape(0), x.shape(1), x.shape(2), x.shape(3), w.shape(0), w.shape(2), w.shape(3),
                              stride, pad, dilation, groups);
    if (w.shape(1) * groups != gm.c) throw std::invalid_argument("conv2d_bf16: weight in-channels * groups != input channels");
    if (b && (b->ndim() != 1 || b->shape(0) != gm.o)) throw std::invalid_argument("conv2d_bf16: bias must be (out_channels,)");
    if (gm.n == 0 || gm.o == 0) return zeros16({gm.n, gm.o, gm.oh, gm.ow});
    py::array_t<uint16_t> y({gm.n, gm.o, gm.oh, gm.ow});
    const uint16_t *px = x.data(), *pw = w.data(), *pb = b ? b->data() : nullptr;
    uint16_t* py_ = y.mutable_data();
    {
        py::gil_scoped_release nogil;
        const BatchSplit bs = split_batch(gm.n, gm.macs(), true);
        if (bs.count == 1) {
            run_fwd(gm, px, pw, pb, py_);
        } else {
            over_chunks(gm, bs, [&](const Geom& g) { fwd_entry(g, pb != nullptr); },
                        [&](const Geom& g, int64_t lo, int64_t) {
                            run_fwd(g, px + lo * gm.c * gm.h * gm.w, pw, pb, py_ + lo * gm.o * gm.oh * gm.ow);
                        });
        }
    }
    return y;
}

py::array_t<uint16_t> conv2d_bf16_backward_data(u16arr dy, u16arr w, Quad input_shape, Pair stride, Quad pad,
                                                Pair dilation, int64_t groups) {
    check4(dy, "output gradient");
    check4(w, "weight");
    const Geom gm = make_geom(input_shape[0], input_shape[1], input_shape[2], input_shape[3], w.shape(0), w.shape(2),
                              w.shape(3), stride, pad, dilation, groups);
    if (w.shape(1) * groups != gm.c) throw std::invalid_argument("conv2d_bf16: weight in-channels * groups != input channels");
    if (dy.shape(0) != gm.n || dy.shape(1) != gm.o || dy.shape(2) != gm.oh || dy.shape(3) != gm.ow)
        throw std::invalid_argument("conv2d_bf16_backward_data: output gradient shape does not match the geometry");
    if (gm.n == 0 || gm.c == 0) return zeros16({gm.n, gm.c, gm.h, gm.w});
    py::array_t<uint16_t> dx({gm.n, gm.c, gm.h, gm.w});
    const uint16_t *pdy = dy.data(), *pw = w.data();
    uint16_t* pdx = dx.mutable_data();
    {
        py::gil_scoped_release nogil;
        const BatchSplit bs = split_batch(gm.n, gm.macs(), true);
        if (bs.count == 1) {
            run_bwd_data(gm, pdy, pw, pdx);
        } else {
            over_chunks(gm, bs, [&](const Geom& g) { bwd_data_entry(g); },
                        [&](const Geom& g, int64_t lo, int64_t) {
                            run_bwd_data(g, pdy + lo * gm.o * gm.oh * gm.ow, pw, pdx + lo * gm.c * gm.h * gm.w);
                        });
        }
    }
    return dx;
}

// (dw, db or None): with `with_bias` oneDNN sums dy per channel while it streams it for dw.
py::tuple conv2d_bf16_backward_weights(u16arr dy, u16arr x, Quad filter_shape, Pair stride, Quad pad, Pair dilation,
                                       int64_t groups, bool with_bias) {
    check4(dy, "output gradient");
    check4(x, "input");
    const Geom gm = make_geom(x.shape(0), x.shape(1), x.shape(2), x.shape(3), filter_shape[0], filter_shape[2],
                              filter_shape[3], stride, pad, dilation, groups);
    if (filter_shape[1] * groups != gm.c)
        throw std::invalid_argument("conv2d_bf16: weight in-channels * groups != input channels");
    if (dy.shape(0) != gm.n || dy.shape(1) != gm.o || dy.shape(2) != gm.oh || dy.shape(3) != gm.ow)
        throw std::invalid_argument("conv2d_bf16_backward_weights: output gradient shape does not match the geometry");
    std::vector<int64_t> fs(filter_shape.begin(), filter_shape.end());
    if (gm.n == 0) {
        py::object db = with_bias ? py::object(zeros16({gm.o})) : py::object(py::none());
        return py::make_tuple(zeros16(fs), db);
    }
    py::array_t<uint16_t> dw(fs);
    py::array_t<uint16_t> db(with_bias ? gm.o : 0);
    const uint16_t *pdy = dy.data(), *px = x.data();
    uint16_t *pdw = dw.mutable_data(), *pdb = with_bias ? db.mutable_data() : nullptr;
    {
        py::gil_scoped_release nogil;
        const BatchSplit bs = split_batch(gm.n, gm.macs(), true);
        if (bs.count == 1) {
            run_bwd_wei(gm, pdy, px, pdw, pdb);
        } else {
            // every chunk's float32 gradients, summed in chunk order, rounded once to bf16
            const int64_t nw = dw.size(), nb = with_bias ? gm.o : 0;
            float* dw32 = chunk_scratch(bs.count + 1, nw + nb);
            float* db32 = dw32 + bs.count * nw;
            over_chunks(gm, bs, [&](const Geom& g) { bwd_wei_entry(g, with_bias, true); },
                        [&](const Geom& g, int64_t lo, int64_t k) {
                            run_bwd_wei(g, pdy + lo * gm.o * gm.oh * gm.ow, px + lo * gm.c * gm.h * gm.w,
                                        dw32 + k * nw, with_bias ? db32 + k * nb : static_cast<float*>(nullptr));
                        });
            add_chunk_grads(dw32, dw32 + nw, bs.count, nw);
            narrow16(dw32, pdw, nw, true);
            if (with_bias) {
                add_chunk_grads(db32, db32 + nb, bs.count, nb);
                narrow16(db32, pdb, nb, true);
            }
        }
    }
    return py::make_tuple(dw, with_bias ? py::object(db) : py::object(py::none()));
}

py::dict conv2d_bf16_impl(Quad x_shape, Quad w_shape, Pair stride, Quad pad, Pair dilation, int64_t groups) {
    const Geom gm = make_geom(x_shape[0], x_shape[1], x_shape[2], x_shape[3], w_shape[0], w_shape[2], w_shape[3],
                              stride, pad, dilation, groups);
    GemmTeam team(gm.macs());
    py::dict d;
    d["forward"] = fwd_entry(gm, false).impl;
    d["backward_data"] = bwd_data_entry(gm).impl;
    d["backward_weights"] = bwd_wei_entry(gm, false).impl;
    return d;
}

// ---------------------------------------------------------------------------------------------
// ReLU on 16-bit float bit patterns (lowp16.h's relu_bits / relu_grad_bits over the array).
//
// body(lo, hi) over [0, n) under the grain rule (grain.h): elementwise, so the split changes no bit.
template <typename F>
void split(int64_t n, const F& body) {
    parallel_for(n, 2 * n, body);
}

py::array_t<uint16_t> relu16(u16arr x, bool bf16) {
    const uint16_t inf = bf16 ? 0x7f80 : 0x7c00;
    py::array_t<uint16_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    const uint16_t* s = x.data();
    uint16_t* d = out.mutable_data();
    const int64_t n = x.size();
    py::gil_scoped_release nogil;
    const auto body = [=](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) d[i] = relu_bits(s[i], inf);
    };
    split(n, body);
    return out;
}

py::array_t<uint16_t> relu_grad16(u16arr g, u16arr y, bool bf16) {
    if (g.ndim() != y.ndim() || g.size() != y.size()) throw std::invalid_argument("relu_grad16: shapes differ");
    const uint16_t inf = bf16 ? 0x7f80 : 0x7c00;
    const uint16_t qnan = bf16 ? 0xffc0 : 0xfe00;  // x86's default NaN for inf * 0, as NumPy gives
    py::array_t<uint16_t> out(std::vector<py::ssize_t>(g.shape(), g.shape() + g.ndim()));
    const uint16_t *pg = g.data(), *py_ = y.data();
    uint16_t* d = out.mutable_data();
    const int64_t n = g.size();
    py::gil_scoped_release nogil;
    const auto body = [=](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) d[i] = relu_grad_bits(py_[i], pg[i], inf, qnan);
    };
    split(n, body);
    return out;
}

// ---------------------------------------------------------------------------------------------
// float32 <-> bfloat16 / float16 conversions with the same bits as gemm.cpp's (round to nearest even,
// NaN kept quiet with its sign), but through `split`: those run an `omp parallel ... if(n >= grain)`
// region, and serialised (below 256K elements: every activation and most weights of the MLP and
// SimpleCNN) it converted ~5x slower than a plain loop. Mixed precision's casts call these
// (spore/amp/lowp.py `cast`).
using farr_ = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::vector<py::ssize_t> shape_of(const py::array& a) { return {a.shape(), a.shape() + a.ndim()}; }

// The four casts are lowp16.h's widen16 / narrow16 run over the team's chunks, so every 16-bit kernel
// rounds with one piece of code.
py::array_t<uint16_t> narrow(farr_ x, bool bf16) {
    py::array_t<uint16_t> out(shape_of(x));
    const float* src = x.data();
    uint16_t* dst = out.mutable_data();
    py::gil_scoped_release nogil;
    split(x.size(), [=](int64_t lo, int64_t hi) { lowp16::narrow16(src + lo, dst + lo, hi - lo, bf16); });
    return out;
}

py::array_t<float> widen(u16arr x, bool bf16) {
    py::array_t<float> out(shape_of(x));
    const uint16_t* src = x.data();
    float* dst = out.mutable_data();
    py::gil_scoped_release nogil;
    split(x.size(), [=](int64_t lo, int64_t hi) { lowp16::widen16(src + lo, dst + lo, hi - lo, bf16); });
    return out;
}

py::array_t<uint16_t> cvt_f32_to_bf16(farr_ x) { return narrow(x, true); }
py::array_t<float> cvt_bf16_to_f32(u16arr x) { return widen(x, true); }
py::array_t<uint16_t> cvt_f32_to_f16(farr_ x) { return narrow(x, false); }
py::array_t<float> cvt_f16_to_f32(u16arr x) { return widen(x, false); }

// The fused 16-bit kernels below use lowp16.h's widen16 / narrow16 (the bits of the cvt_* kernels).

// a + b for 16-bit arrays of one format: b has a's shape, or is one row (b.size == a's last dimension)
// added to every row of a (a bias). float32 sum of the widened values, rounded once.
py::array_t<uint16_t> add16(u16arr a, u16arr b, bool bf16) {
    const int64_t n = a.size(), nb = b.size();
    const int64_t row = a.ndim() ? a.shape(a.ndim() - 1) : 1;
    const bool same = nb == n && a.ndim() == b.ndim();
    if (same) {
        for (py::ssize_t d = 0; d < a.ndim(); ++d)
            if (a.shape(d) != b.shape(d)) throw std::invalid_argument("add16: shapes differ");
    } else if (b.ndim() != 1 || nb != row || row == 0) {
        throw std::invalid_argument("add16: b must have a's shape or be one row of a's last dimension");
    }
    py::array_t<uint16_t> out(shape_of(a));
    const uint16_t *pa = a.data(), *pb = b.data();
    uint16_t* po = out.mutable_data();
    py::gil_scoped_release nogil;
    if (same) {
        split(n, [=](int64_t lo, int64_t hi) {
            alignas(64) float x[kRun], y[kRun];
            for (int64_t i = lo; i < hi; i += kRun) {
                const int64_t m = std::min(kRun, hi - i);
                widen16(pa + i, x, m, bf16);
                widen16(pb + i, y, m, bf16);
#pragma omp simd
                for (int64_t j = 0; j < m; ++j) x[j] = add_first_nan(x[j], y[j]);
                narrow16(x, po + i, m, bf16);
            }
        });
        return out;
    }
    std::vector<float> bias(static_cast<size_t>(row));
    widen16(pb, bias.data(), row, bf16);
    const float* pbias = bias.data();
    const int64_t rows = n / row;
    parallel_for(rows, 3 * n, [=](int64_t r0, int64_t r1) {
        alignas(64) float x[kRun];
        for (int64_t r = r0; r < r1; ++r)
            for (int64_t c = 0; c < row; c += kRun) {
                const int64_t m = std::min(kRun, row - c), at = r * row + c;
                widen16(pa + at, x, m, bf16);
#pragma omp simd
                for (int64_t j = 0; j < m; ++j) x[j] = add_first_nan(x[j], pbias[c + j]);
                narrow16(x, po + at, m, bf16);
            }
    });
    return out;
}

// Column sums of a 16-bit (m, n) matrix: float32, rows added in order (dense.cpp's column_sums on the
// widened matrix, NumPy's axis-0 order), rounded once; `widen_out` returns the float32 of the rounded
// sums instead (what a cast back to a float32 master gradient gives).
py::array bias_grad16(u16arr g, bool bf16, bool widen_out) {
    if (g.ndim() != 2) throw std::invalid_argument("bias_grad16: a matrix expected");
    const int64_t m = g.shape(0), n = g.shape(1);
    py::array_t<uint16_t> db(n);
    py::array_t<float> wide(widen_out ? n : 0);
    const uint16_t* pg = g.data();
    uint16_t* pdb = db.mutable_data();
    float* pw = widen_out ? wide.mutable_data() : nullptr;
    {
        py::gil_scoped_release nogil;
        std::vector<float> acc(static_cast<size_t>(n), 0.0f);
        alignas(64) float x[kRun];
        for (int64_t c = 0; c < n; c += kRun) {
            const int64_t w = std::min(kRun, n - c);
            float* a = acc.data() + c;
            for (int64_t i = 0; i < m; ++i) {
                widen16(pg + i * n + c, x, w, bf16);
#pragma omp simd
                for (int64_t j = 0; j < w; ++j) a[j] += x[j];
            }
        }
        narrow16(acc.data(), pdb, n, bf16);
        if (pw) widen16(pdb, pw, n, bf16);
    }
    if (widen_out) return wide;
    return db;
}

// ---------------------------------------------------------------------------------------------
// Epilogues of a float32 GEMM whose result O2 stores in 16 bits (float16, and bfloat16 without bf16
// GEMMs: spore/amp/lowp.py and ops/linalg.py's AmpDense). Each fuses what the plain path does in
// separate passes, with its bits.

// c = float32(round16(c)) in place: a weight gradient's GEMM result stored in 16 bits and cast back
// to its float32 master gradient, without the 16-bit array. `c` must be writeable and C-contiguous.
void round16_inplace(py::array_t<float> c, bool bf16) {
    if (!(c.flags() & py::array::c_style)) throw std::invalid_argument("round16_inplace: C-contiguous expected");
    float* pc = c.mutable_data();  // throws for a read-only array
    py::gil_scoped_release nogil;
    parallel_for(c.size(), 2 * c.size(), [=](int64_t lo, int64_t hi) { lowp16::round16(pc + lo, hi - lo, bf16); });
}

// round16(float32(round16(c)) + float32(b)) for a float32 (rows, n) GEMM result c and a 16-bit bias
// row b: the GEMM's rounding and add16's bias add in one pass, without the intermediate array; with
// `relu`, relu16's max(., 0) of that too (a fused Dense + ReLU).
py::array_t<uint16_t> round_add16(py::array_t<float, py::array::c_style | py::array::forcecast> c, u16arr b,
                                  bool bf16, bool relu) {
    const int64_t n = c.size(), row = c.ndim() ? c.shape(c.ndim() - 1) : 1;
    if (b.ndim() != 1 || b.size() != row || row == 0)
        throw std::invalid_argument("round_add16: b must be one row of c's last dimension");
    py::array_t<uint16_t> out(shape_of(c));
    const float* pc = c.data();
    uint16_t* po = out.mutable_data();
    std::vector<float> bias(static_cast<size_t>(row));
    widen16(b.data(), bias.data(), row, bf16);
    const float* pbias = bias.data();
    const uint16_t inf = bf16 ? 0x7f80 : 0x7c00;
    py::gil_scoped_release nogil;
    parallel_for(n / row, 3 * n, [=](int64_t r0, int64_t r1) {
        alignas(64) float x[kRun];
        alignas(64) uint16_t h[kRun];
        for (int64_t r = r0; r < r1; ++r)
            for (int64_t col = 0; col < row; col += kRun) {
                const int64_t m = std::min(kRun, row - col), at = r * row + col;
                narrow16(pc + at, h, m, bf16);
                widen16(h, x, m, bf16);
#pragma omp simd
                for (int64_t j = 0; j < m; ++j) x[j] = add_first_nan(x[j], pbias[col + j]);
                narrow16(x, po + at, m, bf16);
                if (relu)
                    for (int64_t j = 0; j < m; ++j) po[at + j] = relu_bits(po[at + j], inf);
            }
    });
    return out;
}

// ---------------------------------------------------------------------------------------------
// A Dense layer's whole backward in float16 / bfloat16 computed in float32 (O2-fp16, and O2-bf16
// without bf16 GEMMs): one call where mixed precision's backward (ops/linalg.py AmpDenseGrad, Graph
// mode's DenseBackward) made four to six - the ReLU mask, the bias gradient, two 16-bit GEMMs that
// each widened the masked gradient again, the roundings back to the float32 master gradients - with
// their bits:
//   r  = relu_grad16(g, y) (or g), widened once;
//   db = column sums of r in float32, rows in order (bias_grad16), rounded to 16 bits;
//   dw = r^T @ x as sgemm16 computes it (the same team_sgemm call on the same float32 values and
//        leading dimensions), rounded to 16 bits;
//   dx = r @ w likewise (only when w is given: the first layer needs no dx), rounded to 16 bits.
// `wide_w` / `wide_b` return dw / db as the float32 values of their rounding (the cast back to a
// float32 master gradient, as round16_inplace and bias_grad16's widen_out). x and w may be given as
// their float32 values (lowp.py's twins: exact widenings) instead of 16-bit bits.

// `a`'s float32 values: its own data (float32), or widened into `scratch` (16-bit bits).
const float* wide_operand(const py::array& a, float* scratch, farr_& keep, bool bf16) {
    if (py::isinstance<py::array_t<float>>(a)) {
        keep = py::cast<farr_>(a);
        return keep.data();
    }
    u16arr h = py::cast<u16arr>(a);
    const uint16_t* src = h.data();
    split(h.size(), [=](int64_t lo, int64_t hi) { widen16(src + lo, scratch + lo, hi - lo, bf16); });
    return scratch;
}

bool is_f32(const py::array& a) { return py::isinstance<py::array_t<float>>(a); }

py::tuple dense_backward16(u16arr g, const py::array& x, const py::object& w_obj, const py::object& y_obj,
                           bool bf16, bool want_dw, bool want_db, bool wide_w, bool wide_b) {
    if (g.ndim() != 2 || x.ndim() != 2 || g.shape(0) != x.shape(0))
        throw std::invalid_argument("dense_backward16: expected g (N, O) and x (N, I)");
    const dnnl_dim_t n = g.shape(0), o = g.shape(1), i = x.shape(1);
    const bool relu = !y_obj.is_none(), want_dx = !w_obj.is_none();
    u16arr y = relu ? py::cast<u16arr>(y_obj) : u16arr();
    py::array w = want_dx ? py::cast<py::array>(w_obj) : py::array();
    if (relu && (y.ndim() != 2 || y.shape(0) != n || y.shape(1) != o))
        throw std::invalid_argument("dense_backward16: y must have the shape of g");
    if (want_dx && (w.ndim() != 2 || w.shape(0) != o || w.shape(1) != i))
        throw std::invalid_argument("dense_backward16: w must be (O, I) for g (N, O) and x (N, I)");
    if (n == 0 || o == 0 || i == 0) throw std::invalid_argument("dense_backward16: empty operands");
    py::object dx = py::none(), dw = py::none(), db = py::none();
    uint16_t *pdx = nullptr, *pdw16 = nullptr, *pdb16 = nullptr;
    float *pdw32 = nullptr, *pdb32 = nullptr;
    if (want_dx) {
        py::array_t<uint16_t> a({n, i});
        pdx = a.mutable_data();
        dx = a;
    }
    if (want_dw && wide_w) {
        py::array_t<float> a({o, i});
        pdw32 = a.mutable_data();
        dw = a;
    } else if (want_dw) {
        py::array_t<uint16_t> a({o, i});
        pdw16 = a.mutable_data();
        dw = a;
    }
    if (want_db && wide_b) {
        py::array_t<float> a(o);
        pdb32 = a.mutable_data();
        db = a;
    } else if (want_db) {
        py::array_t<uint16_t> a(o);
        pdb16 = a.mutable_data();
        db = a;
    }
    // scratch: r (n*o), x's and w's widenings, and the float32 products rounded into 16-bit outputs
    const int64_t nr = n * o, nx = (want_dw && !is_f32(x)) ? n * i : 0, nw = (want_dx && !is_f32(w)) ? o * i : 0;
    const int64_t ndw = pdw16 ? o * i : 0, ndx = want_dx ? n * i : 0;
    std::unique_ptr<float[]> own;
    float* r = widen_scratch(nr + nx + nw + ndw + ndx, own);
    farr_ keep_x, keep_w;
    const float* px = want_dw ? wide_operand(x, r + nr, keep_x, bf16) : nullptr;
    const float* pw = want_dx ? wide_operand(w, r + nr + nx, keep_w, bf16) : nullptr;
    float* dw32 = pdw32 ? pdw32 : r + nr + nx + nw;
    float* dx32 = r + nr + nx + nw + ndw;
    const uint16_t *pg = g.data(), *py_ = relu ? y.data() : nullptr;
    dnnl_status_t st = dnnl_success;
    {
        py::gil_scoped_release nogil;
        const uint16_t inf = bf16 ? 0x7f80 : 0x7c00, qnan = bf16 ? 0xffc0 : 0xfe00;
        split(nr, [=](int64_t lo, int64_t hi) {
            if (!py_) {
                widen16(pg + lo, r + lo, hi - lo, bf16);
                return;
            }
            alignas(64) uint16_t m[kRun];
            for (int64_t k = lo; k < hi; k += kRun) {
                const int64_t len = std::min(kRun, hi - k);
                for (int64_t j = 0; j < len; ++j) m[j] = relu_grad_bits(py_[k + j], pg[k + j], inf, qnan);
                widen16(m, r + k, len, bf16);
            }
        });
        if (want_db) {
            std::vector<float> acc(static_cast<size_t>(o));
            float* a = acc.data();
            column_sums(r, n, o, a);  // bias_grad16's order: rows in order, per column
            alignas(64) uint16_t h[kRun];
            for (dnnl_dim_t c = 0; c < o; c += kRun) {
                const int64_t len = std::min<int64_t>(kRun, o - c);
                uint16_t* dst = pdb16 ? pdb16 + c : h;
                narrow16(a + c, dst, len, bf16);
                if (pdb32) widen16(dst, pdb32 + c, len, bf16);
            }
        }
        if (want_dw) {
            st = team_sgemm('T', 'N', o, i, n, 1.0f, r, o, px, i, 0.0f, dw32, i);
            split(o * i, [=](int64_t lo, int64_t hi) {
                if (pdw16)
                    narrow16(dw32 + lo, pdw16 + lo, hi - lo, bf16);
                else
                    lowp16::round16(dw32 + lo, hi - lo, bf16);
            });
        }
        if (want_dx && st == dnnl_success) {
            st = team_sgemm('N', 'N', n, i, o, 1.0f, r, o, pw, i, 0.0f, dx32, i);
            split(n * i, [=](int64_t lo, int64_t hi) { narrow16(dx32 + lo, pdx + lo, hi - lo, bf16); });
        }
    }
    if (st != dnnl_success) throw std::runtime_error("dense_backward16: oneDNN sgemm failed");
    return py::make_tuple(dx, dw, db);
}
}  // namespace

void register_lowp(py::module_& m) {
    m.def("cvt_f32_to_bf16", &cvt_f32_to_bf16, py::arg("x"), "bfloat16 bits of float32 values (nearest even)");
    m.def("cvt_bf16_to_f32", &cvt_bf16_to_f32, py::arg("x"), "float32 values of bfloat16 bits (exact)");
    m.def("cvt_f32_to_f16", &cvt_f32_to_f16, py::arg("x"), "float16 bits of float32 values (F16C, nearest even)");
    m.def("cvt_f16_to_f32", &cvt_f16_to_f32, py::arg("x"), "float32 values of float16 bits (exact)");
    m.def("conv2d_bf16_forward", &conv2d_bf16_forward, py::arg("x"), py::arg("w"), py::arg("b"), py::arg("stride"),
          py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          "bf16 conv2d (uint16 bit patterns, NCHW/OIHW, optional bf16 bias) via oneDNN, fp32 accumulation, bf16 out");
    m.def("conv2d_bf16_backward_data", &conv2d_bf16_backward_data, py::arg("dy"), py::arg("w"),
          py::arg("input_shape"), py::arg("stride"), py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          "bf16 gradient of conv2d with respect to its input (oneDNN, fp32 accumulation)");
    m.def("conv2d_bf16_backward_weights", &conv2d_bf16_backward_weights, py::arg("dy"), py::arg("x"),
          py::arg("filter_shape"), py::arg("stride"), py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          py::arg("with_bias") = false,
          "(dw, db or None) in bf16: gradient of conv2d with respect to its weight (and bias), oneDNN");
    m.def("conv2d_bf16_impl", &conv2d_bf16_impl, py::arg("x_shape"), py::arg("w_shape"), py::arg("stride"),
          py::arg("pad"), py::arg("dilation"), py::arg("groups"),
          "oneDNN's implementation names of the three bf16 conv primitives for a geometry");
    m.def("add16", &add16, py::arg("a"), py::arg("b"), py::arg("bf16"),
          "a + b on float16/bfloat16 bits (b: a's shape or one row), float32 sum rounded once, one pass");
    m.def("bias_grad16", &bias_grad16, py::arg("g"), py::arg("bf16"), py::arg("widen_out") = false,
          "column sums of a float16/bfloat16 (m, n) matrix in float32, rows in order, rounded once (widen_out:\n"
          "the float32 values of the rounded sums)");
    m.def("round16_inplace", &round16_inplace, py::arg("c"), py::arg("bf16"),
          "c = float32(round to float16/bfloat16 (c)) in place (a 16-bit GEMM result cast back to float32)");
    m.def("round_add16", &round_add16, py::arg("c"), py::arg("b"), py::arg("bf16"), py::arg("relu") = false,
          "round16(round16(c) + b): a float32 GEMM result rounded to 16 bits plus a 16-bit bias row, one pass "
          "(relu: and max(., 0) as relu16)");
    m.def("dense_backward16", &dense_backward16, py::arg("g"), py::arg("x"), py::arg("w"), py::arg("y"),
          py::arg("bf16"), py::arg("want_dw") = true, py::arg("want_db") = true, py::arg("wide_w") = false,
          py::arg("wide_b") = false,
          "(dx or None, dw or None, db or None) of a 16-bit Dense layer [ReLU](x @ w.T + b) from dL/dy in float32:\n"
          "w None: no dx; y None: no ReLU; x, w: 16-bit bits or their float32 values; wide_*: float32 results");
    m.def("relu16", &relu16, py::arg("x"), py::arg("bf16"),
          "max(x, 0) on float16 (bf16=False) or bfloat16 bit patterns, NaN kept");
    m.def("relu_grad16", &relu_grad16, py::arg("g"), py::arg("y"), py::arg("bf16"),
          "g * (y > 0) on float16/bfloat16 bit patterns, as NumPy's multiply by the mask");
}

}  // namespace spore
