// Fused elementwise kernel: runs a small program of elementwise ops over float32 arrays in one
// pass, block by block, so intermediates live in cache-sized registers instead of full arrays.
// Graph mode's fusion pass builds the program; inputs may broadcast as a contiguous block of
// dimensions (scalars, per-row biases (C,), per-channel scales (C,1,1), or full arrays).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <pybind11/stl.h>

#include "grain.h"
#include "kernels.h"

namespace spore {

namespace {

constexpr int64_t kBlock = 1024;

enum Op : int {
    kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kMax = 4, kMin = 5,
    kNeg = 10, kExp = 11, kLog = 12, kRelu = 13, kSqrt = 14, kSquare = 15, kTanh = 16, kSigmoid = 17,
    kAbs = 18, kRecip = 19, kSin = 20, kCos = 21,
};

struct Input {
    const float* data;
    int64_t inner;  // output elements per input element step
    int64_t size;   // input elements
};

struct Instr {
    int op;
    int a_kind, a_idx, b_kind, b_idx;  // kind 0: input, 1: register
};

// Load input `in` for output positions [start, start+n) into `dst`.
inline void load(const Input& in, int64_t start, int64_t n, float* dst) {
    if (in.size == 1) {
        std::fill(dst, dst + n, in.data[0]);
    } else if (in.inner == 1 && in.size >= start + n) {
        std::copy(in.data + start, in.data + start + n, dst);
    } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = in.data[((start + i) / in.inner) % in.size];
    }
}

inline void unary(int op, const float* a, float* o, int64_t n) {
    switch (op) {
        case kNeg: for (int64_t i = 0; i < n; ++i) o[i] = -a[i]; break;
        case kExp: for (int64_t i = 0; i < n; ++i) o[i] = std::exp(a[i]); break;
        case kLog: for (int64_t i = 0; i < n; ++i) o[i] = std::log(a[i]); break;
        case kRelu: for (int64_t i = 0; i < n; ++i) o[i] = a[i] > 0.f ? a[i] : 0.f; break;
        case kSqrt: for (int64_t i = 0; i < n; ++i) o[i] = std::sqrt(a[i]); break;
        case kSquare: for (int64_t i = 0; i < n; ++i) o[i] = a[i] * a[i]; break;
        case kTanh: for (int64_t i = 0; i < n; ++i) o[i] = std::tanh(a[i]); break;
        case kSigmoid: for (int64_t i = 0; i < n; ++i) o[i] = 1.f / (1.f + std::exp(-a[i])); break;
        case kAbs: for (int64_t i = 0; i < n; ++i) o[i] = std::fabs(a[i]); break;
        case kRecip: for (int64_t i = 0; i < n; ++i) o[i] = 1.f / a[i]; break;
        case kSin: for (int64_t i = 0; i < n; ++i) o[i] = std::sin(a[i]); break;
        case kCos: for (int64_t i = 0; i < n; ++i) o[i] = std::cos(a[i]); break;
        default: throw std::invalid_argument("fused_elementwise: unknown unary op");
    }
}

inline void binary(int op, const float* a, const float* b, float* o, int64_t n) {
    switch (op) {
        case kAdd: for (int64_t i = 0; i < n; ++i) o[i] = a[i] + b[i]; break;
        case kSub: for (int64_t i = 0; i < n; ++i) o[i] = a[i] - b[i]; break;
        case kMul: for (int64_t i = 0; i < n; ++i) o[i] = a[i] * b[i]; break;
        case kDiv: for (int64_t i = 0; i < n; ++i) o[i] = a[i] / b[i]; break;
        // NaN-propagating like numpy.maximum/minimum
        case kMax: for (int64_t i = 0; i < n; ++i) o[i] = (a[i] != a[i] || a[i] > b[i]) ? a[i] : b[i]; break;
        case kMin: for (int64_t i = 0; i < n; ++i) o[i] = (a[i] != a[i] || a[i] < b[i]) ? a[i] : b[i]; break;
        default: throw std::invalid_argument("fused_elementwise: unknown binary op");
    }
}

}  // namespace

// program: list of (op, a_kind, a_idx, b_kind, b_idx); inputs: list of float32 arrays;
// patterns: list of (inner, size) per input; the last instruction's register is the result.
static py::array_t<float> fused_elementwise(const std::vector<std::vector<int>>& program, py::list inputs,
                                            const std::vector<std::pair<int64_t, int64_t>>& patterns,
                                            const std::vector<int64_t>& shape) {
    if (program.empty()) throw std::invalid_argument("fused_elementwise: empty program");
    if (py::len(inputs) != patterns.size()) throw std::invalid_argument("fused_elementwise: one pattern per input");
    std::vector<farr> keep;  // keep the converted arrays alive while we read them
    std::vector<Input> ins;
    for (size_t k = 0; k < patterns.size(); ++k) {
        keep.emplace_back(farr::ensure(inputs[k]));
        if (!keep.back()) throw std::invalid_argument("fused_elementwise: inputs must be float32 arrays");
        if (keep.back().size() != patterns[k].second)
            throw std::invalid_argument("fused_elementwise: input size does not match its pattern");
        ins.push_back({keep.back().data(), std::max<int64_t>(1, patterns[k].first), patterns[k].second});
    }
    std::vector<Instr> prog;
    for (const auto& p : program) {
        if (p.size() != 5) throw std::invalid_argument("fused_elementwise: instructions have 5 fields");
        prog.push_back({p[0], p[1], p[2], p[3], p[4]});
    }
    int64_t total = 1;
    for (auto d : shape) total *= d;
    py::array_t<float> out(shape);
    float* po = out.mutable_data();
    const int nregs = static_cast<int>(prog.size());
    {
        py::gil_scoped_release nogil;
        const int64_t nblocks = (total + kBlock - 1) / kBlock;
        parallel_for(nblocks, total * (nregs + 1), [&](int64_t blk0, int64_t blk1) {
            std::vector<float> regs(static_cast<size_t>(nregs) * kBlock);
            std::vector<float> ta(kBlock), tb(kBlock);
            for (int64_t blk = blk0; blk < blk1; ++blk) {
                const int64_t start = blk * kBlock;
                const int64_t n = std::min(kBlock, total - start);
                for (int r = 0; r < nregs; ++r) {
                    const Instr& in = prog[r];
                    const float* a;
                    if (in.a_kind == 1) a = regs.data() + static_cast<int64_t>(in.a_idx) * kBlock;
                    else { load(ins[in.a_idx], start, n, ta.data()); a = ta.data(); }
                    float* o = (r == nregs - 1) ? po + start : regs.data() + static_cast<int64_t>(r) * kBlock;
                    if (in.op < 10) {
                        const float* b;
                        if (in.b_kind == 1) b = regs.data() + static_cast<int64_t>(in.b_idx) * kBlock;
                        else { load(ins[in.b_idx], start, n, tb.data()); b = tb.data(); }
                        binary(in.op, a, b, o, n);
                    } else {
                        unary(in.op, a, o, n);
                    }
                }
            }
        });
    }
    return out;
}

void register_fused(py::module_& m) {
    m.def("fused_elementwise", &fused_elementwise, py::arg("program"), py::arg("inputs"), py::arg("patterns"),
          py::arg("shape"), "Run a fused chain of float32 elementwise ops in one pass (Graph mode fusion)");
}

}  // namespace spore
