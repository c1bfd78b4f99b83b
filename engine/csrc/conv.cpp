// 2-D convolution (float32, NCHW): forward (bias fused), backward-data and backward-weights, with
// stride, dilation, groups and asymmetric padding (top, bottom, left, right).
//
// Each primitive (forward, backward-data, backward-weights) of a geometry runs on one of three paths:
//   plain   - oneDNN on the caller's NCHW / OIHW arrays (its im2col+gemm kernels),
//   blocked - oneDNN picks every layout (`any`: nChw8c on AVX2, nChw16c on AVX-512, ...) and we
//             reorder at the edges; its jit kernels are the fast ones once both sides have >= ~6
//             channels,
//   direct  - Spore's own loops (below; unit-stride columns only), vectorised along the output row,
//             reading and writing NCHW directly. They are for the few-channel layers oneDNN handles
//             badly: it pads a 1-channel input to a whole channel block, so LeNet's first-layer weight
//             gradient ran 8x the useful work (blocked 2.1 ms, gemm 1.8 ms, direct 0.3 ms; 1 thread,
//             AMD EPYC AVX2), and each blocked NCHW output pays a reorder (a fifth of LeNet conv1's
//             forward).
//
// Which path is fastest depends on the machine (block width, cache sizes, gemm kernels) as much as
// on the shape: the previous fixed rule, measured on an AVX-512 machine, ran LeNet conv1's weight
// gradient blocked here, slower than plain. So the default policy (auto) times the candidates once
// per geometry, like cuDNN's benchmark mode: when a geometry's primitive is first needed, each
// applicable path is built and run on scratch buffers, interleaved, and the fastest (minimum over
// rounds) is kept - timed on one thread, for the reasons at `choose`. The choice is recorded
// process-wide per (primitive, geometry, thread count), so every later call - from any Python thread,
// and after the entry cache below starts over - runs the same path: results inside a process are
// reproducible bit for bit. Across processes the choice can differ where two paths time within noise;
// the paths compute the same float32 sums in different orders, so they agree to float32 rounding
// (tests hold each to rtol 1e-4 of a float64 reference). Forcing a path (`conv_set_layout`) removes
// that freedom: 0 = plain, 1 = blocked, 2 = auto (default), 3 = direct where it applies, else plain.
// `conv2d_impl_info` reports each primitive's path and, under auto, the times it was chosen on.
//
// The primitive descriptor, the primitive and the reorders it needs are built once per geometry and
// kept in a per-thread cache (creating them costs far more than running them on the small shapes Spore
// trains). The cache is thread_local so that two Python threads, both running with the GIL released,
// never share the scratch buffers of one entry. `conv2d_backward` shares the reorder of dy between the
// two gradient primitives when both are blocked in the same layout.
#include <dnnl.hpp>
#include <omp.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "batch_chunks.h"
#include "grain.h"
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

// The policy switch (values of conv_set_layout) and the paths a primitive can run on.
enum Policy { kPolicyPlain = 0, kPolicyBlocked = 1, kPolicyAuto = 2, kPolicyDirect = 3 };
enum Path { kPlain = 0, kBlocked = 1, kDirect = 2 };
std::atomic<int> g_layout{kPolicyAuto};

const char* path_name(int p) { return p == kPlain ? "plain" : p == kBlocked ? "blocked" : "direct"; }

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

    // Whether the direct loops handle the primitive of `kind` (0 fwd, 1 bwd-data, 2 bwd-weights): they
    // vectorise along an output row, so its input reads must be unit-stride; the input gradient runs as
    // a forward convolution of dy with the flipped weight, which needs stride 1 and padding no wider
    // than the dilated kernel (wider, and that convolution would need negative padding).
    bool direct_ok(int kind) const {
        if (kind != 1) return sw == 1;
        return sh == 1 && sw == 1 && pt <= dh * (kh - 1) && pb <= dh * (kh - 1) && pl <= dw * (kw - 1) &&
               pr <= dw * (kw - 1);
    }

    // Cache and tuning key. The thread count is part of it: oneDNN sizes a primitive's work split for
    // the threads at creation, and the auto policy's choice allows for how each path splits (`choose`).
    std::vector<int64_t> key(int kind, int flag) const {
        return {kind, flag, omp_get_max_threads(), n, c, h, w, o, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, g};
    }

    memory::desc user_src() const { return {{n, c, h, w}, kF32, tag::nchw}; }
    memory::desc user_dst() const { return {{n, o, oh, ow}, kF32, tag::nchw}; }
    memory::desc user_wei() const {
        return g == 1 ? memory::desc({o, c, kh, kw}, kF32, tag::oihw)
                      : memory::desc({g, o / g, c / g, kh, kw}, kF32, tag::goihw);
    }
    // What the primitive is asked for: the user's layout, or `any` to let oneDNN choose.
    static memory::desc want(const memory::desc& user, bool blocked) {
        return blocked ? memory::desc(user.dims(), kF32, tag::any) : user;
    }
    memory::dims strides() const { return {sh, sw}; }
    memory::dims dilates() const { return {dh - 1, dw - 1}; }  // oneDNN counts dilation from 0
    memory::dims pad_l() const { return {pt, pl}; }
    memory::dims pad_r() const { return {pb, pr}; }

    // The forward descriptor; backward primitives need it (built with their own layout policy) as a hint.
    dnnl::convolution_forward::primitive_desc fwd_pd(bool bias, bool blocked) const {
        const memory::desc bias_md = bias ? memory::desc({o}, kF32, tag::x) : memory::desc();
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                          want(user_src(), blocked), want(user_wei(), blocked), bias_md,
                                          want(user_dst(), blocked), strides(), dilates(), pad_l(), pad_r());
        return {d, cpu_engine()};
    }

    // The input gradient of a stride-1 convolution is a forward convolution of dy (o channels) with
    // the weight flipped in space and transposed per group, padded by the dilated kernel minus the
    // original padding: dx[r] = sum_a w[a] dy[r + pt - a*dh]. Only valid where direct_ok(1).
    Geom transposed() const {
        return Geom(n, o, oh, ow, c, kh, kw, {1, 1},
                    {dh * (kh - 1) - pt, dh * (kh - 1) - pb, dw * (kw - 1) - pl, dw * (kw - 1) - pr}, {dh, dw}, g);
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

// ----------------------------------------------------------------------------------------------
// The direct loops.
//
// Vectors of 8 floats in GCC/Clang's generic vector extension: the compiler lowers them to whatever
// -march offers (one AVX2 register, two SSE ones, half an AVX-512 one) and contracts a*b+c into FMA.
// Each kernel keeps a tile of accumulators in registers - (output channels) x (vectors along the
// row) for the forward, (output channels) x (kernel columns) for the weight gradient - so each load
// of the input row feeds several FMAs. Tiles hold at most ~12 accumulators: 16 vector registers on
// AVX2, minus the operands.
constexpr int kV = 8;
using vf = float __attribute__((vector_size(kV * sizeof(float))));
using vi = int32_t __attribute__((vector_size(kV * sizeof(int32_t))));  // lane masks

inline vf loadu(const float* p) {
    vf v;
    std::memcpy(&v, p, sizeof v);  // an unaligned vector load
    return v;
}
inline void storeu(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
static_assert(kV == 8, "splat spells out the lanes");
inline vf splat(float s) { return vf{s, s, s, s, s, s, s, s}; }  // (vf{} + s would add, for -0.0)
// Pins a loaded vector to a register. Without it GCC folds the load into every FMA that uses the
// value (a memory operand is "free" in its cost model), so a vector shared by k FMAs is loaded k times:
// the weight-gradient tile ran load-bound at 12 loads per 10 FMAs (LeNet conv1 0.40 ms, 0.31 ms with).
inline void keep(vf& v) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    asm("" : "+x"(v));
#else
    (void)v;
#endif
}

inline int64_t round_up(int64_t a, int64_t m) { return (a + m - 1) / m * m; }

// Per-OpenMP-thread scratch of the direct kernels. A padded image's border (and the zero tail of a
// padded dy row) is zeroed when the buffer is first sized and never written after - the geometry,
// hence which cells are interior, is fixed per entry - so each call only copies the interior.
struct Scratch {
    std::vector<std::vector<float>> bufs;
    std::vector<std::vector<vf>> vsums;    // weight gradient: per-weight vector partial sums
    std::vector<std::vector<double>> sums;  // bias gradient

    void prepare() {
        const size_t t = static_cast<size_t>(omp_get_max_threads());
        if (bufs.size() < t) bufs.resize(t), vsums.resize(t), sums.resize(t);
    }
    // A zeroed buffer of `size` floats for the calling thread (inside the parallel region), 64-byte
    // aligned so that rows whose length is a multiple of kV start vector-aligned.
    float* buf(size_t size) {
        auto& v = bufs[static_cast<size_t>(omp_get_thread_num())];
        if (v.size() < size + 16) v.assign(size + 16, 0.0f);
        const auto addr = reinterpret_cast<uintptr_t>(v.data());
        return v.data() + ((64 - addr % 64) % 64) / sizeof(float);
    }
};

// Where an image of `gm` lives once padded: rows of `xs` floats, wide enough for the last vector of
// an output row to read whole vectors ((ow rounded up to kV) + the dilated kernel) without leaving
// the buffer; the extra columns stay zero.
struct PadShape {
    int64_t hp, xs, plane;
    explicit PadShape(const Geom& gm)
        : hp(gm.pt + gm.h + gm.pb),
          xs(round_up(std::max(gm.pl + gm.w + gm.pr, round_up(gm.ow, kV) + (gm.kw - 1) * gm.dw), kV)),
          plane(hp * xs) {}
};

// Copies one row inline: the rows are short (28 floats in LeNet), and a memcpy call per row took
// ~15% of the direct weight gradient's profile.
inline void copy_row(float* dst, const float* src, int64_t len) {
    int64_t j = 0;
    for (; j + kV <= len; j += kV) storeu(dst + j, loadu(src + j));
    for (; j < len; ++j) dst[j] = src[j];
}

void pad_image(const Geom& gm, const PadShape& ps, const float* x, float* xp) {
    for (int64_t ci = 0; ci < gm.c; ++ci)
        for (int64_t r = 0; r < gm.h; ++r)
            copy_row(xp + ci * ps.plane + (r + gm.pt) * ps.xs + gm.pl, x + (ci * gm.h + r) * gm.w, gm.w);
}

// Forward tile: OB output channels x JV vectors of one output row, starting at column j0 (x, w, y
// already offset there). `nj` is how many of the JV*kV columns exist; the rest are computed (from
// padding, or from the row's next pixels) and not stored. The kernel taps (input channel, row,
// column) run as one loop over `ntap` precomputed input offsets - the weight of a tap is contiguous
// in that order - rather than three nested ones of 3-5 iterations each. Per tap the smaller operand
// set (JV input vectors or OB broadcast weights) is loaded and held, the other streamed: OB*JV
// accumulators + min(OB, JV) + 1 registers, OB + JV loads per OB*JV FMAs.
template <int OB, int JV>
void fwd_tile(const float* x, const int64_t* xoff, int64_t ntap, const float* w, int64_t wo, const float* bias,
              float* y, int64_t yo, int64_t nj) {
    vf acc[OB][JV];
    for (int ob = 0; ob < OB; ++ob)
        for (int jv = 0; jv < JV; ++jv) acc[ob][jv] = splat(bias ? bias[ob] : 0.0f);
    for (int64_t t = 0; t < ntap; ++t) {
        const float* r = x + xoff[t];
        if constexpr (OB < JV) {
            vf wv[OB];
            for (int ob = 0; ob < OB; ++ob) wv[ob] = splat(w[ob * wo + t]);
            for (int jv = 0; jv < JV; ++jv) {
                vf xv = loadu(r + jv * kV);
                keep(xv);
                for (int ob = 0; ob < OB; ++ob) acc[ob][jv] += wv[ob] * xv;
            }
        } else {
            vf xv[JV];
            for (int jv = 0; jv < JV; ++jv) {
                xv[jv] = loadu(r + jv * kV);
                keep(xv[jv]);
            }
            for (int ob = 0; ob < OB; ++ob) {
                const vf wv = splat(w[ob * wo + t]);
                for (int jv = 0; jv < JV; ++jv) acc[ob][jv] += wv * xv[jv];
            }
        }
    }
    for (int ob = 0; ob < OB; ++ob)
        for (int jv = 0; jv < JV; ++jv) {
            const int64_t j = jv * kV;
            if (j + kV <= nj) {
                storeu(y + ob * yo + j, acc[ob][jv]);
            } else if (j < nj) {
                float tmp[kV];
                storeu(tmp, acc[ob][jv]);
                std::memcpy(y + ob * yo + j, tmp, sizeof(float) * (nj - j));
            }
        }
}

// Runs fwd_tile with OB = `ob` (1..MAXOB), the compile-time tile size the remainder of a channel
// block needs.
template <int JV, int MAXOB, class... A>
void fwd_tile_n(int ob, A... a) {
    if constexpr (MAXOB > 1) {
        if (ob < MAXOB) return fwd_tile_n<JV, MAXOB - 1>(ob, a...);
    }
    fwd_tile<MAXOB, JV>(a...);
}

// Tile shapes: with >= 4 output channels per group tiles are 2 vectors (16 columns) x 6 channels, 12
// accumulators + 2 inputs + 1 weight in AVX2's 16 registers; with 1-3 channels, 4 vectors x 1-3
// channels, so the few weights still feed enough FMAs per input load. (A 3x4 or 4x3 tile for many
// channels spills: the compiler then re-loads every input vector once per channel, 15 loads per 12
// FMAs, load-bound: LeNet conv1 0.45 ms vs 0.33 ms.)
constexpr int fwd_ob(int jv) { return jv == 1 ? 8 : jv == 2 ? 6 : 3; }
inline int fwd_jv(int64_t og) { return og <= 3 ? 4 : 2; }

// fwd_tile for a runtime (jv, ob), ob <= fwd_ob(jv).
template <class... A>
void fwd_tile_any(int jv, int ob, A... a) {
    switch (jv) {
        case 1: return fwd_tile_n<1, fwd_ob(1)>(ob, a...);
        case 2: return fwd_tile_n<2, fwd_ob(2)>(ob, a...);
        case 3: return fwd_tile_n<3, fwd_ob(3)>(ob, a...);
        default: return fwd_tile_n<4, fwd_ob(4)>(ob, a...);
    }
}

// y = conv(x, w) + b for sw == 1; the threads split the batch.
void direct_forward(const Geom& gm, const float* x, const float* w, const float* bias, float* y, Scratch& sc) {
    const PadShape ps(gm);
    const int64_t cg = gm.c / gm.g, og = gm.o / gm.g, ksz = cg * gm.kh * gm.kw, oplane = gm.oh * gm.ow;
    const int64_t jv_full = std::min<int64_t>(fwd_jv(og), (gm.ow + kV - 1) / kV);  // vectors per full tile
    std::vector<int64_t> xoff;  // per tap (ci, a, b), in the weight's order: where it reads the padded image
    xoff.reserve(static_cast<size_t>(ksz));
    for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t a = 0; a < gm.kh; ++a)
            for (int64_t b = 0; b < gm.kw; ++b) xoff.push_back(ci * ps.plane + a * gm.dh * ps.xs + b * gm.dw);
    sc.prepare();
#pragma omp parallel
    {
        float* xp = sc.buf(static_cast<size_t>(gm.c * ps.plane));
#pragma omp for schedule(static)
        for (int64_t n = 0; n < gm.n; ++n) {
            pad_image(gm, ps, x + n * gm.c * gm.h * gm.w, xp);
            for (int64_t gi = 0; gi < gm.g; ++gi) {
                const float* xg = xp + gi * cg * ps.plane;
                for (int64_t j0 = 0; j0 < gm.ow; j0 += kV * jv_full) {
                    const int64_t nj = std::min(gm.ow - j0, kV * jv_full);
                    const int jv = static_cast<int>((nj + kV - 1) / kV);
                    const int maxob = fwd_ob(jv);
                    for (int64_t o0 = gi * og; o0 < (gi + 1) * og; o0 += maxob) {
                        const int ob = static_cast<int>(std::min<int64_t>(maxob, (gi + 1) * og - o0));
                        const float* wo = w + o0 * ksz;
                        const float* bo = bias ? bias + o0 : nullptr;
                        for (int64_t i = 0; i < gm.oh; ++i)
                            fwd_tile_any(jv, ob, xg + i * gm.sh * ps.xs + j0, xoff.data(), ksz, wo, ksz, bo,
                                         y + (n * gm.o + o0) * oplane + i * gm.ow + j0, oplane, nj);
                    }
                }
            }
        }
    }
}

// The weight of the transposed geometry (`Geom::transposed`): wt[g][ci][oi][a][b] = w[g][oi][ci][kh-1-a][kw-1-b].
void flip_weight(const Geom& gm, const float* w, float* wt) {
    const int64_t cg = gm.c / gm.g, og = gm.o / gm.g, kk = gm.kh * gm.kw;
    for (int64_t gi = 0; gi < gm.g; ++gi)
        for (int64_t oi = 0; oi < og; ++oi)
            for (int64_t ci = 0; ci < cg; ++ci) {
                const float* src = w + ((gi * og + oi) * cg + ci) * kk;
                float* dst = wt + ((gi * cg + ci) * og + oi) * kk;
                for (int64_t k = 0; k < kk; ++k) dst[k] = src[kk - 1 - k];
            }
}

// Weight-gradient tile: OB output channels x BB kernel columns (from b0) of one (input channel, kernel
// row) pair, summed over one image. dy rows are copies padded to whole vectors with zeros; in the last,
// partial vector of a row the x lanes past the row are masked to zero too, so that an inf or NaN in
// x where no output reads it (for this tap) cannot turn 0 * x into NaN. Adds the accumulators into
// `out` (the thread's vector partial sums, at (o0, ci, a, b0)); reducing each to a scalar per image
// instead cost ~4%. Per vector step the smaller operand set (OB dy vectors or BB shifted x vectors)
// is loaded and held, the other streamed one vector at a time: OB*BB accumulators + min(OB, BB) + 1
// registers, OB + BB loads per OB*BB FMAs.
template <int OB, int BB>
inline void bww_step(vf (&acc)[OB][BB], const float* d, int64_t dyo, const float* x, int64_t dw, vi mask) {
    if constexpr (OB <= BB) {
        vf dv[OB];
        for (int ob = 0; ob < OB; ++ob) dv[ob] = loadu(d + ob * dyo);
        for (int bb = 0; bb < BB; ++bb) {
            vf xv = (vf)((vi)loadu(x + bb * dw) & mask);
            keep(xv);
            for (int ob = 0; ob < OB; ++ob) acc[ob][bb] += dv[ob] * xv;
        }
    } else {
        vf xv[BB];
        for (int bb = 0; bb < BB; ++bb) {
            xv[bb] = (vf)((vi)loadu(x + bb * dw) & mask);
            keep(xv[bb]);
        }
        for (int ob = 0; ob < OB; ++ob) {
            const vf dv = loadu(d + ob * dyo);
            for (int bb = 0; bb < BB; ++bb) acc[ob][bb] += dv * xv[bb];
        }
    }
}

template <int OB, int BB>
void bww_tile(const float* dy, int64_t dyo, int64_t owp, int64_t ow, int64_t oh, const float* x, int64_t xs,
              int64_t sh, int64_t dw, vi tail, vf* out, int64_t out_o) {
    vf acc[OB][BB];
    for (int ob = 0; ob < OB; ++ob)
        for (int bb = 0; bb < BB; ++bb) acc[ob][bb] = vf{};
    const vi all = ~vi{};
    const int64_t full = ow / kV * kV;
    for (int64_t i = 0; i < oh; ++i) {
        const float* xr = x + i * sh * xs;
        const float* dr = dy + i * owp;
        for (int64_t j = 0; j < full; j += kV) bww_step<OB, BB>(acc, dr + j, dyo, xr + j, dw, all);
        if (full < ow) bww_step<OB, BB>(acc, dr + full, dyo, xr + full, dw, tail);
    }
    for (int ob = 0; ob < OB; ++ob)
        for (int bb = 0; bb < BB; ++bb) out[ob * out_o + bb] += acc[ob][bb];
}

template <int BB, int MAXOB, class... A>
void bww_tile_n(int ob, A... a) {
    if constexpr (MAXOB > 1) {
        if (ob < MAXOB) return bww_tile_n<BB, MAXOB - 1>(ob, a...);
    }
    bww_tile<MAXOB, BB>(a...);
}

// Output channels per weight-gradient tile BB kernel columns wide: 8-12 accumulators that fit with
// their operands in 16 registers (OB*BB + min(OB, BB) + 1 <= 16; 4x3 rather than 3x3 took the
// SimpleCNN layer's 16 channels in 4 blocks instead of 6 and 8% off its time).
constexpr int bww_ob(int bb) { return bb == 1 ? 8 : bb == 2 ? 5 : bb == 3 ? 4 : 2; }
constexpr int kMaxBB = 5;  // wider kernels are split into column blocks

// bww_tile for a runtime (bb, ob), ob <= bww_ob(bb).
template <class... A>
void bww_tile_any(int bb, int ob, A... a) {
    switch (bb) {
        case 1: return bww_tile_n<1, bww_ob(1)>(ob, a...);
        case 2: return bww_tile_n<2, bww_ob(2)>(ob, a...);
        case 3: return bww_tile_n<3, bww_ob(3)>(ob, a...);
        case 4: return bww_tile_n<4, bww_ob(4)>(ob, a...);
        default: return bww_tile_n<5, bww_ob(5)>(ob, a...);
    }
}

// dw = correlate(x, dy) (and db = sum of dy) for sw == 1. The threads split the batch into
// contiguous ranges (static schedule); each keeps kV float32 partial sums per weight (a lane adds
// ~oh*ow/kV products per image, over the thread's images), added up in float64 in thread order at
// the end, so the result depends on the thread count but not on timing.
void direct_backward_weights(const Geom& gm, const float* dy, const float* x, float* dwt, float* db, Scratch& sc) {
    const PadShape ps(gm);
    const int64_t cg = gm.c / gm.g, og = gm.o / gm.g, kk = gm.kh * gm.kw, ksz = cg * kk;
    const int64_t owp = round_up(gm.ow, kV), dyo = gm.oh * owp, nw = gm.o * ksz;
    vi tail;
    for (int l = 0; l < kV; ++l) tail[l] = l < gm.ow % kV ? -1 : 0;
    sc.prepare();
    int nthr = 1;
#pragma omp parallel
    {
#pragma omp single
        nthr = omp_get_num_threads();
        float* xp = sc.buf(static_cast<size_t>(gm.c * ps.plane + gm.o * dyo));
        float* dyp = xp + gm.c * ps.plane;
        auto& vsum = sc.vsums[static_cast<size_t>(omp_get_thread_num())];
        vsum.assign(static_cast<size_t>(nw), vf{});
        auto& sum = sc.sums[static_cast<size_t>(omp_get_thread_num())];
        sum.assign(static_cast<size_t>(gm.o), 0.0);
#pragma omp for schedule(static)
        for (int64_t n = 0; n < gm.n; ++n) {
            pad_image(gm, ps, x + n * gm.c * gm.h * gm.w, xp);
            const float* dyn = dy + n * gm.o * gm.oh * gm.ow;
            for (int64_t oc = 0; oc < gm.o; ++oc) {
                float s = 0.0f;
                for (int64_t i = 0; i < gm.oh; ++i) {
                    const float* src = dyn + (oc * gm.oh + i) * gm.ow;
                    copy_row(dyp + oc * dyo + i * owp, src, gm.ow);
                    if (db)
                        for (int64_t j = 0; j < gm.ow; ++j) s += src[j];
                }
                if (db) sum[static_cast<size_t>(oc)] += s;
            }
            // one channel block for all column blocks: sized for the widest (first) one, which has the
            // fewest channels per tile (bww_ob falls as the block widens)
            const int maxob = bww_ob(static_cast<int>(std::min<int64_t>(kMaxBB, gm.kw)));
            for (int64_t gi = 0; gi < gm.g; ++gi)
                for (int64_t o0 = gi * og; o0 < (gi + 1) * og; o0 += maxob) {
                    const int ob = static_cast<int>(std::min<int64_t>(maxob, (gi + 1) * og - o0));
                    for (int64_t b0 = 0; b0 < gm.kw; b0 += kMaxBB) {
                        const int bb = static_cast<int>(std::min<int64_t>(kMaxBB, gm.kw - b0));
                        for (int64_t ci = 0; ci < cg; ++ci)
                            for (int64_t a = 0; a < gm.kh; ++a)
                                bww_tile_any(bb, ob, dyp + o0 * dyo, dyo, owp, gm.ow, gm.oh,
                                             xp + (gi * cg + ci) * ps.plane + a * gm.dh * ps.xs + b0 * gm.dw, ps.xs,
                                             gm.sh, gm.dw, tail, vsum.data() + o0 * ksz + ci * kk + a * gm.kw + b0,
                                             ksz);
                    }
                }
        }
    }
    for (size_t k = 0; k < static_cast<size_t>(nw); ++k) {
        double s = 0.0;
        for (int t = 0; t < nthr; ++t)
            for (int l = 0; l < kV; ++l) s += sc.vsums[static_cast<size_t>(t)][k][l];
        dwt[k] = static_cast<float>(s);
    }
    for (size_t k = 0; db && k < static_cast<size_t>(gm.o); ++k) {
        double s = 0.0;
        for (int t = 0; t < nthr; ++t) s += sc.sums[static_cast<size_t>(t)][k];
        db[k] = static_cast<float>(s);
    }
}

// ----------------------------------------------------------------------------------------------
// Cached primitives: one entry per (primitive, geometry, policy, thread count), on one path.

struct FwdEntry {
    int path = kPlain;
    dnnl::convolution_forward prim;
    Port src, wei, dst;
    Scratch scratch;
    std::string impl;
};

struct BwdDataEntry {
    int path = kPlain;
    dnnl::convolution_backward_data prim;
    Port diff_dst, wei, diff_src;
    std::optional<Geom> tgeom;  // direct: the forward convolution that computes dx
    std::vector<float> wt;      // direct: its (flipped) weight
    Scratch scratch;
    std::string impl;
};

struct BwdWeiEntry {
    int path = kPlain;
    dnnl::convolution_backward_weights prim;
    Port src, diff_dst, diff_wei;
    Scratch scratch;
    std::string impl;
};

std::unique_ptr<FwdEntry> make_fwd(const Geom& gm, bool bias, int path) {
    auto e = std::make_unique<FwdEntry>();
    e->path = path;
    if (path == kDirect) {
        e->impl = "spore:direct";
        return e;
    }
    auto pd = gm.fwd_pd(bias, path == kBlocked);
    e->prim = dnnl::convolution_forward(pd);
    e->src.init(gm.user_src(), pd.src_desc(), true);
    e->wei.init(gm.user_wei(), pd.weights_desc(), true);
    e->dst.init(gm.user_dst(), pd.dst_desc(), false);
    e->impl = pd.impl_info_str();
    return e;
}

void run_fwd(FwdEntry& e, const Geom& gm, const float* px, const float* pw, const float* pb, float* py) {
    if (e.path == kDirect) return direct_forward(gm, px, pw, pb, py, e.scratch);
    dnnl::stream& s = cpu_stream();
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.src.bind(px, s)},
                                         {DNNL_ARG_WEIGHTS, e.wei.bind(pw, s)},
                                         {DNNL_ARG_DST, e.dst.bind(py, s)}};
    if (pb) args[DNNL_ARG_BIAS] = memory({{gm.o}, kF32, tag::x}, cpu_engine(), const_cast<float*>(pb));
    e.prim.execute(s, args);
    e.dst.finish(py, s);
    s.wait();
}

std::unique_ptr<BwdDataEntry> make_bwd_data(const Geom& gm, int path) {
    auto e = std::make_unique<BwdDataEntry>();
    e->path = path;
    if (path == kDirect) {
        e->tgeom = gm.transposed();
        e->wt.resize(static_cast<size_t>(gm.o * (gm.c / gm.g) * gm.kh * gm.kw));
        e->impl = "spore:direct (forward of dy with the flipped weight)";
        return e;
    }
    const bool blk = path == kBlocked;
    dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, Geom::want(gm.user_src(), blk),
                                            Geom::want(gm.user_wei(), blk), Geom::want(gm.user_dst(), blk),
                                            gm.strides(), gm.dilates(), gm.pad_l(), gm.pad_r());
    dnnl::convolution_backward_data::primitive_desc pd(d, cpu_engine(), gm.fwd_pd(false, blk));
    e->prim = dnnl::convolution_backward_data(pd);
    e->diff_dst.init(gm.user_dst(), pd.diff_dst_desc(), true);
    e->wei.init(gm.user_wei(), pd.weights_desc(), true);
    e->diff_src.init(gm.user_src(), pd.diff_src_desc(), false);
    e->impl = pd.impl_info_str();
    return e;
}

// dx; `dy_shared`, when given, is dy already in the primitive's layout (conv2d_backward).
void run_bwd_data(BwdDataEntry& e, const float* pdy, const float* pw, float* pdx, const Geom& gm,
                  const memory* dy_shared = nullptr) {
    if (e.path == kDirect) {
        flip_weight(gm, pw, e.wt.data());
        return direct_forward(*e.tgeom, pdy, e.wt.data(), nullptr, pdx, e.scratch);
    }
    dnnl::stream& s = cpu_stream();
    e.prim.execute(s, {{DNNL_ARG_DIFF_DST, dy_shared ? *dy_shared : e.diff_dst.bind(pdy, s)},
                       {DNNL_ARG_WEIGHTS, e.wei.bind(pw, s)},
                       {DNNL_ARG_DIFF_SRC, e.diff_src.bind(pdx, s)}});
    e.diff_src.finish(pdx, s);
    s.wait();
}

// The weights-gradient primitive; with `bias` it also produces the bias gradient (the per-channel
// sum of dy), which it gets nearly for free while it streams dy anyway.
std::unique_ptr<BwdWeiEntry> make_bwd_wei(const Geom& gm, bool bias, int path) {
    auto e = std::make_unique<BwdWeiEntry>();
    e->path = path;
    if (path == kDirect) {
        e->impl = "spore:direct";
        return e;
    }
    const bool blk = path == kBlocked;
    const memory::desc bias_md = bias ? memory::desc({gm.o}, kF32, tag::x) : memory::desc();
    dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, Geom::want(gm.user_src(), blk),
                                               Geom::want(gm.user_wei(), blk), bias_md,
                                               Geom::want(gm.user_dst(), blk), gm.strides(), gm.dilates(),
                                               gm.pad_l(), gm.pad_r());
    dnnl::convolution_backward_weights::primitive_desc pd(d, cpu_engine(), gm.fwd_pd(bias, blk));
    e->prim = dnnl::convolution_backward_weights(pd);
    e->src.init(gm.user_src(), pd.src_desc(), true);
    e->diff_dst.init(gm.user_dst(), pd.diff_dst_desc(), true);
    e->diff_wei.init(gm.user_wei(), pd.diff_weights_desc(), false);
    e->impl = pd.impl_info_str();
    return e;
}

void run_bwd_wei(BwdWeiEntry& e, const float* pdy, const float* px, float* pdw, float* pdb, const Geom& gm,
                 const memory* dy_shared = nullptr) {
    if (e.path == kDirect) return direct_backward_weights(gm, pdy, px, pdw, pdb, e.scratch);
    dnnl::stream& s = cpu_stream();
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.src.bind(px, s)},
                                         {DNNL_ARG_DIFF_DST, dy_shared ? *dy_shared : e.diff_dst.bind(pdy, s)},
                                         {DNNL_ARG_DIFF_WEIGHTS, e.diff_wei.bind(pdw, s)}};
    if (pdb) args[DNNL_ARG_DIFF_BIAS] = memory({{gm.o}, kF32, tag::x}, cpu_engine(), pdb);
    e.prim.execute(s, args);
    e.diff_wei.finish(pdw, s);
    s.wait();
}

// ----------------------------------------------------------------------------------------------
// Path choice.

// The auto policy's decisions, process-wide (any Python thread, any cache generation): tuning key ->
// path. Bounded like the caches; past the bound it starts over (a program cycling through thousands
// of shapes re-times the ones it comes back to).
struct Tuned {
    int path;
    std::array<double, 3> seconds;  // 1-thread time per path (plain, blocked, direct); 0 = not a candidate
};
std::mutex g_tuned_mu;
std::map<std::vector<int64_t>, Tuned> g_tuned;
constexpr size_t kMaxTuned = 4096;
// Decisions timed in this process (not loaded from spore's persistent tuning cache): the cache is
// rewritten only when this grows (spore/_runtime/tuning_cache.py).
std::atomic<int64_t> g_tuned_new{0};

// Timing: one warm-up run of every candidate (first touch of buffers, jit code faulting in), then
// rounds of one run each, interleaved so that a burst of load from another process hits all candidates
// alike; the minimum over rounds is the estimate (noise only ever adds time). Single runs swing by
// +-20% on two cores shared with other work; with 5 rounds a path 15% slower than the best was kept
// now and then where the two were close. After kTuneMinRounds a candidate more than kTuneDrop times
// slower than the best so far stops being run (it cannot win: noise only adds time), and every layer
// stops after kTuneBudget: the tuning is paid in the first step of a new network (measured: LeNet-5's
// conv primitives ~180 ms with 10 rounds of every candidate and a 0.1 s budget, ~125 ms now, of
// which building the candidates' oneDNN primitives is most: 1 round instead of 3 saves only ~40 ms).
constexpr int kTuneRounds = 10;
constexpr int kTuneMinRounds = 3;
constexpr double kTuneDrop = 1.3;
constexpr double kTuneBudget = 0.02;  // seconds per primitive

template <class E, class Run>
std::vector<double> time_candidates(const std::vector<std::unique_ptr<E>>& cands, Run& run) {
    using clock = std::chrono::steady_clock;
    std::vector<double> best(cands.size(), 1e300);
    for (const auto& c : cands) run(*c);
    const auto start = clock::now();
    for (int r = 0; r < kTuneRounds; ++r) {
        const double lead = *std::min_element(best.begin(), best.end());
        for (size_t i = 0; i < cands.size(); ++i) {
            if (r >= kTuneMinRounds && best[i] > kTuneDrop * lead) continue;
            const auto t0 = clock::now();
            run(*cands[i]);
            best[i] = std::min(best[i], std::chrono::duration<double>(clock::now() - t0).count());
        }
        if (r + 1 >= kTuneMinRounds && std::chrono::duration<double>(clock::now() - start).count() > kTuneBudget)
            break;
    }
    return best;
}

// Scratch operands for timing: deterministic small values (no denormals, no infs; the kernels'
// speed does not depend on the values otherwise).
std::vector<float> tune_buffer(int64_t size) {
    std::vector<float> v(static_cast<size_t>(size));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>(i * 7919 % 17) - 8) * 0.0625f;
    return v;
}

// The entry for the primitive `kind` of `gm` under the current policy: the forced path, or under
// auto the recorded decision, or - the first time - the fastest candidate, timed with `make_timer()`
// (a callable running an entry on scratch operands).
//
// Candidates are timed on one thread whatever the thread count. Timed at 2 threads on 2 cores that
// other processes also use, a run waits for a descheduled worker at every barrier: minima over 10
// rounds came out at 8 ms (two scheduler ticks) for 0.3 ms primitives, and about one choice in five
// was a path 1.5-5x slower than the best (4 runs x 12 primitives). One thread is not slowed that way,
// and the 1-thread ranking held at 2 threads wherever it was clear (the 12 primitives of LeNet-5,
// SimpleCNN and the bench's 16->32 layer). The parallel time is estimated from it as t1 / threads,
// except that the direct loops split only the batch: t1 / min(threads, n).
template <class E, class Make, class MakeTimer>
std::unique_ptr<E> choose(const Geom& gm, int kind, int flag, int mode, Make make, MakeTimer make_timer) {
    if (mode == kPolicyPlain) return make(kPlain);
    if (mode == kPolicyBlocked) return make(kBlocked);
    if (mode == kPolicyDirect) return make(gm.direct_ok(kind) ? kDirect : kPlain);
    const auto key = gm.key(kind, flag);
    // The weight gradient with and without the bias gradient (conv2d_backward's fused call and
    // conv2d_backward_weights) follow one decision per geometry, whichever was made first, so the two
    // give the same bits; tuned separately, CI once saw them take different paths on a loaded machine.
    // Both keys are recorded (the persistent cache's prewarm builds the variant each one names).
    const auto twin_key = kind == 2 ? gm.key(kind, !flag) : std::vector<int64_t>{};
    const auto decided = [&]() -> const Tuned* {  // under g_tuned_mu
        auto it = g_tuned.find(key);
        if (it != g_tuned.end()) return &it->second;
        if (kind == 2 && (it = g_tuned.find(twin_key)) != g_tuned.end()) {
            const Tuned t = it->second;
            if (g_tuned.size() >= kMaxTuned) g_tuned.clear();
            ++g_tuned_new;
            return &g_tuned.emplace(key, t).first->second;
        }
        return nullptr;
    };
    {
        std::lock_guard<std::mutex> lock(g_tuned_mu);
        if (const Tuned* t = decided()) return make(t->path);
    }
    const int threads = omp_get_max_threads();
    std::vector<std::unique_ptr<E>> cands;
    std::vector<double> secs;
    {
        OneThread one;
        cands.push_back(make(kPlain));  // always exists (oneDNN's reference kernels at worst)
        try {
            cands.push_back(make(kBlocked));
        } catch (const dnnl::error&) {  // no implementation for `any` layouts: not a candidate
        }
        if (gm.direct_ok(kind)) cands.push_back(make(kDirect));
        auto timer = make_timer();
        secs = time_candidates(cands, timer);
    }
    Tuned t{kPlain, {0.0, 0.0, 0.0}};
    double best = 1e300;
    for (size_t i = 0; i < cands.size(); ++i) {
        const int p = cands[i]->path;
        t.seconds[static_cast<size_t>(p)] = secs[i];
        const double split = p == kDirect ? static_cast<double>(std::min<int64_t>(threads, gm.n)) : threads;
        if (secs[i] / split < best) best = secs[i] / split, t.path = p;
    }
    int path;
    {
        std::lock_guard<std::mutex> lock(g_tuned_mu);
        if (const Tuned* other = decided()) {  // another thread decided meanwhile
            path = other->path;
        } else {
            if (g_tuned.size() >= kMaxTuned) g_tuned.clear();
            path = g_tuned.emplace(key, t).first->second.path;
            ++g_tuned_new;
        }
    }
    if (threads == 1)
        for (auto& c : cands)
            if (c->path == path) return std::move(c);
    return make(path);  // built for the real thread count
}

template <class E>
using Cache = std::map<std::vector<int64_t>, std::unique_ptr<E>>;

// Entries hold scratch buffers the size of the activations, so a program whose shapes keep changing
// must not grow the cache forever: past this many geometries per kind it starts over.
constexpr size_t kMaxCached = 64;

template <class E>
std::unique_ptr<E>& cache_slot(Cache<E>& cache, const Geom& gm, int kind, int flag, int mode) {
    auto key = gm.key(kind, flag);
    key.push_back(mode);  // forced paths and auto keep separate entries
    if (cache.size() >= kMaxCached && cache.find(key) == cache.end()) cache.clear();
    return cache[std::move(key)];
}

// The timers own their scratch operands (allocated only when a geometry is tuned, freed right after).
std::vector<float> tune_output(int64_t size) { return std::vector<float>(static_cast<size_t>(size)); }

FwdEntry& fwd_entry(const Geom& gm, bool bias) {
    thread_local Cache<FwdEntry> cache;
    const int mode = g_layout.load();  // read once: a concurrent conv_set_layout must not split key and path
    auto& slot = cache_slot(cache, gm, 0, bias, mode);
    if (!slot)
        slot = choose<FwdEntry>(
            gm, 0, bias, mode, [&](int path) { return make_fwd(gm, bias, path); },
            [&] {
                return [&gm, bias, x = tune_buffer(gm.n * gm.c * gm.h * gm.w),
                        w = tune_buffer(gm.o * (gm.c / gm.g) * gm.kh * gm.kw), b = tune_buffer(gm.o),
                        y = tune_output(gm.n * gm.o * gm.oh * gm.ow)](FwdEntry& e) mutable {
                    run_fwd(e, gm, x.data(), w.data(), bias ? b.data() : nullptr, y.data());
                };
            });
    return *slot;
}

BwdDataEntry& bwd_data_entry(const Geom& gm) {
    thread_local Cache<BwdDataEntry> cache;
    const int mode = g_layout.load();  // read once: a concurrent conv_set_layout must not split key and path
    auto& slot = cache_slot(cache, gm, 1, 0, mode);
    if (!slot)
        slot = choose<BwdDataEntry>(
            gm, 1, 0, mode, [&](int path) { return make_bwd_data(gm, path); },
            [&] {
                return [&gm, dy = tune_buffer(gm.n * gm.o * gm.oh * gm.ow),
                        w = tune_buffer(gm.o * (gm.c / gm.g) * gm.kh * gm.kw),
                        dx = tune_output(gm.n * gm.c * gm.h * gm.w)](BwdDataEntry& e) mutable {
                    run_bwd_data(e, dy.data(), w.data(), dx.data(), gm);
                };
            });
    return *slot;
}

BwdWeiEntry& bwd_wei_entry(const Geom& gm, bool bias = false) {
    thread_local Cache<BwdWeiEntry> cache;
    const int mode = g_layout.load();  // read once: a concurrent conv_set_layout must not split key and path
    auto& slot = cache_slot(cache, gm, 2, bias, mode);
    if (!slot)
        slot = choose<BwdWeiEntry>(
            gm, 2, bias, mode, [&](int path) { return make_bwd_wei(gm, bias, path); },
            [&] {
                return [&gm, bias, dy = tune_buffer(gm.n * gm.o * gm.oh * gm.ow),
                        x = tune_buffer(gm.n * gm.c * gm.h * gm.w),
                        dw = tune_output(gm.o * (gm.c / gm.g) * gm.kh * gm.kw),
                        db = tune_output(gm.o)](BwdWeiEntry& e) mutable {
                    run_bwd_wei(e, dy.data(), x.data(), dw.data(), bias ? db.data() : nullptr, gm);
                };
            });
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

// Multiply-adds of one conv pass: below kGemmGrain (kernels.h) the pass runs on the calling thread
// alone, as the GEMMs do. Measured (2 cores, passive wait): SimpleCNN's 14M-MAC 3x3 conv ran its
// training step at 393 steps/s on 1 thread and 161 on 2 before, the wake-ups costing more than the
// split saved. The team size is part of the primitive cache and tuning keys, so a small conv is
// built, tuned and cached as a 1-thread one. Only under the auto policy: a forced path
// (conv_set_layout 0/1/3, for tests and diagnosis) keeps the whole team, so it can be checked split.
static int64_t conv_macs(const Geom& gm) {
    if (g_layout.load() != kPolicyAuto) return kGemmGrain;  // GemmTeam leaves the team as it is
    return gm.n * gm.o * gm.oh * gm.ow * (gm.c / gm.g) * gm.kh * gm.kw;
}

// A pass above the grain runs as fixed chunks of the batch (batch_chunks.h). A batch of one, and the
// forced paths (conv_set_layout 0/1/3), keep one primitive over the whole team.
BatchSplit batch_split(const Geom& gm) {
    return split_batch(gm.n, conv_macs(gm), g_layout.load() == kPolicyAuto);
}

// Per-chunk weight (and bias) gradients past the first chunk's, which goes to the output itself.
struct ChunkGrads {
    float* dw;  // (count - 1) x nw
    float* db;  // (count - 1) x o, or null
};

ChunkGrads chunk_grads(const Geom& gm, const BatchSplit& bs, bool bias) {
    const int64_t nw = gm.o * (gm.c / gm.g) * gm.kh * gm.kw, parts = bs.count - 1;
    float* buf = chunk_scratch(bs.count, nw + (bias ? gm.o : 0));
    return {buf, bias ? buf + parts * nw : nullptr};
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
        const BatchSplit bs = batch_split(gm);
        if (bs.count == 1) {
            GemmTeam team(conv_macs(gm));
            run_fwd(fwd_entry(gm, pb != nullptr), gm, px, pw, pb, py_);
        } else {
            over_chunks(gm, bs, [&](const Geom& g) { fwd_entry(g, pb != nullptr); },
                        [&](const Geom& g, int64_t lo, int64_t) {
                            run_fwd(fwd_entry(g, pb != nullptr), g, px + lo * gm.c * gm.h * gm.w, pw, pb,
                                    py_ + lo * gm.o * gm.oh * gm.ow);
                        });
        }
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
        const BatchSplit bs = batch_split(gm);
        if (bs.count == 1) {
            GemmTeam team(conv_macs(gm));
            run_bwd_data(bwd_data_entry(gm), pdy, pw, pdx, gm);
        } else {
            over_chunks(gm, bs, [&](const Geom& g) { bwd_data_entry(g); },
                        [&](const Geom& g, int64_t lo, int64_t) {
                            run_bwd_data(bwd_data_entry(g), pdy + lo * gm.o * gm.oh * gm.ow, pw,
                                         pdx + lo * gm.c * gm.h * gm.w, g);
                        });
        }
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
        const BatchSplit bs = batch_split(gm);
        if (bs.count == 1) {
            GemmTeam team(conv_macs(gm));
            run_bwd_wei(bwd_wei_entry(gm), pdy, px, pdw, nullptr, gm);
        } else {
            const int64_t nw = dw.size();
            const ChunkGrads cg = chunk_grads(gm, bs, false);
            over_chunks(gm, bs, [&](const Geom& g) { bwd_wei_entry(g); },
                        [&](const Geom& g, int64_t lo, int64_t k) {
                            run_bwd_wei(bwd_wei_entry(g), pdy + lo * gm.o * gm.oh * gm.ow,
                                        px + lo * gm.c * gm.h * gm.w, chunk_dst(pdw, cg.dw, k, nw), nullptr, g);
                        });
            add_chunk_grads(pdw, cg.dw, bs.count, nw);
        }
    }
    return dw;
}

// dx and dw (and db) of `gm` on the calling thread's entries, sharing dy's reorder when both
// primitives run blocked in the same layout.
void backward_both(const Geom& gm, bool with_bias, const float* pdy, const float* px, const float* pw, float* pdx,
                   float* pdw, float* pdb) {
    BwdDataEntry& ed = bwd_data_entry(gm);
    BwdWeiEntry& ew = bwd_wei_entry(gm, with_bias);
    const bool share = ed.path == kBlocked && ew.path == kBlocked && ed.diff_dst.needs_reorder &&
                       ew.diff_dst.internal_desc() == ed.diff_dst.internal_desc();
    if (share) {
        const memory dy_blk = ed.diff_dst.bind(pdy, cpu_stream());
        run_bwd_data(ed, pdy, pw, pdx, gm, &dy_blk);
        run_bwd_wei(ew, pdy, px, pdw, pdb, gm, &dy_blk);
    } else {
        run_bwd_data(ed, pdy, pw, pdx, gm);
        run_bwd_wei(ew, pdy, px, pdw, pdb, gm);
    }
}

// Both gradients of one convolution in one call, for the common training step where the input and
// the weight both need them: when both primitives run blocked in the same layout dy is reordered
// into it once and shared, and with `with_bias` the bias gradient comes out of the weights primitive.
// Returns (dx, dw, db or None).
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
    float *pdx = dx.mutable_data(), *pdw = dw.mutable_data(), *pdb = with_bias ? db.mutable_data() : nullptr;
    {
        py::gil_scoped_release nogil;
        const BatchSplit bs = batch_split(gm);
        if (bs.count == 1) {
            GemmTeam team(conv_macs(gm));
            backward_both(gm, with_bias, pdy, px, pw, pdx, pdw, pdb);
        } else {
            const int64_t nw = dw.size();
            const ChunkGrads cg = chunk_grads(gm, bs, with_bias);
            over_chunks(gm, bs,
                        [&](const Geom& g) {
                            bwd_data_entry(g);
                            bwd_wei_entry(g, with_bias);
                        },
                        [&](const Geom& g, int64_t lo, int64_t k) {
                            backward_both(g, with_bias, pdy + lo * gm.o * gm.oh * gm.ow,
                                          px + lo * gm.c * gm.h * gm.w, pw, pdx + lo * gm.c * gm.h * gm.w,
                                          chunk_dst(pdw, cg.dw, k, nw),
                                          with_bias ? chunk_dst(pdb, cg.db, k, gm.o) : nullptr);
                        });
            add_chunk_grads(pdw, cg.dw, bs.count, nw);
            if (with_bias) add_chunk_grads(pdb, cg.db, bs.count, gm.o);
        }
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
        parallel_for(c, n * c * r, [&](int64_t ch0, int64_t ch1) {
            for (int64_t ch = ch0; ch < ch1; ++ch) {
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
        });
    }
    return db;
}

// Which path and implementation each primitive of a geometry runs (for benchmarks, tests and layout
// tuning); under the auto policy asking builds - and so times - the entries.
py::dict conv2d_impl_info(Quad x_shape, Quad w_shape, Pair stride, Quad pad, Pair dilation, int64_t groups) {
    const Geom gm(x_shape[0], x_shape[1], x_shape[2], x_shape[3], w_shape[0], w_shape[2], w_shape[3], stride, pad,
                  dilation, groups);
    const FwdEntry* f;
    const BwdDataEntry* bd;
    const BwdWeiEntry* bw;
    {
        py::gil_scoped_release nogil;
        f = &fwd_entry(gm, false);
        bd = &bwd_data_entry(gm);
        bw = &bwd_wei_entry(gm);
    }
    py::dict d;
    d["forward"] = f->impl;
    d["backward_data"] = bd->impl;
    d["backward_weights"] = bw->impl;
    d["path"] = py::make_tuple(path_name(f->path), path_name(bd->path), path_name(bw->path));
    d["blocked"] = py::make_tuple(f->path == kBlocked, bd->path == kBlocked, bw->path == kBlocked);
    // what the auto policy measured (ms per candidate path) when it chose, if it did
    py::list tuned;
    for (int kind = 0; kind < 3; ++kind) {
        py::dict ms;
        std::lock_guard<std::mutex> lock(g_tuned_mu);
        const auto it = g_tuned.find(gm.key(kind, 0));
        if (it != g_tuned.end())
            for (int p = 0; p < 3; ++p) {
                const double sec = it->second.seconds[static_cast<size_t>(p)];
                if (sec > 0) ms[path_name(p)] = sec * 1e3;
            }
        tuned.append(ms);
    }
    d["tuned_ms"] = py::tuple(tuned);
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
          "the path (plain/blocked/direct) and implementation of each primitive of a geometry "
          "(forward, backward_data, backward_weights)");
    m.def("conv_set_layout", [](int mode) {
        if (mode < kPolicyPlain || mode > kPolicyDirect)
            throw std::invalid_argument("conv_set_layout: 0=plain, 1=blocked, 2=auto (timed), 3=direct");
        g_layout = mode;
    }, py::arg("mode"),
          "path policy of the conv kernels: 0=oneDNN on plain NCHW, 1=oneDNN-chosen blocked layouts, "
          "2=auto (the fastest, timed once per geometry), 3=Spore's direct loops where they apply (else plain)");
    m.def("conv_get_layout", []() { return g_layout.load(); });
    // The auto policy's decisions as data, for the persistent tuning cache: each is
    // (key, path, seconds) with key = (kind, flag, threads, n, c, h, w, o, kh, kw, sh, sw, pt, pb, pl, pr,
    // dh, dw, groups), path 0 plain / 1 blocked / 2 direct, seconds the 1-thread times per path.
    m.def("conv_tuning_export", []() {
        py::list out;
        std::lock_guard<std::mutex> lock(g_tuned_mu);
        for (const auto& [k, t] : g_tuned)
            out.append(py::make_tuple(py::tuple(py::cast(k)), t.path,
                                      py::make_tuple(t.seconds[0], t.seconds[1], t.seconds[2])));
        return out;
    }, "the conv path decisions of this process: [(key, path, seconds)]");
    m.def("conv_tuning_import", [](const std::vector<std::tuple<std::vector<int64_t>, int, std::array<double, 3>>>& rows) {
        size_t n = 0;
        std::lock_guard<std::mutex> lock(g_tuned_mu);
        for (const auto& [k, path, secs] : rows) {
            if (k.size() != 19 || path < kPlain || path > kDirect)
                throw std::invalid_argument("conv_tuning_import: a key has 19 integers and a path is 0, 1 or 2");
            if (g_tuned.size() >= kMaxTuned) break;
            n += g_tuned.emplace(k, Tuned{path, secs}).second ? 1 : 0;
        }
        return n;
    }, py::arg("rows"), "record decisions (from the persistent cache) as if timed here; returns how many were new");
    m.def("conv_tuning_clear", []() {
        std::lock_guard<std::mutex> lock(g_tuned_mu);
        g_tuned.clear();
        g_tuned_new = 0;
    }, "forget every decision (the next use of each geometry times the candidates again)");
    m.def("conv_tuning_timed", []() { return g_tuned_new.load(); },
          "how many decisions this process has timed itself (not imported)");
}

}  // namespace spore
