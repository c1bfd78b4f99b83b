// Matrix multiply through oneDNN's sgemm (the tuned GEMM that MindSpore's and PyTorch's CPU
// backends also use). Row-major: C[M,N] = op(A) @ op(B).
//
// MatMul/BatchMatMul route float32 here (spore/ops/linalg.py): at one thread on the MLP and CNN
// shapes it beats NumPy's OpenBLAS by 1.1-3x (numbers in the H2a report); below ~1e5 multiply-adds
// NumPy's lower call overhead wins and the Python side keeps those. Above the GEMM grain the product
// is split in output tiles over the team (team_gemm.h), the same bits for any team size.
//
// bf16_matmul: bfloat16 operands, float32 result, through oneDNN's matmul primitive (its brgemm
// kernels use AVX512-BF16 / AMX where the CPU has them; `cpu_isa()` says which ISA oneDNN runs on and
// the result's implementation name is in `bf16_matmul_impl`). oneDNN 2.6 has no bf16 gemm in its C
// API, hence the primitive, cached per shape like the conv entries.
#include <dnnl.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <dnnl.hpp>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "grain.h"
#include "kernels.h"
#include "lowp16.h"
#include "team_gemm.h"

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
        st = team_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, 1.0f, pa, lda, pb, ldb, 0.0f, pc, N);
    }
    if (st != dnnl_success) throw std::runtime_error("sgemm: oneDNN failed");
    return c;
}

namespace {

using u16arr = py::array_t<uint16_t, py::array::c_style | py::array::forcecast>;

struct Bf16Entry {
    dnnl::matmul prim;
    std::string impl;
};

dnnl::engine& bf16_engine() {
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

// One primitive per (M, K, N, transposes, leading dimensions, threads): building one costs far more
// than running it on Spore's shapes. thread_local, like the conv cache, so two Python threads never
// share an entry. The leading dimensions are those of the whole operands a tile is cut from (0 = the
// tile's own: a dense matrix); C is always dense (a tile's C writes into strided rows of the whole
// output ran 15% slower, so column tiles go through scratch).
Bf16Entry& bf16_entry(int64_t M, int64_t K, int64_t N, bool ta, bool tb, bool dst_bf16 = false, int64_t lda = 0,
                      int64_t ldb = 0) {
    thread_local std::map<std::vector<int64_t>, Bf16Entry> cache;
    lda = lda ? lda : (ta ? M : K), ldb = ldb ? ldb : (tb ? K : N);
    std::vector<int64_t> key{M, K, N, ta, tb, dst_bf16, lda, ldb, omp_get_max_threads()};
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    if (cache.size() >= 64) cache.clear();
    using dt = dnnl::memory::data_type;
    const dnnl::memory::desc a({M, K}, dt::bf16, ta ? dnnl::memory::dims{1, lda} : dnnl::memory::dims{lda, 1});
    const dnnl::memory::desc b({K, N}, dt::bf16, tb ? dnnl::memory::dims{1, ldb} : dnnl::memory::dims{ldb, 1});
    const dnnl::memory::desc c({M, N}, dst_bf16 ? dt::bf16 : dt::f32, dnnl::memory::dims{N, 1});
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), bf16_engine());
    return cache.emplace(key, Bf16Entry{dnnl::matmul(pd), pd.impl_info_str()}).first->second;
}

// C = op(A) @ op(B), float32 accumulation; C in float32 (dst_bf16 false) or rounded once to bfloat16
// by oneDNN (round to nearest even, as ml_dtypes' astype) - the latter saves a conversion pass.
//
// Above the GEMM grain the output is cut into the tiles team_sgemm uses (gemm_tile, along the longer
// of M and N), each one single-threaded oneDNN matmul on a view of the operands, handed to the team
// one at a time - for the same reasons: oneDNN's own split waits for a thread whose core another
// process holds, and fixed tiles give the same bits at any team size.
// Whether oneDNN builds bf16 matmuls on this CPU: it has none without AVX512 (it refuses the
// primitive), and there the kernels below compute as sgemm16 does instead.
bool bf16_matmul_available() {
    static const bool ok = [] {
        try {
            bf16_entry(16, 16, 16, false, false);
            return true;
        } catch (const dnnl::error&) {
            return false;
        }
    }();
    return ok;
}

py::array sgemm16(u16arr a, u16arr b, bool trans_a, bool trans_b, bool bf16, bool narrow_out);

template <typename Out>
py::array_t<Out> bf16_matmul_t(u16arr a, u16arr b, bool trans_a, bool trans_b) {
    constexpr bool dst_bf16 = std::is_same<Out, uint16_t>::value;
    if (a.ndim() != 2 || b.ndim() != 2) throw std::invalid_argument("bf16_matmul: 2-D inputs expected");
    if (!bf16_matmul_available())  // float32 accumulation of the widened operands, rounded once (or not)
        return sgemm16(a, b, trans_a, trans_b, true, dst_bf16).template cast<py::array_t<Out>>();
    const int64_t M = trans_a ? a.shape(1) : a.shape(0), K = trans_a ? a.shape(0) : a.shape(1);
    const int64_t Kb = trans_b ? b.shape(1) : b.shape(0), N = trans_b ? b.shape(0) : b.shape(1);
    if (K != Kb) throw std::invalid_argument("bf16_matmul: inner dimensions differ");
    py::array_t<Out> c({M, N});
    const uint16_t* pa = a.data();
    const uint16_t* pb = b.data();
    Out* pc = c.mutable_data();
    {
        py::gil_scoped_release nogil;
        if (M * N == 0) return c;
        if (K == 0) {
            std::fill(pc, pc + M * N, Out(0));  // +0.0 in both encodings
            return c;
        }
        using dt = dnnl::memory::data_type;
        const int64_t lda = a.shape(1), ldb = b.shape(1);
        // rows [r0, r0 + m) and columns [c0, c0 + n) of C, on this thread's primitive for that block
        const auto block = [&](int64_t r0, int64_t m, int64_t c0, int64_t n) {
            const bool whole = n == N;  // a row block writes C in place; a column block goes through scratch
            Bf16Entry& e = bf16_entry(m, K, n, trans_a, trans_b, dst_bf16, lda, ldb);
            thread_local std::vector<Out> scratch;
            if (!whole && scratch.size() < static_cast<size_t>(m * n)) scratch.resize(static_cast<size_t>(m * n));
            Out* dst = whole ? pc + r0 * N : scratch.data();
            dnnl::stream s(bf16_engine());
            const void* ta = trans_a ? pa + r0 : pa + r0 * lda;
            const void* tb = trans_b ? pb + c0 * ldb : pb + c0;
            dnnl::memory ma({{m, K}, dt::bf16, trans_a ? dnnl::memory::dims{1, lda} : dnnl::memory::dims{lda, 1}},
                            bf16_engine(), const_cast<void*>(ta));
            dnnl::memory mb({{K, n}, dt::bf16, trans_b ? dnnl::memory::dims{1, ldb} : dnnl::memory::dims{ldb, 1}},
                            bf16_engine(), const_cast<void*>(tb));
            dnnl::memory mc({{m, n}, dst_bf16 ? dt::bf16 : dt::f32, dnnl::memory::dims{n, 1}}, bf16_engine(), dst);
            e.prim.execute(s, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
            s.wait();
            if (!whole)
                for (int64_t i = 0; i < m; ++i) std::memcpy(pc + (r0 + i) * N + c0, dst + i * n, n * sizeof(Out));
        };
        if (M * N * K < kGemmGrain) {
            GemmTeam team(M * N * K);
            block(0, M, 0, N);
            return c;
        }
        const bool split_n = N > M;
        const int64_t dim = split_n ? N : M, tile = gemm_tile(dim), tiles = (dim + tile - 1) / tile;
        const auto run = [&](int64_t t) {
            const int64_t lo = t * tile, w = std::min(tile, dim - lo);
            if (split_n)
                block(0, M, lo, w);
            else
                block(lo, w, 0, N);
        };
        const int saved = omp_get_max_threads();
        omp_set_num_threads(1);  // each tile's primitive is built for, and keyed by, one thread
        std::exception_ptr err;
        if (saved == 1 || tiles == 1) {
            try {
                for (int64_t t = 0; t < tiles; ++t) run(t);
            } catch (...) {
                err = std::current_exception();
            }
        } else {
            std::mutex mu;
#pragma omp parallel for schedule(dynamic, 1) num_threads(saved)
            for (int64_t t = 0; t < tiles; ++t) {
                try {
                    run(t);
                } catch (...) {
                    std::lock_guard<std::mutex> lock(mu);
                    if (!err) err = std::current_exception();
                }
            }
        }
        omp_set_num_threads(saved);
        if (err) std::rethrow_exception(err);
    }
    return c;
}

// float32 <-> bfloat16 conversions. ml_dtypes' astype runs ~1.3 ns per element on one core; an O2
// step of the 1024-4096-4096-10 net converts ~45M elements (weights forward, gradients back), which
// cost more than its bf16 GEMMs. Round to nearest even, NaN kept quiet with its sign (as ml_dtypes).
// Elementwise, so a team split changes no bit; below the grain (grain.h) one thread converts.

py::array_t<uint16_t> f32_to_bf16(farr x) {
    py::array_t<uint16_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    const uint32_t* src = reinterpret_cast<const uint32_t*>(x.data());
    uint16_t* dst = out.mutable_data();
    const int64_t n = x.size();
    py::gil_scoped_release nogil;
    parallel_for(n, 2 * n, [&](int64_t i0, int64_t i1) {
#pragma omp simd
        for (int64_t i = i0; i < i1; ++i) {
            const uint32_t u = src[i];
            const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
            const uint32_t nan = (u >> 16) | 0x40u;
            dst[i] = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
        }
    });
    return out;
}

py::array_t<float> bf16_to_f32(u16arr x) {
    py::array_t<float> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    const uint16_t* src = x.data();
    uint32_t* dst = reinterpret_cast<uint32_t*>(out.mutable_data());
    const int64_t n = x.size();
    py::gil_scoped_release nogil;
    parallel_for(n, 2 * n, [&](int64_t i0, int64_t i1) {
#pragma omp simd
        for (int64_t i = i0; i < i1; ++i) dst[i] = static_cast<uint32_t>(src[i]) << 16;
    });
    return out;
}

// float32 <-> float16 (IEEE half): NumPy's astype runs scalar here (~15 ns per element), which made
// O2-fp16 several times slower than O0. F16C's conversions round to nearest even like NumPy's.
py::array_t<uint16_t> f32_to_f16(farr x) {
    py::array_t<uint16_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    const float* src = x.data();
    uint16_t* dst = out.mutable_data();
    const int64_t n = x.size();
    py::gil_scoped_release nogil;
#if defined(__AVX512F__)
    const int64_t blocks = n / 16;
    parallel_for(blocks, 2 * n, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
            const __m512 v = _mm512_loadu_ps(src + b * 16);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + b * 16), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        }
    });
    for (int64_t i = blocks * 16; i < n; ++i) dst[i] = _cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
#else  // a build without AVX-512: GCC's _Float16 (nearest even as well)
    for (int64_t i = 0; i < n; ++i) {
        const _Float16 h = static_cast<_Float16>(src[i]);
        std::memcpy(dst + i, &h, 2);
    }
#endif
    return out;
}

py::array_t<float> f16_to_f32(u16arr x) {
    py::array_t<float> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
    const uint16_t* src = x.data();
    float* dst = out.mutable_data();
    const int64_t n = x.size();
    py::gil_scoped_release nogil;
#if defined(__AVX512F__)
    const int64_t blocks = n / 16;
    parallel_for(blocks, 2 * n, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + b * 16));
            _mm512_storeu_ps(dst + b * 16, _mm512_cvtph_ps(v));
        }
    });
    for (int64_t i = blocks * 16; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
#else
    for (int64_t i = 0; i < n; ++i) {
        _Float16 h;
        std::memcpy(&h, src + i, 2);
        dst[i] = static_cast<float>(h);
    }
#endif
    return out;
}

// op(A) @ op(B) for float16 / bfloat16 matrices (uint16 bits) computed as `sgemm` of their float32
// values: the operands widened into scratch, the same team_sgemm call as sgemm() on the widened
// arrays (same leading dimensions, so the same bits), the result float32 or rounded to 16 bits.
// Mixed precision's float16 GEMMs (spore/amp/lowp.py), where three conversions through NumPy
// arrays and their Python calls cost more than the conversions themselves on small layers.
py::array sgemm16(u16arr a, u16arr b, bool trans_a, bool trans_b, bool bf16, bool narrow_out) {
    if (a.ndim() != 2 || b.ndim() != 2) throw std::invalid_argument("sgemm16: 2-D inputs expected");
    const dnnl_dim_t M = trans_a ? a.shape(1) : a.shape(0), K = trans_a ? a.shape(0) : a.shape(1);
    const dnnl_dim_t Kb = trans_b ? b.shape(1) : b.shape(0), N = trans_b ? b.shape(0) : b.shape(1);
    if (K != Kb) throw std::invalid_argument("sgemm16: inner dimensions differ");
    py::array_t<float> c({M, N});
    py::array_t<uint16_t> h(narrow_out ? std::vector<py::ssize_t>{M, N} : std::vector<py::ssize_t>{0});
    const uint16_t *pa = a.data(), *pb = b.data();
    float* pc = c.mutable_data();
    uint16_t* ph = narrow_out ? h.mutable_data() : nullptr;
    const dnnl_dim_t lda = a.shape(1), ldb = b.shape(1);
    dnnl_status_t st = dnnl_success;
    {
        py::gil_scoped_release nogil;
        if (M * N > 0) {
            if (K == 0) {
                std::fill(pc, pc + M * N, 0.0f);
            } else {
                std::unique_ptr<float[]> own;
                float* a32 = lowp16::widen_scratch(a.size() + b.size(), own);
                float* b32 = a32 + a.size();
                lowp16::widen16(pa, a32, a.size(), bf16);
                lowp16::widen16(pb, b32, b.size(), bf16);
                st = team_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K, 1.0f, a32, lda, b32, ldb, 0.0f, pc, N);
            }
            if (ph) lowp16::narrow16(pc, ph, M * N, bf16);
        }
    }
    if (st != dnnl_success) throw std::runtime_error("sgemm16: oneDNN failed");
    if (narrow_out) return h;
    return c;
}

std::string cpu_isa_name() {
    using isa = dnnl::cpu_isa;
    switch (dnnl::get_effective_cpu_isa()) {
        case isa::avx512_core_amx: return "avx512_core_amx";
        case isa::avx512_core_bf16: return "avx512_core_bf16";
        case isa::avx512_core_vnni: return "avx512_core_vnni";
        case isa::avx512_core: return "avx512_core";
        case isa::avx2_vnni: return "avx2_vnni";
        case isa::avx2: return "avx2";
        case isa::avx: return "avx";
        case isa::sse41: return "sse41";
        default: return "other";
    }
}

}  // namespace

void register_gemm(py::module_& m) {
    m.def("f32_to_bf16", &f32_to_bf16, py::arg("x"),
          "bfloat16 bit patterns (uint16) of a float32 array, rounded to nearest even (OpenMP above 256K elements)");
    m.def("f32_to_f16", &f32_to_f16, py::arg("x"), "float16 bit patterns (uint16) of a float32 array (F16C, nearest even)");
    m.def("f16_to_f32", &f16_to_f32, py::arg("x"), "float32 values of float16 bit patterns (uint16), exact");
    m.def("bf16_to_f32", &bf16_to_f32, py::arg("x"), "float32 values of bfloat16 bit patterns (uint16), exact");
    m.def("bf16_matmul_bf16", &bf16_matmul_t<uint16_t>, py::arg("a"), py::arg("b"), py::arg("trans_a") = false,
          py::arg("trans_b") = false,
          "C (bfloat16 bits, rounded once from the float32 accumulation) = op(A) @ op(B) for bfloat16 matrices");
    m.def("bf16_matmul", &bf16_matmul_t<float>, py::arg("a"), py::arg("b"), py::arg("trans_a") = false,
          py::arg("trans_b") = false,
          "C (float32) = op(A) @ op(B) for bfloat16 matrices given as their uint16 bit patterns, via oneDNN matmul");
    m.def("bf16_matmul_impl", [](int64_t M, int64_t K, int64_t N, bool ta, bool tb) {
        return bf16_matmul_available() ? bf16_entry(M, K, N, ta, tb).impl : std::string("spore:sgemm16");
    }, py::arg("m"), py::arg("k"), py::arg("n"), py::arg("trans_a") = false, py::arg("trans_b") = false,
          "oneDNN's implementation name for a bf16 matmul of that shape (e.g. brg:avx512_core_bf16)");
    m.def("sgemm16", &sgemm16, py::arg("a"), py::arg("b"), py::arg("trans_a"), py::arg("trans_b"), py::arg("bf16"),
          py::arg("narrow_out"),
          "op(A) @ op(B) of float16/bfloat16 bit matrices as sgemm of their float32 values; float32 result,\n"
          "or rounded to the 16-bit format (narrow_out)");
    m.def("cpu_isa", &cpu_isa_name, "the instruction set oneDNN dispatches to on this CPU");
    m.def("dnnl_version", []() {
        const dnnl_version_t* v = dnnl_version();
        return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
    }, "oneDNN's runtime version");
    m.def("set_gemm_row_padding", [](bool on) { return gemm_row_padding().exchange(on); }, py::arg("on"),
          "Turn team_sgemm's row padding of power-of-two B operands on or off (returns the previous "
          "setting; on by default only where oneDNN runs its AVX2 sgemm, off on AVX-512); for benchmarks and "
          "tests, which compare the two");
    m.def("sgemm", &sgemm, py::arg("a"), py::arg("b"), py::arg("trans_a") = false, py::arg("trans_b") = false,
          "C = op(A) @ op(B) for float32 matrices, via oneDNN sgemm");
}

}  // namespace spore
