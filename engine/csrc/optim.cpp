// Fused optimizer updates (Adam / AdamWeightDecay, Momentum, SGD) with MindSpore's CPU formulas.
//
// Each update reads a gradient and rewrites the parameter and its state buffers IN PLACE, in one
// pass over memory: the weight decay, the loss-scale division, the moment updates and the step are
// fused, so a step costs one read of each buffer and one write instead of the ~10 temporaries the
// NumPy formulation allocates. The `*_multi` variants take lists (one entry per parameter) and run
// the whole optimizer step in one call and one OpenMP region, which is what keeps the Python
// overhead of `optimizer(grads)` at a few microseconds per parameter.
//
// Contract with the Python side (spore/nn/optim): parameters and states must be writeable,
// C-contiguous float32 arrays (a TypeError otherwise, so the caller can fall back to NumPy);
// gradients may be any real dtype/layout (converted to float32 here); every shape is checked
// before any buffer is touched, so a bad call never leaves a half-applied step.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "grain.h"
#include "kernels.h"

namespace spore {
namespace {

using inplace_arr = py::array_t<float, py::array::c_style>;

constexpr int64_t kChunk = 1 << 14;         // elements per work item: big enough to amortise scheduling

std::string shape_str(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) {
        if (d) s += ", ";
        s += std::to_string(a.shape(d));
    }
    if (a.ndim() == 1) s += ",";
    return s + ")";
}

bool same_shape(const py::array& a, const py::array& b) {
    if (a.ndim() != b.ndim()) return false;
    for (py::ssize_t d = 0; d < a.ndim(); ++d)
        if (a.shape(d) != b.shape(d)) return false;
    return true;
}

// A buffer the update rewrites in place: it must already be float32, C-contiguous and writeable,
// since a converted copy would silently swallow the update.
float* inplace_ptr(const py::handle& obj, const char* role, size_t i, const py::array* like,
                   std::vector<py::array>& keep) {
    if (!py::isinstance<inplace_arr>(obj))
        throw py::type_error(std::string(role) + "[" + std::to_string(i) +
                             "] must be a C-contiguous float32 numpy array (updated in place)");
    auto arr = py::reinterpret_borrow<py::array>(obj);
    if (!arr.writeable())
        throw py::type_error(std::string(role) + "[" + std::to_string(i) + "] is read-only");
    if (like != nullptr && !same_shape(arr, *like))
        throw py::value_error(std::string(role) + "[" + std::to_string(i) + "] has shape " + shape_str(arr) +
                              ", the parameter has " + shape_str(*like));
    keep.push_back(arr);
    return static_cast<float*>(arr.mutable_data());
}

// Per-tensor scalars (learning rates, weight decays): a list of one value (shared) or one per tensor.
std::vector<float> per_tensor(const py::sequence& seq, size_t n, const char* role) {
    const size_t k = py::len(seq);
    if (k != 1 && k != n)
        throw py::value_error(std::string(role) + " must hold 1 or " + std::to_string(n) + " values, got " +
                              std::to_string(k));
    std::vector<float> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = py::cast<float>(seq[k == 1 ? 0 : i]);
    return out;
}

// Parameters, gradients and any number of state buffers of one multi-tensor call, validated.
struct Batch {
    std::vector<float*> param;
    std::vector<const float*> grad;
    std::vector<std::vector<float*>> state;  // state[s][i]: the s-th state buffer of tensor i
    std::vector<int64_t> size;
    std::vector<py::array> keep;             // owners of every pointer above (grads may be converted copies)
};

Batch gather(const py::sequence& params, const py::sequence& grads,
             const std::vector<std::pair<const char*, py::sequence>>& states) {
    const size_t n = py::len(params);
    if (py::len(grads) != n)
        throw py::value_error("got " + std::to_string(py::len(grads)) + " gradients for " + std::to_string(n) +
                              " parameters");
    for (const auto& [role, seq] : states)
        if (py::len(seq) != n)
            throw py::value_error(std::string(role) + " holds " + std::to_string(py::len(seq)) +
                                  " buffers for " + std::to_string(n) + " parameters");
    Batch b;
    b.param.resize(n);
    b.grad.resize(n);
    b.size.resize(n);
    b.state.assign(states.size(), std::vector<float*>(n));
    for (size_t i = 0; i < n; ++i) {
        b.param[i] = inplace_ptr(params[i], "params", i, nullptr, b.keep);
        const py::array p = b.keep.back();  // a new reference: `keep` may reallocate below
        auto g = farr::ensure(grads[i]);
        if (!g) throw py::type_error("grads[" + std::to_string(i) + "] is not convertible to a float32 array");
        if (!same_shape(g, p))
            throw py::value_error("grads[" + std::to_string(i) + "] has shape " + shape_str(g) +
                                  ", the parameter has " + shape_str(p));
        b.grad[i] = g.data();
        b.size[i] = static_cast<int64_t>(p.size());
        b.keep.push_back(g);
        for (size_t s = 0; s < states.size(); ++s)
            b.state[s][i] = inplace_ptr(states[s].second[i], states[s].first, i, &p, b.keep);
    }
    return b;
}

// Runs body(tensor, begin, end) over all elements of all tensors, split into chunks that one
// OpenMP team shares: one parallel region per optimizer step, however many parameters there are.
template <class Body>
void for_each_chunk(const std::vector<int64_t>& sizes, const Body& body) {
    std::vector<std::array<int64_t, 3>> work;
    int64_t total = 0;
    for (size_t t = 0; t < sizes.size(); ++t) {
        for (int64_t lo = 0; lo < sizes[t]; lo += kChunk)
            work.push_back({static_cast<int64_t>(t), lo, std::min(sizes[t], lo + kChunk)});
        total += sizes[t];
    }
    const int64_t nw = static_cast<int64_t>(work.size());
    // work for the grain rule (grain.h): an update reads parameter, gradient and a moment or two and
    // writes parameter and moments, ~4 units per element (the MLP's 235K parameters stay on one thread)
    parallel_for(nw, 4 * total, [&](int64_t w0, int64_t w1) {
        for (int64_t w = w0; w < w1; ++w) body(work[w][0], work[w][1], work[w][2]);
    });
}

// Square roots of a block in place. Spelled with intrinsics because GCC will not vectorise std::sqrt
// while -fmath-errno is on (the build default): the errno branch is control flow in the loop.
// The vector sqrt instructions round exactly like the scalar one, so results do not change.
inline void sqrt_inplace(float* x, int64_t n) {
    int64_t i = 0;
#if defined(__AVX__)  // 256-bit also on AVX-512 machines: GCC 12's _mm512_sqrt_ps trips -Wmaybe-uninitialized
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_sqrt_ps(_mm256_loadu_ps(x + i)));
#elif defined(__SSE2__)
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(x + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
#endif
    for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}

// ---------------------------------------------------------------------------------------------
// Adam family. MindSpore's nn.Adam runs ops.Adam: m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2);
// p -= lr_t * m / (sqrt(v) + eps), with lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t) computed by the
// caller (eps is NOT bias-corrected, unlike PyTorch). Nesterov uses (b1 m + (1 - b1) g) as the
// numerator; AMSGrad divides by sqrt(max(vhat, v)). Weight decay is L2 (g += wd p, before the
// moments) or decoupled (AdamWeightDecay: p -= lr (m / (sqrt(v) + eps) + wd p), no bias correction).
constexpr int64_t kBlock = 512;  // Adam works in L1-sized blocks: moments, then sqrt, then the step

template <bool kDecoupled, bool kNesterov, bool kAmsgrad, bool kDecay>
void adam_span(float* p, const float* grad, float* m, float* v, float* vhat, int64_t lo, int64_t hi, float lr,
               float b1, float b2, float eps, float wd, float gs) {
    const float ob1 = 1.0f - b1, ob2 = 1.0f - b2;
    alignas(64) float den[kBlock];
    for (int64_t blo = lo; blo < hi; blo += kBlock) {
        const int64_t n = std::min(hi - blo, kBlock);
        float* pb = p + blo;
        const float* gb = grad + blo;
        float* mb = m + blo;
        float* vb = v + blo;
        float* hb = kAmsgrad ? vhat + blo : nullptr;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) {
            float g = gb[j] * gs;
            if (kDecay && !kDecoupled) g += wd * pb[j];
            const float mi = mb[j] + (g - mb[j]) * ob1;
            const float vi = vb[j] + (g * g - vb[j]) * ob2;
            mb[j] = mi;
            vb[j] = vi;
            float d = vi;
            if (kAmsgrad) {
                d = std::max(hb[j], vi);
                hb[j] = d;
            }
            den[j] = d;
        }
        sqrt_inplace(den, n);
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) {
            float num = mb[j];
            if (kNesterov) {
                float g = gb[j] * gs;
                if (kDecay && !kDecoupled) g += wd * pb[j];
                num = num * b1 + ob1 * g;
            }
            float upd = num / (den[j] + eps);
            if (kDecay && kDecoupled) upd += wd * pb[j];
            pb[j] -= lr * upd;
        }
    }
}

template <bool kDecoupled, bool kNesterov, bool kAmsgrad>
void adam_dispatch_decay(float* p, const float* g, float* m, float* v, float* vh, int64_t lo, int64_t hi, float lr,
                         float b1, float b2, float eps, float wd, float gs) {
    if (wd != 0.0f)
        adam_span<kDecoupled, kNesterov, kAmsgrad, true>(p, g, m, v, vh, lo, hi, lr, b1, b2, eps, wd, gs);
    else
        adam_span<kDecoupled, kNesterov, kAmsgrad, false>(p, g, m, v, vh, lo, hi, lr, b1, b2, eps, wd, gs);
}

using AdamSpanFn = void (*)(float*, const float*, float*, float*, float*, int64_t, int64_t, float, float, float,
                            float, float, float);

AdamSpanFn pick_adam(bool decoupled, bool nesterov, bool amsgrad) {
    static const AdamSpanFn table[8] = {
        adam_dispatch_decay<false, false, false>, adam_dispatch_decay<false, false, true>,
        adam_dispatch_decay<false, true, false>,  adam_dispatch_decay<false, true, true>,
        adam_dispatch_decay<true, false, false>,  adam_dispatch_decay<true, false, true>,
        adam_dispatch_decay<true, true, false>,   adam_dispatch_decay<true, true, true>,
    };
    return table[(decoupled ? 4 : 0) + (nesterov ? 2 : 0) + (amsgrad ? 1 : 0)];
}

void adam_update_multi(const py::sequence& params, const py::sequence& grads, const py::sequence& exp_avgs,
                       const py::sequence& exp_avg_sqs, const py::object& max_exp_avg_sqs, const py::sequence& lrs,
                       float beta1, float beta2, float eps, const py::sequence& weight_decays, float grad_scale,
                       bool decoupled, bool nesterov) {
    const bool amsgrad = !max_exp_avg_sqs.is_none();
    std::vector<std::pair<const char*, py::sequence>> states = {{"exp_avgs", exp_avgs}, {"exp_avg_sqs", exp_avg_sqs}};
    if (amsgrad) states.emplace_back("max_exp_avg_sqs", py::reinterpret_borrow<py::sequence>(max_exp_avg_sqs));
    Batch b = gather(params, grads, states);
    const size_t n = b.param.size();
    const std::vector<float> lr = per_tensor(lrs, n, "lrs");
    const std::vector<float> wd = per_tensor(weight_decays, n, "weight_decays");
    const AdamSpanFn span = pick_adam(decoupled, nesterov, amsgrad);
    py::gil_scoped_release nogil;
    for_each_chunk(b.size, [&](int64_t t, int64_t lo, int64_t hi) {
        span(b.param[t], b.grad[t], b.state[0][t], b.state[1][t], amsgrad ? b.state[2][t] : nullptr, lo, hi, lr[t],
             beta1, beta2, eps, wd[t], grad_scale);
    });
}

// ---------------------------------------------------------------------------------------------
// Momentum (MindSpore ApplyMomentum): g' = g * gs + wd p; v = u v + g'; p -= lr v, or with Nesterov
// p -= lr (g' + u v). A zero wd skips the decay term entirely (0 * inf would otherwise be NaN).
template <bool kNesterov, bool kDecay>
void momentum_span(float* p, const float* grad, float* v, int64_t lo, int64_t hi, float lr, float u, float wd,
                   float gs) {
#pragma omp simd
    for (int64_t i = lo; i < hi; ++i) {
        const float g = kDecay ? grad[i] * gs + wd * p[i] : grad[i] * gs;
        const float vi = v[i] * u + g;
        v[i] = vi;
        p[i] -= kNesterov ? lr * (g + vi * u) : lr * vi;
    }
}

void momentum_update_multi(const py::sequence& params, const py::sequence& grads, const py::sequence& moments,
                           const py::sequence& lrs, float momentum, const py::sequence& weight_decays,
                           float grad_scale, bool nesterov) {
    Batch b = gather(params, grads, {{"moments", moments}});
    const size_t n = b.param.size();
    const std::vector<float> lr = per_tensor(lrs, n, "lrs");
    const std::vector<float> wd = per_tensor(weight_decays, n, "weight_decays");
    py::gil_scoped_release nogil;
    using SpanFn = void (*)(float*, const float*, float*, int64_t, int64_t, float, float, float, float);
    const SpanFn spans[4] = {momentum_span<false, false>, momentum_span<false, true>, momentum_span<true, false>,
                             momentum_span<true, true>};
    for_each_chunk(b.size, [&](int64_t t, int64_t lo, int64_t hi) {
        spans[(nesterov ? 2 : 0) + (wd[t] != 0.0f ? 1 : 0)](b.param[t], b.grad[t], b.state[0][t], lo, hi, lr[t],
                                                            momentum, wd[t], grad_scale);
    });
}

// ---------------------------------------------------------------------------------------------
// SGD (MindSpore ops.SGD): g' = g * gs + wd p; with momentum u > 0, the first step of an element
// (stat > 0) sets accum = g' and clears stat, later steps do accum = u accum + (1 - dampening) g';
// the step is accum, or g' + u accum with Nesterov. Without momentum p -= lr g'.
template <bool kDecay>
void sgd_span(float* p, const float* grad, float* accum, float* stat, int64_t lo, int64_t hi, float lr, float u,
              float damp, float wd, float gs, bool nesterov) {
    if (u <= 0.0f) {
#pragma omp simd
        for (int64_t i = lo; i < hi; ++i) p[i] -= lr * (kDecay ? grad[i] * gs + wd * p[i] : grad[i] * gs);
        return;
    }
    const float od = 1.0f - damp;
    for (int64_t i = lo; i < hi; ++i) {
        float g = kDecay ? grad[i] * gs + wd * p[i] : grad[i] * gs;
        float a;
        if (stat[i] > 0.0f) {
            a = g;
            stat[i] = 0.0f;
        } else {
            a = accum[i] * u + od * g;
        }
        accum[i] = a;
        g = nesterov ? g + a * u : a;
        p[i] -= lr * g;
    }
}

void sgd_update_multi(const py::sequence& params, const py::sequence& grads, const py::sequence& accums,
                      const py::sequence& stats, const py::sequence& lrs, float momentum, float dampening,
                      const py::sequence& weight_decays, float grad_scale, bool nesterov) {
    Batch b = gather(params, grads, {{"accums", accums}, {"stats", stats}});
    const size_t n = b.param.size();
    const std::vector<float> lr = per_tensor(lrs, n, "lrs");
    const std::vector<float> wd = per_tensor(weight_decays, n, "weight_decays");
    py::gil_scoped_release nogil;
    for_each_chunk(b.size, [&](int64_t t, int64_t lo, int64_t hi) {
        (wd[t] != 0.0f ? sgd_span<true> : sgd_span<false>)(b.param[t], b.grad[t], b.state[0][t], b.state[1][t], lo,
                                                            hi, lr[t], momentum, dampening, wd[t], grad_scale,
                                                            nesterov);
    });
}

py::list one(const py::handle& h) {
    py::list l;
    l.append(h);
    return l;
}

py::list one_float(float x) {
    py::list l;
    l.append(x);
    return l;
}

}  // namespace

void register_optim(py::module_& m) {
    m.def("adam_update_multi", &adam_update_multi, py::arg("params"), py::arg("grads"), py::arg("exp_avgs"),
          py::arg("exp_avg_sqs"), py::arg("max_exp_avg_sqs"), py::arg("lrs"), py::arg("beta1"),
          py::arg("beta2"), py::arg("eps"), py::arg("weight_decays"), py::arg("grad_scale") = 1.0f,
          py::arg("decoupled") = false, py::arg("nesterov") = false,
          "In-place Adam step over lists of float32 buffers. lrs: the step size per tensor (1 or n values;\n"
          "Adam passes lr*sqrt(1-b2^t)/(1-b1^t), AdamWeightDecay the plain lr). max_exp_avg_sqs: AMSGrad's vhat\n"
          "buffers, or None. decoupled: weight decay added to the update (AdamWeightDecay) instead of the grad.");
    m.def(
        "adam_update",
        [](const py::object& param, const py::object& grad, const py::object& exp_avg, const py::object& exp_avg_sq,
           const py::object& max_exp_avg_sq, float lr, float beta1, float beta2, float eps, float weight_decay,
           float grad_scale, bool decoupled, bool nesterov) {
            adam_update_multi(one(param), one(grad), one(exp_avg), one(exp_avg_sq),
                              max_exp_avg_sq.is_none() ? py::object(py::none()) : py::object(one(max_exp_avg_sq)),
                              one_float(lr), beta1, beta2, eps, one_float(weight_decay), grad_scale, decoupled,
                              nesterov);
        },
        py::arg("param"), py::arg("grad"), py::arg("exp_avg"), py::arg("exp_avg_sq"), py::arg("max_exp_avg_sq"),
        py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"),
        py::arg("weight_decay") = 0.0f, py::arg("grad_scale") = 1.0f, py::arg("decoupled") = false,
        py::arg("nesterov") = false, "One-tensor adam_update_multi");
    m.def("momentum_update_multi", &momentum_update_multi, py::arg("params"), py::arg("grads"), py::arg("moments"),
          py::arg("lrs"), py::arg("momentum"), py::arg("weight_decays"), py::arg("grad_scale") = 1.0f,
          py::arg("nesterov") = false,
          "In-place Momentum step (MindSpore ApplyMomentum) over lists of float32 buffers");
    m.def(
        "momentum_update",
        [](const py::object& param, const py::object& grad, const py::object& moment, float lr, float momentum,
           float weight_decay, float grad_scale, bool nesterov) {
            momentum_update_multi(one(param), one(grad), one(moment), one_float(lr), momentum,
                                  one_float(weight_decay), grad_scale, nesterov);
        },
        py::arg("param"), py::arg("grad"), py::arg("moment"), py::arg("lr"), py::arg("momentum"),
        py::arg("weight_decay") = 0.0f, py::arg("grad_scale") = 1.0f, py::arg("nesterov") = false,
        "One-tensor momentum_update_multi");
    m.def("sgd_update_multi", &sgd_update_multi, py::arg("params"), py::arg("grads"), py::arg("accums"),
          py::arg("stats"), py::arg("lrs"), py::arg("momentum"), py::arg("dampening"), py::arg("weight_decays"),
          py::arg("grad_scale") = 1.0f, py::arg("nesterov") = false,
          "In-place SGD step (MindSpore ops.SGD: stat marks an element's first momentum step) over lists");
    m.def(
        "sgd_update",
        [](const py::object& param, const py::object& grad, const py::object& accum, const py::object& stat, float lr,
           float momentum, float dampening, float weight_decay, float grad_scale, bool nesterov) {
            sgd_update_multi(one(param), one(grad), one(accum), one(stat), one_float(lr), momentum, dampening,
                             one_float(weight_decay), grad_scale, nesterov);
        },
        py::arg("param"), py::arg("grad"), py::arg("accum"), py::arg("stat"), py::arg("lr"), py::arg("momentum"),
        py::arg("dampening") = 0.0f, py::arg("weight_decay") = 0.0f, py::arg("grad_scale") = 1.0f,
        py::arg("nesterov") = false, "One-tensor sgd_update_multi");
}

}  // namespace spore
