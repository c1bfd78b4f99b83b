// Integer (int8) inference kernels for spore.lite's QDQ path and spore.quant.
//
// Why: spore.lite used to compute int8 products as exact float GEMMs plus NumPy quantize/dequantize,
// which made int8 slower than float. Here the products run on oneDNN's integer kernels (AVX512-VNNI
// on this CPU): u8/s8 activations x s8 weights -> s32 accumulators, exactly as ONNX QLinear ops
// define them, then ONE fused epilogue pass in C++ turns the s32 accumulators into
//   f32:   y = float(acc) * scale[c] (+ bias[c]) (+ ReLU)                (DequantizeLinear semantics)
//   u8/s8: q = saturate(rint(y / y_scale) + y_zero_point)               (QuantizeLinear semantics)
// The epilogue is ours rather than oneDNN's output scales because it must round exactly as ONNX does
// (round half to even on the float32 value y / y_scale, the division done in float32), which is what
// the unfused DequantizeLinear -> float op -> QuantizeLinear chain computes; oneDNN's scale/zero-point
// post-ops round in their own order.
//
// matmul: dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 (zero point of A applied inside the GEMM).
// conv:   oneDNN convolution primitive, u8/s8 src (NHWC) x s8 weights (blocked, reordered once per
//         shape) -> s32 NHWC, with a runtime source zero point (oneDNN compensates the padded border
//         as real zeros, i.e. quantized value == zero point, which is ONNX's DQ-then-pad semantics).
//
// CPUs without VNNI (AVX2, AVX512 without VNNI): oneDNN's integer kernels there multiply with
// vpmaddubsw, which saturates each pair of u8 x s8 products to int16, and its convolutions halve the
// weights to avoid that; both give wrong sums (measured here: 72% of a conv's accumulators off, by
// up to 20%). There the products run exactly through float32 instead (exact_int_gemm below).
#include <dnnl.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <dnnl.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <pybind11/stl.h>
#include <unordered_map>

#include "grain.h"
#include "kernels.h"
#include "team_gemm.h"

// No fused multiply-add contraction in this file: acc * scale + bias must round twice, as the unfused
// DequantizeLinear -> op -> QuantizeLinear chain (and its NumPy oracle) does; -march=native would
// otherwise contract it into one FMA and results would differ from the chain by an ulp.
#pragma GCC optimize("fp-contract=off")

namespace spore {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using i32arr = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

dnnl::engine& i8_engine() {
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

// 0: s32 out; 1: f32 out; 2: u8 out; 3: s8 out
struct Epilogue {
    std::vector<float> scale;  // size 1 or C
    std::vector<float> bias;   // empty, or size C
    bool relu = false;
    int out = 0;
    float y_scale = 1.0f;
    float y_zp = 0.0f;
};

Epilogue make_epilogue(const std::optional<farr>& scale, const std::optional<farr>& bias, bool relu,
                       const std::optional<float>& y_scale, int y_zero_point, const std::string& y_dtype,
                       int64_t channels, const char* op) {
    Epilogue e;
    e.relu = relu;
    if (scale) {
        const farr& s = *scale;
        if (s.size() != 1 && s.size() != channels)
            throw std::invalid_argument(std::string(op) + ": scale must have 1 or " + std::to_string(channels) +
                                        " elements, got " + std::to_string(s.size()));
        e.scale.assign(s.data(), s.data() + s.size());
        e.out = 1;
    }
    if (bias) {
        if (!scale) throw std::invalid_argument(std::string(op) + ": bias needs scale");
        if (bias->size() != channels)
            throw std::invalid_argument(std::string(op) + ": bias must have " + std::to_string(channels) + " elements");
        e.bias.assign(bias->data(), bias->data() + bias->size());
    }
    if (relu && !scale) throw std::invalid_argument(std::string(op) + ": relu needs scale");
    if (y_scale) {
        if (!scale) throw std::invalid_argument(std::string(op) + ": y_scale needs scale");
        if (!(*y_scale > 0.0f)) throw std::invalid_argument(std::string(op) + ": y_scale must be > 0");
        e.y_scale = *y_scale;
        e.y_zp = static_cast<float>(y_zero_point);
        if (y_dtype == "uint8") {
            if (y_zero_point < 0 || y_zero_point > 255) throw std::invalid_argument(std::string(op) + ": y_zero_point outside uint8");
            e.out = 2;
        } else if (y_dtype == "int8") {
            if (y_zero_point < -128 || y_zero_point > 127) throw std::invalid_argument(std::string(op) + ": y_zero_point outside int8");
            e.out = 3;
        } else {
            throw std::invalid_argument(std::string(op) + ": y_dtype must be 'uint8' or 'int8', got '" + y_dtype + "'");
        }
    }
    return e;
}

py::array alloc_out(const Epilogue& e, const std::vector<py::ssize_t>& shape) {
    switch (e.out) {
        case 0: return py::array_t<int32_t>(shape);
        case 1: return py::array_t<float>(shape);
        case 2: return py::array_t<uint8_t>(shape);
        default: return py::array_t<int8_t>(shape);
    }
}

template <typename Q>
inline Q requant(float y, float ys, float yz, float lo, float hi) {
    float q = __builtin_rintf(y / ys) + yz;  // default rounding mode: half to even
    q = std::min(std::max(q, lo), hi);
    return static_cast<Q>(q);
}

// saturate(rint(x[i] / s) + z) for a span, 16 lanes at a time (GCC does not vectorise rintf here):
// the division in float32 and the round-half-to-even of vrndscaleps are exactly ONNX's arithmetic.
template <typename Q>
inline void quantize_span(const float* x, Q* y, int64_t n, float s, float z, float lo, float hi) {
    int64_t i = 0;
#ifdef __AVX512F__
    const __m512 vs = _mm512_set1_ps(s), vz = _mm512_set1_ps(z), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_div_ps(_mm512_loadu_ps(x + i), vs);
        v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, vz), vlo), vhi);
        __m128i q = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v));  // in range already: no wrap
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), q);
    }
#endif
    for (; i < n; ++i) y[i] = requant<Q>(x[i], s, z, lo, hi);
}

template <typename T>
inline T finish(int32_t a, float sc, float b, const Epilogue& e, float lo, float hi) {
    if constexpr (std::is_same_v<T, int32_t>) {
        return a;
    } else {
        float y = static_cast<float>(a) * sc;
        y += b;
        if (e.relu) y = std::max(y, 0.0f);
        if constexpr (std::is_same_v<T, float>) return y;
        else return requant<T>(y, e.y_scale, e.y_zp, lo, hi);
    }
}

// acc laid out [rows][C] (C innermost: matmul rows, or NHWC pixels with rows = n * spatial + p).
// spatial == 0: out is [rows][C] too; else out is NCHW, out[n][c][p], written in tiles of kTile
// pixels so the NHWC -> NCHW transpose reads a few KB of acc from L1 and writes contiguous runs.
template <typename T>
void epilogue_typed(const int32_t* acc, T* out, int64_t rows, int64_t C, int64_t spatial, const Epilogue& e) {
    std::vector<float> sc(C), bs(C, 0.0f);
    for (int64_t c = 0; c < C; ++c) sc[c] = e.scale.empty() ? 1.0f : e.scale[e.scale.size() > 1 ? c : 0];
    if (!e.bias.empty()) std::copy(e.bias.begin(), e.bias.end(), bs.begin());
    const float lo = e.out == 2 ? 0.0f : -128.0f, hi = e.out == 2 ? 255.0f : 127.0f;
    const float* psc = sc.data();
    const float* pbs = bs.data();
    if (!spatial) {
        parallel_for(rows, 2 * rows * C, [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
                const int32_t* a = acc + r * C;
                T* o = out + r * C;
                if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
                    std::vector<float> y(C);
                    for (int64_t c = 0; c < C; ++c) y[c] = finish<float>(a[c], psc[c], pbs[c], e, lo, hi);
                    quantize_span(y.data(), o, C, e.y_scale, e.y_zp, lo, hi);
                } else {
                    for (int64_t c = 0; c < C; ++c) o[c] = finish<T>(a[c], psc[c], pbs[c], e, lo, hi);
                }
            }
        });
        return;
    }
    constexpr int64_t kTile = 64;
    const int64_t images = rows / spatial, tiles = (spatial + kTile - 1) / kTile;
    // (image, tile) pairs flattened into one index, the split collapse(2) made
    parallel_for(images * tiles, 2 * rows * C, [&](int64_t k0, int64_t k1) {
        for (int64_t k = k0; k < k1; ++k) {
            const int64_t n = k / tiles, t = k % tiles;
            const int64_t p0 = t * kTile, p1 = std::min(spatial, p0 + kTile);
            const int32_t* a = acc + (n * spatial) * C;
            for (int64_t c = 0; c < C; ++c) {
                T* o = out + (n * C + c) * spatial;
                const float s_c = psc[c], b_c = pbs[c];
                if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
                    float y[kTile];
                    for (int64_t p = p0; p < p1; ++p) y[p - p0] = finish<float>(a[p * C + c], s_c, b_c, e, lo, hi);
                    quantize_span(y, o + p0, p1 - p0, e.y_scale, e.y_zp, lo, hi);
                } else {
                    for (int64_t p = p0; p < p1; ++p) o[p] = finish<T>(a[p * C + c], s_c, b_c, e, lo, hi);
                }
            }
        }
    });
}

void run_epilogue(const int32_t* acc, py::array& out, int64_t rows, int64_t C, int64_t spatial, const Epilogue& e) {
    void* p = out.mutable_data();
    switch (e.out) {
        case 0:
            if (spatial || static_cast<const void*>(acc) != p)
                epilogue_typed(acc, static_cast<int32_t*>(p), rows, C, spatial, e);
            break;
        case 1: epilogue_typed(acc, static_cast<float*>(p), rows, C, spatial, e); break;
        case 2: epilogue_typed(acc, static_cast<uint8_t*>(p), rows, C, spatial, e); break;
        default: epilogue_typed(acc, static_cast<int8_t*>(p), rows, C, spatial, e); break;
    }
}

bool is_u8(const py::array& a) { return a.dtype().is(py::dtype::of<uint8_t>()); }
bool is_s8(const py::array& a) { return a.dtype().is(py::dtype::of<int8_t>()); }

void check_int8(const py::array& a, const char* op, const char* arg, bool allow_u8) {
    if (!(is_s8(a) || (allow_u8 && is_u8(a))))
        throw std::invalid_argument(std::string(op) + ": " + arg + " must be " + (allow_u8 ? "uint8 or int8" : "int8") +
                                    ", got " + std::string(py::str(a.dtype())));
    if (!(a.flags() & py::array::c_style)) throw std::invalid_argument(std::string(op) + ": " + arg + " must be C-contiguous");
}

void check_zp(int zp, bool u8, const char* op, const char* arg) {
    if (u8 ? (zp < 0 || zp > 255) : (zp < -128 || zp > 127))
        throw std::invalid_argument(std::string(op) + ": " + arg + " " + std::to_string(zp) + " outside " +
                                    (u8 ? "uint8" : "int8"));
}

void check_out(const py::array& out, const Epilogue& e, int64_t size, const char* op) {
    const bool ok = e.out == 0 ? out.dtype().is(py::dtype::of<int32_t>())
                  : e.out == 1 ? out.dtype().is(py::dtype::of<float>())
                  : e.out == 2 ? is_u8(out) : is_s8(out);
    if (!ok || out.size() != size || !(out.flags() & py::array::c_style) || !out.writeable())
        throw std::invalid_argument(std::string(op) + ": out must be a writable C-contiguous array of " +
                                    std::to_string(size) + " elements of the epilogue's dtype");
}

// --- exact products without VNNI ----------------------------------------------------------------------

// Whether oneDNN's integer kernels accumulate exactly here: VNNI (vpdpbusd) adds u8 x s8 products
// straight into int32. ONEDNN_MAX_CPU_ISA=AVX2 selects the float32 path on any CPU (the tests use it).
bool int8_on_vnni() {
    static const bool vnni = [] {
        using isa = dnnl::cpu_isa;
        switch (dnnl::get_effective_cpu_isa()) {
            case isa::sse41:
            case isa::avx:
            case isa::avx2:
            case isa::avx512_core: return false;
            default: return true;
        }
    }();
    return vnni;
}

// A float32 sum of at most kExactK products of |a| <= 255 (an activation minus its zero point) and
// |b| <= 128 (an int8 weight) stays below 512 * 255 * 128 = 16,711,680 < 2^24 at every partial
// sum, so float32 holds each one exactly and the GEMM's order of additions cannot matter.
constexpr int64_t kExactK = 512;

// acc[M][ldc] = A (M x K, lda) @ B (K x N, ldb) for float32 operands holding such integers: a float32
// GEMM per block of kExactK along K, each block's exact sum added into the int32 accumulators (K >= 1:
// the callers fill K == 0 products themselves).
dnnl_status_t exact_int_gemm(const float* A, int64_t lda, const float* B, int64_t ldb, int32_t* acc, int64_t ldc,
                             int64_t M, int64_t N, int64_t K) {
    std::vector<float> c(static_cast<size_t>(M * N));
    for (int64_t k0 = 0; k0 < K; k0 += kExactK) {
        const int64_t kb = std::min(kExactK, K - k0);
        const dnnl_status_t st = team_sgemm('N', 'N', M, N, kb, 1.0f, A + k0, lda, B + k0 * ldb, ldb, 0.0f, c.data(), N);
        if (st != dnnl_success) return st;
        for (int64_t m = 0; m < M; ++m) {
            int32_t* a = acc + m * ldc;
            const float* cm = c.data() + m * N;
            if (k0 == 0)
                for (int64_t n = 0; n < N; ++n) a[n] = static_cast<int32_t>(cm[n]);
            else
                for (int64_t n = 0; n < N; ++n) a[n] += static_cast<int32_t>(cm[n]);
        }
    }
    return dnnl_success;
}

// (a - zero_point) @ b exactly, a (M, K) uint8/int8 row-major, b (K, N) int8 (bf: its float32
// copy when the caller keeps one, else converted here).
dnnl_status_t exact_int8_matmul(const void* a, bool u8, int32_t zp, const int8_t* b, const float* bf, int32_t* acc,
                                int64_t M, int64_t N, int64_t K) {
    std::vector<float> af(static_cast<size_t>(M * K)), own;
    if (u8) {
        const uint8_t* p = static_cast<const uint8_t*>(a);
        for (int64_t i = 0; i < M * K; ++i) af[i] = static_cast<float>(static_cast<int32_t>(p[i]) - zp);
    } else {
        const int8_t* p = static_cast<const int8_t*>(a);
        for (int64_t i = 0; i < M * K; ++i) af[i] = static_cast<float>(static_cast<int32_t>(p[i]) - zp);
    }
    if (!bf) {
        own.assign(b, b + K * N);
        bf = own.data();
    }
    return exact_int_gemm(af.data(), K, bf, N, acc, N, M, N, K);
}

// --- matmul -----------------------------------------------------------------------------------------

py::array int8_matmul(py::array a, py::array b, int a_zero_point, std::optional<farr> scale,
                      std::optional<farr> bias, bool relu, std::optional<float> y_scale, int y_zero_point,
                      const std::string& y_dtype) {
    const char* op = "int8_matmul";
    check_int8(a, op, "a", true);
    check_int8(b, op, "b", false);
    if (a.ndim() != 2 || b.ndim() != 2) throw std::invalid_argument("int8_matmul: a (M, K) and b (K, N) must be 2-D");
    const int64_t M = a.shape(0), K = a.shape(1), N = b.shape(1);
    if (b.shape(0) != K)
        throw std::invalid_argument("int8_matmul: inner dimensions differ (" + std::to_string(K) + " vs " +
                                    std::to_string(b.shape(0)) + ")");
    const bool u8 = is_u8(a);
    check_zp(a_zero_point, u8, op, "a_zero_point");
    Epilogue e = make_epilogue(scale, bias, relu, y_scale, y_zero_point, y_dtype, N, op);
    py::array out = alloc_out(e, {M, N});
    const void* pa = a.data();
    const int8_t* pb = static_cast<const int8_t*>(b.data());
    {
        py::gil_scoped_release nogil;
        std::vector<int32_t> tmp;
        int32_t* acc = e.out == 0 ? static_cast<int32_t*>(out.mutable_data()) : (tmp.resize(M * N), tmp.data());
        if (M * N == 0) return out;
        dnnl_status_t st;
        const int32_t co = 0;
        GemmTeam team(M * N * K);
        if (K == 0) {
            std::fill(acc, acc + M * N, 0);
            st = dnnl_success;
        } else if (!int8_on_vnni()) {
            st = exact_int8_matmul(pa, u8, a_zero_point, pb, nullptr, acc, M, N, K);
        } else if (u8) {
            st = dnnl_gemm_u8s8s32('N', 'N', 'F', M, N, K, 1.0f, static_cast<const uint8_t*>(pa), K,
                                   static_cast<uint8_t>(a_zero_point), pb, N, 0, 0.0f, acc, N, &co);
        } else {
            st = dnnl_gemm_s8s8s32('N', 'N', 'F', M, N, K, 1.0f, static_cast<const int8_t*>(pa), K,
                                   static_cast<int8_t>(a_zero_point), pb, N, 0, 0.0f, acc, N, &co);
        }
        if (st != dnnl_success) {
            py::gil_scoped_acquire g;
            throw std::runtime_error("int8_matmul: oneDNN failed (status " + std::to_string(st) + ")");
        }
        if (e.out != 0) run_epilogue(acc, out, M, N, 0, e);
    }
    return out;
}

// int8_matmul with the weights and the epilogue fixed once: the planned-run form (one argument
// conversion per call instead of nine).
class Int8MatMul {
public:
    Int8MatMul(py::array b, int a_zero_point, bool a_uint8, std::optional<farr> scale, std::optional<farr> bias,
               bool relu, std::optional<float> y_scale, int y_zero_point, const std::string& y_dtype)
        : b_(b), zp_(a_zero_point), u8_(a_uint8) {
        check_int8(b, "Int8MatMul", "b", false);
        if (b.ndim() != 2) throw std::invalid_argument("Int8MatMul: b must be (K, N)");
        check_zp(zp_, u8_, "Int8MatMul", "a_zero_point");
        ep_ = make_epilogue(scale, bias, relu, y_scale, y_zero_point, y_dtype, b.shape(1), "Int8MatMul");
        if (!int8_on_vnni()) {  // the exact path's float32 copy of b, made once
            const int8_t* p = static_cast<const int8_t*>(b.data());
            bf_.assign(p, p + b.size());
        }
    }

    void run(py::array a, py::array out) {
        const char* op = "Int8MatMul.run";
        check_int8(a, op, "a", true);
        const int64_t K = b_.shape(0), N = b_.shape(1);
        if (is_u8(a) != u8_ || a.ndim() < 1 || a.shape(a.ndim() - 1) != K)
            throw std::invalid_argument("Int8MatMul.run: a must be " + std::string(u8_ ? "uint8" : "int8") +
                                        " with last dimension " + std::to_string(K));
        const int64_t M = K ? a.size() / K : 0;
        check_out(out, ep_, M * N, op);
        const void* pa = a.data();
        const int8_t* pb = static_cast<const int8_t*>(b_.data());
        py::gil_scoped_release nogil;
        int32_t* acc;
        std::vector<int32_t> tmp;
        if (ep_.out == 0) {
            acc = static_cast<int32_t*>(out.mutable_data());
        } else {
            tmp.resize(M * N);
            acc = tmp.data();
        }
        if (M * N == 0) return;
        const int32_t co = 0;
        dnnl_status_t st = dnnl_success;
        {
            GemmTeam team(M * N * K);
            if (K == 0) std::fill(acc, acc + M * N, 0);
            else if (!int8_on_vnni()) st = exact_int8_matmul(pa, u8_, zp_, pb, weights_f32(), acc, M, N, K);
            else if (u8_) st = dnnl_gemm_u8s8s32('N', 'N', 'F', M, N, K, 1.0f, static_cast<const uint8_t*>(pa), K,
                                                 static_cast<uint8_t>(zp_), pb, N, 0, 0.0f, acc, N, &co);
            else st = dnnl_gemm_s8s8s32('N', 'N', 'F', M, N, K, 1.0f, static_cast<const int8_t*>(pa), K,
                                        static_cast<int8_t>(zp_), pb, N, 0, 0.0f, acc, N, &co);
        }
        if (st != dnnl_success) {
            py::gil_scoped_acquire g;
            throw std::runtime_error("Int8MatMul: oneDNN failed (status " + std::to_string(st) + ")");
        }
        if (ep_.out != 0) run_epilogue(acc, out, M, N, 0, ep_);
    }

private:
    const float* weights_f32() const { return bf_.data(); }

    py::array b_;
    int zp_;
    bool u8_;
    Epilogue ep_;
    std::vector<float> bf_;  // b in float32 where the products run exactly through float32
};

// --- convolution -------------------------------------------------------------------------------------

// A convolution with fixed s8 weights and geometry; primitives and reordered weights are cached per
// input shape inside the object (the weights are reordered once per shape, never per call).
class Int8Conv2d {
public:
    Int8Conv2d(py::array w, bool x_u8, int x_zero_point, std::vector<int64_t> strides, std::vector<int64_t> pads,
               std::vector<int64_t> dilations, int64_t groups)
        : x_u8_(x_u8), zp_(x_zero_point), strides_(std::move(strides)), pads_(std::move(pads)),
          dil_(std::move(dilations)), groups_(groups) {
        const char* op = "Int8Conv2d";
        check_int8(w, op, "weight", false);
        if (w.ndim() != 4) throw std::invalid_argument("Int8Conv2d: weight must be (O, I/groups, kH, kW)");
        if (strides_.size() != 2 || dil_.size() != 2 || pads_.size() != 4)
            throw std::invalid_argument("Int8Conv2d: strides (2), pads (top, left, bottom, right) and dilations (2) expected");
        if (groups_ < 1 || w.shape(0) % groups_)
            throw std::invalid_argument("Int8Conv2d: groups must divide the output channels");
        for (int i = 0; i < 2; ++i)
            if (strides_[i] < 1 || dil_[i] < 1) throw std::invalid_argument("Int8Conv2d: strides and dilations must be >= 1");
        for (auto p : pads_)
            if (p < 0) throw std::invalid_argument("Int8Conv2d: pads must be >= 0");
        check_zp(zp_, x_u8_, op, "x_zero_point");
        for (int i = 0; i < 4; ++i) wshape_[i] = w.shape(i);
        const int8_t* p = static_cast<const int8_t*>(w.data());
        w_.assign(p, p + w.size());
    }

    py::array call(py::array x, std::optional<farr> scale, std::optional<farr> bias, bool relu,
                   std::optional<float> y_scale, int y_zero_point, const std::string& y_dtype) {
        const char* op = "Int8Conv2d";
        check_int8(x, op, "x", true);
        if (is_u8(x) != x_u8_)
            throw std::invalid_argument(std::string("Int8Conv2d: x must be ") + (x_u8_ ? "uint8" : "int8") +
                                        " (the dtype the conv was built for)");
        if (x.ndim() != 4) throw std::invalid_argument("Int8Conv2d: x must be (N, C, H, W)");
        const int64_t N = x.shape(0), C = x.shape(1), H = x.shape(2), W = x.shape(3);
        const int64_t O = wshape_[0], kh = wshape_[2], kw = wshape_[3];
        if (C != wshape_[1] * groups_)
            throw std::invalid_argument("Int8Conv2d: x has " + std::to_string(C) + " channels, the weight expects " +
                                        std::to_string(wshape_[1] * groups_));
        const int64_t OH = (H + pads_[0] + pads_[2] - dil_[0] * (kh - 1) - 1) / strides_[0] + 1;
        const int64_t OW = (W + pads_[1] + pads_[3] - dil_[1] * (kw - 1) - 1) / strides_[1] + 1;
        if (OH < 1 || OW < 1) throw std::invalid_argument("Int8Conv2d: the kernel is larger than the padded input");
        Epilogue e = make_epilogue(scale, bias, relu, y_scale, y_zero_point, y_dtype, O, op);
        py::array out = alloc_out(e, {N, O, OH, OW});
        exec(x.data(), N, C, H, W, OH, OW, O, out, e);
        return out;
    }

    void exec(const void* px, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t O,
              py::array& out, const Epilogue& e) {
        {
            py::gil_scoped_release nogil;
            // one caller at a time per conv: the shape cache (and its entries) is not shared-safe
            std::lock_guard<std::mutex> lock(mu_);
            if (!int8_on_vnni()) {
                std::vector<int32_t> acc(static_cast<size_t>(N * OH * OW * O));
                exact_conv(px, N, C, H, W, OH, OW, acc.data());
                run_epilogue(acc.data(), out, N * OH * OW, O, OH * OW, e);
                return;
            }
            Entry& en = entry(N, C, H, W, OH, OW);
            dnnl::engine& eng = i8_engine();
            dnnl::stream s(eng);
            const dt sdt = x_u8_ ? dt::u8 : dt::s8;
            dnnl::memory user_src({{N, C, H, W}, sdt, tag::nchw}, eng, const_cast<void*>(px));
            dnnl::memory src = user_src;
            if (en.pd.src_desc() != user_src.get_desc()) {
                src = dnnl::memory(en.pd.src_desc(), eng);
                dnnl::reorder(user_src, src).execute(s, user_src, src);
            }
            dnnl::memory dst(en.pd.dst_desc(), eng);
            std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, en.weights}, {DNNL_ARG_DST, dst}};
            int32_t zp = zp_;
            dnnl::memory zpm({{1}, dt::s32, tag::x}, eng, &zp);
            if (zp_) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = zpm;
            en.prim.execute(s, args);
            s.wait();
            run_epilogue(static_cast<const int32_t*>(dst.get_data_handle()), out, N * OH * OW, O, OH * OW, e);
        }
    }

    // The planned-run form: the epilogue fixed once (set_epilogue), the result written into `out`.
    void set_epilogue(std::optional<farr> scale, std::optional<farr> bias, bool relu, std::optional<float> y_scale,
                      int y_zero_point, const std::string& y_dtype) {
        ep_ = make_epilogue(scale, bias, relu, y_scale, y_zero_point, y_dtype, wshape_[0], "Int8Conv2d");
    }

    void run(py::array x, py::array out) {
        const char* op = "Int8Conv2d.run";
        check_int8(x, op, "x", true);
        if (is_u8(x) != x_u8_ || x.ndim() != 4 || x.shape(1) != wshape_[1] * groups_)
            throw std::invalid_argument("Int8Conv2d.run: x does not match the conv (dtype, NCHW, channels)");
        const int64_t N = x.shape(0), C = x.shape(1), H = x.shape(2), W = x.shape(3);
        const int64_t O = wshape_[0], kh = wshape_[2], kw = wshape_[3];
        const int64_t OH = (H + pads_[0] + pads_[2] - dil_[0] * (kh - 1) - 1) / strides_[0] + 1;
        const int64_t OW = (W + pads_[1] + pads_[3] - dil_[1] * (kw - 1) - 1) / strides_[1] + 1;
        check_out(out, ep_, N * O * OH * OW, op);
        exec(x.data(), N, C, H, W, OH, OW, O, out, ep_);
    }

    std::string impl(int64_t N, int64_t C, int64_t H, int64_t W) {
        if (!int8_on_vnni()) return "spore:exact_f32_im2col";
        std::lock_guard<std::mutex> lock(mu_);
        const int64_t kh = wshape_[2], kw = wshape_[3];
        const int64_t OH = (H + pads_[0] + pads_[2] - dil_[0] * (kh - 1) - 1) / strides_[0] + 1;
        const int64_t OW = (W + pads_[1] + pads_[3] - dil_[1] * (kw - 1) - 1) / strides_[1] + 1;
        return entry(N, C, H, W, OH, OW).pd.impl_info_str();
    }

private:
    // The exact path (no VNNI): per image and group, im2col rows of (x - zero point) in float32, 0 in
    // the padding (a padded pixel is the zero point, as oneDNN's compensation and ONNX define it),
    // times the float32 weights, through exact_int_gemm; acc is NHWC as oneDNN's s32 output.
    void exact_conv(const void* px, int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW,
                    int32_t* acc) {
        const int64_t O = wshape_[0], G = groups_, Cg = wshape_[1], kh = wshape_[2], kw = wshape_[3];
        const int64_t Og = O / G, K = Cg * kh * kw, P = OH * OW;
        if (wf_.empty()) {  // per group, (K, Og): column o of group g is output channel g * Og + o
            wf_.resize(static_cast<size_t>(G * K * Og));
            for (int64_t g = 0; g < G; ++g)
                for (int64_t o = 0; o < Og; ++o)
                    for (int64_t k = 0; k < K; ++k) wf_[(g * K + k) * Og + o] = w_[(g * Og + o) * K + k];
        }
        constexpr int64_t kRows = 1024;  // output pixels per im2col block
        std::vector<float> col(static_cast<size_t>(std::min(P, kRows) * K));
        const uint8_t* xu = static_cast<const uint8_t*>(px);
        const int8_t* xs = static_cast<const int8_t*>(px);
        for (int64_t n = 0; n < N; ++n)
            for (int64_t g = 0; g < G; ++g)
                for (int64_t p0 = 0; p0 < P; p0 += kRows) {
                    const int64_t rows = std::min(kRows, P - p0);
                    for (int64_t r = 0; r < rows; ++r) {
                        const int64_t oh = (p0 + r) / OW, ow = (p0 + r) % OW;
                        float* row = col.data() + r * K;
                        for (int64_t c = 0; c < Cg; ++c) {
                            const int64_t plane = (n * C + g * Cg + c) * H * W;
                            for (int64_t i = 0; i < kh; ++i) {
                                const int64_t ih = oh * strides_[0] - pads_[0] + i * dil_[0];
                                for (int64_t j = 0; j < kw; ++j) {
                                    const int64_t iw = ow * strides_[1] - pads_[1] + j * dil_[1];
                                    float v = 0.0f;
                                    if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
                                        const int64_t at = plane + ih * W + iw;
                                        v = static_cast<float>((x_u8_ ? int32_t(xu[at]) : int32_t(xs[at])) - zp_);
                                    }
                                    row[(c * kh + i) * kw + j] = v;
                                }
                            }
                        }
                    }
                    if (exact_int_gemm(col.data(), K, wf_.data() + g * K * Og, Og, acc + (n * P + p0) * O + g * Og,
                                       O, rows, Og, K) != dnnl_success)
                        throw std::runtime_error("Int8Conv2d: oneDNN's sgemm failed");
                }
    }

    struct Entry {
        dnnl::convolution_forward::primitive_desc pd;
        dnnl::convolution_forward prim;
        dnnl::memory weights;
    };

    Entry& entry(int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW) {
        std::vector<int64_t> key{N, C, H, W};
        auto it = cache_.find(key);
        if (it != cache_.end()) return *it->second;
        if (cache_.size() >= 16) cache_.clear();
        dnnl::engine& eng = i8_engine();
        const int64_t O = wshape_[0], G = groups_;
        const dt sdt = x_u8_ ? dt::u8 : dt::s8;
        dnnl::memory::desc src_md({N, C, H, W}, sdt, tag::nhwc);
        dnnl::memory::desc dst_md({N, O, OH, OW}, dt::s32, tag::nhwc);
        dnnl::memory::dims wdims = G == 1 ? dnnl::memory::dims{O, wshape_[1], wshape_[2], wshape_[3]}
                                          : dnnl::memory::dims{G, O / G, wshape_[1], wshape_[2], wshape_[3]};
        dnnl::memory::desc w_any(wdims, dt::s8, tag::any);
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          src_md, w_any, dst_md, {strides_[0], strides_[1]},
                                          {dil_[0] - 1, dil_[1] - 1}, {pads_[0], pads_[1]}, {pads_[2], pads_[3]});
        dnnl::primitive_attr attr;
        if (zp_) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
        dnnl::memory user_w({wdims, dt::s8, G == 1 ? tag::oihw : tag::goihw}, eng, w_.data());
        dnnl::memory wm = user_w;
        if (pd.weights_desc() != user_w.get_desc()) {
            wm = dnnl::memory(pd.weights_desc(), eng);
            dnnl::stream s(eng);
            dnnl::reorder(user_w, wm).execute(s, user_w, wm);
            s.wait();
        }
        auto en = std::make_unique<Entry>(Entry{pd, dnnl::convolution_forward(pd), wm});
        return *cache_.emplace(key, std::move(en)).first->second;
    }

    bool x_u8_;
    int zp_;
    std::vector<int64_t> strides_, pads_, dil_;
    int64_t groups_;
    int64_t wshape_[4]{};
    std::vector<int8_t> w_;
    std::vector<float> wf_;  // the exact path's float32 weights, per group (K, O / groups)
    Epilogue ep_;
    std::mutex mu_;
    std::map<std::vector<int64_t>, std::unique_ptr<Entry>> cache_;
};

// --- quantize / dequantize ----------------------------------------------------------------------------

template <typename Q>
void quantize_typed(const float* x, Q* y, int64_t n, float s, float z, float lo, float hi) {
    constexpr int64_t kChunk = int64_t{1} << 16;
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    parallel_for(chunks, 2 * n, [&](int64_t k0, int64_t k1) {
        for (int64_t k = k0; k < k1; ++k)
            quantize_span(x + k * kChunk, y + k * kChunk, std::min(kChunk, n - k * kChunk), s, z, lo, hi);
    });
}

py::array quantize_linear(farr x, float scale, int zero_point, const std::string& dtype, std::optional<py::array> out) {
    if (!(scale > 0.0f) || !std::isfinite(scale)) throw std::invalid_argument("quantize_linear: scale must be a finite number > 0");
    const bool u8 = dtype == "uint8";
    if (!u8 && dtype != "int8") throw std::invalid_argument("quantize_linear: dtype must be 'uint8' or 'int8', got '" + dtype + "'");
    check_zp(zero_point, u8, "quantize_linear", "zero_point");
    py::array y;
    if (out) {
        y = *out;
        if ((u8 ? !is_u8(y) : !is_s8(y)) || y.size() != x.size() || !(y.flags() & py::array::c_style) || !y.writeable())
            throw std::invalid_argument("quantize_linear: out must be a writable C-contiguous " + dtype + " array of x's size");
    } else {
        std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
        y = u8 ? py::array(py::array_t<uint8_t>(shape)) : py::array(py::array_t<int8_t>(shape));
    }
    const float* px = x.data();
    void* py_ = y.mutable_data();
    const int64_t n = x.size();
    {
        py::gil_scoped_release nogil;
        if (u8) quantize_typed(px, static_cast<uint8_t*>(py_), n, scale, float(zero_point), 0.0f, 255.0f);
        else quantize_typed(px, static_cast<int8_t*>(py_), n, scale, float(zero_point), -128.0f, 127.0f);
    }
    return y;
}

template <typename Q>
void dequantize_typed(const Q* x, float* y, int64_t n, float s, int32_t z) {
    parallel_for(n, 2 * n, [&](int64_t i0, int64_t i1) {
#pragma omp simd
        for (int64_t i = i0; i < i1; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - z) * s;
    });
}

py::array dequantize_linear(py::array x, float scale, int zero_point, std::optional<py::array> out) {
    if (!(x.flags() & py::array::c_style)) throw std::invalid_argument("dequantize_linear: x must be C-contiguous");
    const bool u8 = is_u8(x), s8 = is_s8(x), s32 = x.dtype().is(py::dtype::of<int32_t>());
    if (!(u8 || s8 || s32))
        throw std::invalid_argument("dequantize_linear: x must be uint8, int8 or int32, got " + std::string(py::str(x.dtype())));
    if (s32 && zero_point != 0) throw std::invalid_argument("dequantize_linear: int32 input takes zero_point 0 (ONNX)");
    if (!s32) check_zp(zero_point, u8, "dequantize_linear", "zero_point");
    py::array y;
    if (out) {
        y = *out;
        if (!y.dtype().is(py::dtype::of<float>()) || y.size() != x.size() || !(y.flags() & py::array::c_style) || !y.writeable())
            throw std::invalid_argument("dequantize_linear: out must be a writable C-contiguous float32 array of x's size");
    } else {
        y = py::array_t<float>(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    }
    const void* px = x.data();
    float* py_ = static_cast<float*>(y.mutable_data());
    const int64_t n = x.size();
    {
        py::gil_scoped_release nogil;
        if (u8) dequantize_typed(static_cast<const uint8_t*>(px), py_, n, scale, zero_point);
        else if (s8) dequantize_typed(static_cast<const int8_t*>(px), py_, n, scale, zero_point);
        else dequantize_typed(static_cast<const int32_t*>(px), py_, n, scale, 0);
    }
    return y;
}

// DequantizeLinear(QuantizeLinear(x)) in one pass, no int8 intermediate: a QDQ graph quantizes every
// elementwise op's inputs and outputs (an LSTM cell has hundreds of such pairs), so the pair, not the
// integer GEMM, dominates its time.
py::array quantize_dequantize(farr x, float scale, int zero_point, const std::string& dtype, std::optional<py::array> out) {
    if (!(scale > 0.0f) || !std::isfinite(scale)) throw std::invalid_argument("quantize_dequantize: scale must be a finite number > 0");
    const bool u8 = dtype == "uint8";
    if (!u8 && dtype != "int8") throw std::invalid_argument("quantize_dequantize: dtype must be 'uint8' or 'int8', got '" + dtype + "'");
    check_zp(zero_point, u8, "quantize_dequantize", "zero_point");
    py::array y;
    if (out) {
        y = *out;
        if (!y.dtype().is(py::dtype::of<float>()) || y.size() != x.size() || !(y.flags() & py::array::c_style) || !y.writeable())
            throw std::invalid_argument("quantize_dequantize: out must be a writable C-contiguous float32 array of x's size");
    } else {
        y = py::array_t<float>(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    }
    const float* px = x.data();
    float* py_ = static_cast<float*>(y.mutable_data());
    const int64_t n = x.size();
    const float z = float(zero_point), lo = u8 ? 0.0f : -128.0f, hi = u8 ? 255.0f : 127.0f;
    {
        py::gil_scoped_release nogil;
        int64_t i = 0;
#ifdef __AVX512F__
        const __m512 vs = _mm512_set1_ps(scale), vz = _mm512_set1_ps(z), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
        for (; i + 16 <= n; i += 16) {
            __m512 v = _mm512_div_ps(_mm512_loadu_ps(px + i), vs);
            v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            v = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, vz), vlo), vhi);
            _mm512_storeu_ps(py_ + i, _mm512_mul_ps(_mm512_sub_ps(v, vz), vs));
        }
#endif
        for (; i < n; ++i) {
            float q = std::min(std::max(__builtin_rintf(px[i] / scale) + z, lo), hi);
            py_[i] = (q - z) * scale;
        }
    }
    return y;
}

}  // namespace

void register_int8(py::module_& m) {
    using namespace pybind11::literals;
    m.def("int8_matmul", &int8_matmul,
          "a"_a, "b"_a, "a_zero_point"_a = 0, "scale"_a = py::none(), "bias"_a = py::none(), "relu"_a = false,
          "y_scale"_a = py::none(), "y_zero_point"_a = 0, "y_dtype"_a = "uint8",
          "(a - a_zero_point) @ b with a uint8/int8 (M, K), b int8 (K, N), int32 accumulation (oneDNN). "
          "Without scale: the int32 product. With scale (1 or N floats) [+ bias (N)] [+ relu]: float32 "
          "acc * scale + bias. With y_scale too: requantized to y_dtype, saturate(rint(y / y_scale) + y_zero_point).");
    py::class_<Int8Conv2d>(m, "Int8Conv2d",
                           "int8 conv2d with fixed int8 weights (O, I/groups, kH, kW); oneDNN primitives and reordered "
                           "weights cached per input shape. pads = (top, left, bottom, right).")
        .def(py::init<py::array, bool, int, std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>, int64_t>(),
             "weight"_a, "x_uint8"_a, "x_zero_point"_a = 0, "strides"_a = std::vector<int64_t>{1, 1},
             "pads"_a = std::vector<int64_t>{0, 0, 0, 0}, "dilations"_a = std::vector<int64_t>{1, 1}, "groups"_a = 1)
        .def("__call__", &Int8Conv2d::call, "x"_a, "scale"_a = py::none(), "bias"_a = py::none(), "relu"_a = false,
             "y_scale"_a = py::none(), "y_zero_point"_a = 0, "y_dtype"_a = "uint8",
             "x (N, C, H, W) uint8/int8 -> int32 accumulators, or float32 / requantized as int8_matmul's epilogue")
        .def("set_epilogue", &Int8Conv2d::set_epilogue, "scale"_a = py::none(), "bias"_a = py::none(),
             "relu"_a = false, "y_scale"_a = py::none(), "y_zero_point"_a = 0, "y_dtype"_a = "uint8",
             "fix the epilogue run() applies (default: int32 accumulators)")
        .def("run", &Int8Conv2d::run, "x"_a, "out"_a, "x -> out (NCHW, the set_epilogue dtype), no allocation of out")
        .def("impl", &Int8Conv2d::impl, "n"_a, "c"_a, "h"_a, "w"_a, "oneDNN's implementation name for this input shape");
    py::class_<Int8MatMul>(m, "Int8MatMul",
                           "int8_matmul with b (K, N) int8 and the epilogue fixed at construction; run(a, out) "
                           "takes a (..., K) and writes out (..., N)")
        .def(py::init<py::array, int, bool, std::optional<farr>, std::optional<farr>, bool, std::optional<float>, int,
                      const std::string&>(),
             "b"_a, "a_zero_point"_a = 0, "a_uint8"_a = true, "scale"_a = py::none(), "bias"_a = py::none(),
             "relu"_a = false, "y_scale"_a = py::none(), "y_zero_point"_a = 0, "y_dtype"_a = "uint8")
        .def("run", &Int8MatMul::run, "a"_a, "out"_a);
    m.def("int8_on_vnni", &int8_on_vnni,
          "whether the int8 kernels run on oneDNN's VNNI kernels here (exact int32 accumulation); without "
          "VNNI oneDNN's int8 products saturate, and the kernels compute them exactly through float32 instead");
    m.def("quantize_linear", &quantize_linear, "x"_a, "scale"_a, "zero_point"_a = 0, "dtype"_a = "uint8",
          "out"_a = py::none(),
          "ONNX QuantizeLinear, per tensor: saturate(rint(x / scale) + zero_point), round half to even");
    m.def("quantize_dequantize", &quantize_dequantize, "x"_a, "scale"_a, "zero_point"_a = 0, "dtype"_a = "uint8",
          "out"_a = py::none(),
          "DequantizeLinear(QuantizeLinear(x)) per tensor in one pass: float32(saturate(rint(x / s) + z) - z) * s");
    m.def("dequantize_linear", &dequantize_linear, "x"_a, "scale"_a, "zero_point"_a = 0, "out"_a = py::none(),
          "ONNX DequantizeLinear, per tensor: float32(x - zero_point) * scale (x uint8/int8/int32)");
}

}  // namespace spore
