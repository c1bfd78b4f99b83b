// Batch normalisation and layer normalisation, forward and backward, for float32.
//
// Batch norm sees its input as (N, C, S): NCHW has S = H*W; an (N, C) batch and NHWC data (viewed as
// (N*H*W, C)) have S = 1. Statistics are per channel over the M = N*S values of that channel.
// Layer norm sees its input as (M, D) rows and normalises each row; gamma/beta have length D.
//
// Sums run in float over one contiguous stretch (vectorised) and are gathered in double, so a
// channel of millions of values keeps float64-like accuracy without slowing the inner loops.
// Variances are two-pass (mean first, then squared deviations): no cancellation on offset data.
//
// The backward kernels also take cotangents of the saved statistics (dmean, drstd), so gradients
// stay exact when a caller uses the returned mean/rstd; the extra terms are per-channel (per-row)
// constants and cost nothing in the inner loops.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "grain.h"
#include "kernels.h"

namespace spore {
namespace {

using i64 = std::int64_t;

void require(bool ok, const std::string& msg) {
    if (!ok) throw std::invalid_argument(msg);
}

// Channels handled together by one thread in the S == 1 layout: wide enough for vector loads,
// small enough that the per-block accumulators stay in L1.
constexpr i64 kChannelBlock = 256;

// Team or calling thread: the one grain rule (grain.h), in elements read plus written. These loops
// used to fork at 32K elements with `omp parallel for if(...)`, which put e.g. a 32x16x16x16 batch
// norm on the team: on a busy 2-core machine its wake-up cost more than the whole kernel. Every
// split is over channels (rows), each computed whole by one thread, so any team size gives the same
// bits; layer norm's dgamma/dbeta sum fixed-size row chunks in a fixed order for the same reason.

// ------------------------------------------------------------------------------------------
// Batch norm forward
// ------------------------------------------------------------------------------------------

// Training statistics for S > 1: one channel at a time, stats then output while the channel's
// values are still in cache.
void bn_train_fwd_spatial(const float* x, const float* gamma, const float* beta, float* y, float* mean_out,
                          float* rstd_out, i64 N, i64 C, i64 S, float eps) {
    const double inv_m = 1.0 / double(N * S);
    parallel_for(C, 4 * N * C * S, [&](i64 c0, i64 c1) {
        for (i64 c = c0; c < c1; ++c) {
            double sum = 0.0;
            for (i64 n = 0; n < N; ++n) {
                const float* p = x + (n * C + c) * S;
                float acc = 0.f;
#pragma omp simd reduction(+ : acc)
                for (i64 i = 0; i < S; ++i) acc += p[i];
                sum += acc;
            }
            const double mean = sum * inv_m;
            const float mf = float(mean);
            double sq = 0.0;
            for (i64 n = 0; n < N; ++n) {
                const float* p = x + (n * C + c) * S;
                float acc = 0.f;
#pragma omp simd reduction(+ : acc)
                for (i64 i = 0; i < S; ++i) {
                    const float d = p[i] - mf;
                    acc += d * d;
                }
                sq += acc;
            }
            const double rstd = 1.0 / std::sqrt(sq * inv_m + double(eps));
            const float scale = float(double(gamma[c]) * rstd), shift = beta[c];
            for (i64 n = 0; n < N; ++n) {
                const float* p = x + (n * C + c) * S;
                float* q = y + (n * C + c) * S;
#pragma omp simd
                for (i64 i = 0; i < S; ++i) q[i] = (p[i] - mf) * scale + shift;
            }
            mean_out[c] = mf;
            rstd_out[c] = float(rstd);
        }
    });
}

// Training statistics for S == 1 ((N, C) rows): a channel's values are strided by C, so walk the
// rows and accumulate a block of channels at once (unit stride, vectorised over channels).
void bn_train_fwd_rows(const float* x, const float* gamma, const float* beta, float* y, float* mean_out,
                       float* rstd_out, i64 N, i64 C, float eps) {
    const i64 nblocks = (C + kChannelBlock - 1) / kChannelBlock;
    const double inv_m = 1.0 / double(N);
    parallel_for(nblocks, 4 * N * C, [&](i64 b0, i64 b1) {
        for (i64 b = b0; b < b1; ++b) {
            const i64 c0 = b * kChannelBlock;
            const i64 cb = std::min(kChannelBlock, C - c0);
            double acc[kChannelBlock];
            float mean[kChannelBlock], scale[kChannelBlock], shift[kChannelBlock];
            for (i64 j = 0; j < cb; ++j) acc[j] = 0.0;
            for (i64 n = 0; n < N; ++n) {
                const float* p = x + n * C + c0;
#pragma omp simd
                for (i64 j = 0; j < cb; ++j) acc[j] += p[j];
            }
            for (i64 j = 0; j < cb; ++j) {
                mean[j] = float(acc[j] * inv_m);
                acc[j] = 0.0;
            }
            for (i64 n = 0; n < N; ++n) {
                const float* p = x + n * C + c0;
#pragma omp simd
                for (i64 j = 0; j < cb; ++j) {
                    const float d = p[j] - mean[j];
                    acc[j] += d * d;
                }
            }
            for (i64 j = 0; j < cb; ++j) {
                const double rstd = 1.0 / std::sqrt(acc[j] * inv_m + double(eps));
                scale[j] = float(double(gamma[c0 + j]) * rstd);
                shift[j] = beta[c0 + j];
                mean_out[c0 + j] = mean[j];
                rstd_out[c0 + j] = float(rstd);
            }
            for (i64 n = 0; n < N; ++n) {
                const float* p = x + n * C + c0;
                float* q = y + n * C + c0;
#pragma omp simd
                for (i64 j = 0; j < cb; ++j) q[j] = (p[j] - mean[j]) * scale[j] + shift[j];
            }
        }
    });
}

// y = (x - mean[c]) * scale[c] + beta[c] for the (N, C, S) layout (inference). Centring first, not
// x*scale + (beta - mean*scale): the folded form cancels catastrophically when |mean*scale| >> |y|.
void bn_apply(const float* x, const float* mean, const float* scale, const float* beta, float* y, i64 N, i64 C,
              i64 S) {
    const i64 work = 2 * N * C * S;
    if (S == 1) {
        parallel_for(N, work, [&](i64 n0, i64 n1) {
            for (i64 n = n0; n < n1; ++n) {
                const float* p = x + n * C;
                float* q = y + n * C;
#pragma omp simd
                for (i64 c = 0; c < C; ++c) q[c] = (p[c] - mean[c]) * scale[c] + beta[c];
            }
        });
        return;
    }
    parallel_for(N * C, work, [&](i64 r0, i64 r1) {
        for (i64 r = r0; r < r1; ++r) {
            const float m = mean[r % C], a = scale[r % C], b = beta[r % C];
            const float* p = x + r * S;
            float* q = y + r * S;
#pragma omp simd
            for (i64 i = 0; i < S; ++i) q[i] = (p[i] - m) * a + b;
        }
    });
}

// Returns (y, saved_mean, saved_rstd). Training: batch statistics; inference: the given running
// mean/var (saved_mean is then a copy of mean, saved_rstd = 1/sqrt(var + eps)).
py::tuple batch_norm_forward(farr x, farr gamma, farr beta, farr mean, farr var, bool training, float eps) {
    require(x.ndim() == 3, "batch_norm_forward: x must be viewed as (N, C, S)");
    const i64 N = x.shape(0), C = x.shape(1), S = x.shape(2);
    require(gamma.size() == C && beta.size() == C, "batch_norm_forward: gamma/beta must have C entries");
    require(training || (mean.size() == C && var.size() == C), "batch_norm_forward: mean/var must have C entries");
    py::array_t<float> y({N, C, S});
    py::array_t<float> smean(C), srstd(C);
    const float *px = x.data(), *pg = gamma.data(), *pb = beta.data();
    const float *pm = mean.data(), *pv = var.data();
    float *py_ = y.mutable_data(), *psm = smean.mutable_data(), *psr = srstd.mutable_data();
    {
        py::gil_scoped_release nogil;
        if (training) {
            if (S == 1)
                bn_train_fwd_rows(px, pg, pb, py_, psm, psr, N, C, eps);
            else
                bn_train_fwd_spatial(px, pg, pb, py_, psm, psr, N, C, S, eps);
        } else {
            std::vector<float> scale(C);
            for (i64 c = 0; c < C; ++c) {
                const double r = 1.0 / std::sqrt(double(pv[c]) + double(eps));
                psm[c] = pm[c];
                psr[c] = float(r);
                scale[c] = float(double(pg[c]) * r);
            }
            bn_apply(px, pm, scale.data(), pb, py_, N, C, S);
        }
    }
    return py::make_tuple(y, smean, srstd);
}

// ------------------------------------------------------------------------------------------
// Batch norm backward
// ------------------------------------------------------------------------------------------
//
// With xhat = (x - mean) * rstd, per channel (M values):
//   dbeta = sum(dy),  dgamma = sum(dy * xhat)
//   training:  dx = gamma*rstd*dy + b*(x - mean) + c0  where
//              b  = -(gamma*rstd^2*dgamma + drstd*rstd^3) / M
//              c0 = (dmean - gamma*rstd*dbeta) / M
//   inference: dx = gamma*rstd*dy (statistics are constants of x)

struct BnCoef {
    float a, b, c0, mean;
};

BnCoef bn_coef(bool training, float gamma, float mean, float rstd, double sg, double sgx, float dmean, float drstd,
               double inv_m, float* dgamma, float* dbeta) {
    const double r = rstd, g = gamma;
    const double dg = sgx * r;
    *dgamma = float(dg);
    *dbeta = float(sg);
    BnCoef k{float(g * r), 0.f, 0.f, mean};
    if (training) {
        k.b = float(-(g * r * r * dg + double(drstd) * r * r * r) * inv_m);
        k.c0 = float((double(dmean) - g * r * sg) * inv_m);
    }
    return k;
}

void bn_bwd_spatial(const float* dy, const float* x, const float* gamma, const float* mean, const float* rstd,
                    const float* dmean, const float* drstd, float* dx, float* dgamma, float* dbeta, i64 N, i64 C,
                    i64 S, bool training) {
    const double inv_m = 1.0 / double(N * S);
    parallel_for(C, 5 * N * C * S, [&](i64 c0, i64 c1) {
        for (i64 c = c0; c < c1; ++c) {
            const float mf = mean[c];
            double sg = 0.0, sgx = 0.0;
            for (i64 n = 0; n < N; ++n) {
                const float* pg = dy + (n * C + c) * S;
                const float* px = x + (n * C + c) * S;
                float a1 = 0.f, a2 = 0.f;
#pragma omp simd reduction(+ : a1, a2)
                for (i64 i = 0; i < S; ++i) {
                    a1 += pg[i];
                    a2 += pg[i] * (px[i] - mf);
                }
                sg += a1;
                sgx += a2;
            }
            const BnCoef k = bn_coef(training, gamma[c], mf, rstd[c], sg, sgx, dmean[c], drstd[c], inv_m, dgamma + c,
                                     dbeta + c);
            for (i64 n = 0; n < N; ++n) {
                const float* pg = dy + (n * C + c) * S;
                const float* px = x + (n * C + c) * S;
                float* q = dx + (n * C + c) * S;
#pragma omp simd
                for (i64 i = 0; i < S; ++i) q[i] = k.a * pg[i] + k.b * (px[i] - k.mean) + k.c0;
            }
        }
    });
}

void bn_bwd_rows(const float* dy, const float* x, const float* gamma, const float* mean, const float* rstd,
                 const float* dmean, const float* drstd, float* dx, float* dgamma, float* dbeta, i64 N, i64 C,
                 bool training) {
    const i64 nblocks = (C + kChannelBlock - 1) / kChannelBlock;
    const double inv_m = 1.0 / double(N);
    parallel_for(nblocks, 5 * N * C, [&](i64 b0, i64 b1) {
        for (i64 b = b0; b < b1; ++b) {
            const i64 c0 = b * kChannelBlock;
            const i64 cb = std::min(kChannelBlock, C - c0);
            double sg[kChannelBlock], sgx[kChannelBlock];
            float ka[kChannelBlock], kb[kChannelBlock], kc[kChannelBlock];
            const float* mu = mean + c0;
            for (i64 j = 0; j < cb; ++j) sg[j] = sgx[j] = 0.0;
            for (i64 n = 0; n < N; ++n) {
                const float* pg = dy + n * C + c0;
                const float* px = x + n * C + c0;
#pragma omp simd
                for (i64 j = 0; j < cb; ++j) {
                    sg[j] += pg[j];
                    sgx[j] += pg[j] * (px[j] - mu[j]);
                }
            }
            for (i64 j = 0; j < cb; ++j) {
                const BnCoef k = bn_coef(training, gamma[c0 + j], mu[j], rstd[c0 + j], sg[j], sgx[j], dmean[c0 + j],
                                         drstd[c0 + j], inv_m, dgamma + c0 + j, dbeta + c0 + j);
                ka[j] = k.a;
                kb[j] = k.b;
                kc[j] = k.c0;
            }
            for (i64 n = 0; n < N; ++n) {
                const float* pg = dy + n * C + c0;
                const float* px = x + n * C + c0;
                float* q = dx + n * C + c0;
#pragma omp simd
                for (i64 j = 0; j < cb; ++j) q[j] = ka[j] * pg[j] + kb[j] * (px[j] - mu[j]) + kc[j];
            }
        }
    });
}

// Returns (dx, dgamma, dbeta).
py::tuple batch_norm_backward(farr dy, farr x, farr gamma, farr mean, farr rstd, farr dmean, farr drstd,
                              bool training) {
    require(x.ndim() == 3 && dy.ndim() == 3, "batch_norm_backward: dy and x must be viewed as (N, C, S)");
    const i64 N = x.shape(0), C = x.shape(1), S = x.shape(2);
    require(dy.shape(0) == N && dy.shape(1) == C && dy.shape(2) == S, "batch_norm_backward: dy and x differ in shape");
    require(gamma.size() == C && mean.size() == C && rstd.size() == C && dmean.size() == C && drstd.size() == C,
            "batch_norm_backward: per-channel vectors must have C entries");
    py::array_t<float> dx({N, C, S});
    py::array_t<float> dgamma(C), dbeta(C);
    const float *pdy = dy.data(), *px = x.data(), *pg = gamma.data(), *pm = mean.data(), *pr = rstd.data();
    const float *pdm = dmean.data(), *pdr = drstd.data();
    float *pdx = dx.mutable_data(), *pdg = dgamma.mutable_data(), *pdb = dbeta.mutable_data();
    {
        py::gil_scoped_release nogil;
        if (S == 1)
            bn_bwd_rows(pdy, px, pg, pm, pr, pdm, pdr, pdx, pdg, pdb, N, C, training);
        else
            bn_bwd_spatial(pdy, px, pg, pm, pr, pdm, pdr, pdx, pdg, pdb, N, C, S, training);
    }
    return py::make_tuple(dx, dgamma, dbeta);
}

// ------------------------------------------------------------------------------------------
// Layer norm
// ------------------------------------------------------------------------------------------

// Returns (y, mean, rstd) with mean/rstd of length M.
py::tuple layer_norm_forward(farr x, farr gamma, farr beta, float eps) {
    require(x.ndim() == 2, "layer_norm_forward: x must be viewed as (M, D)");
    const i64 M = x.shape(0), D = x.shape(1);
    require(gamma.size() == D && beta.size() == D, "layer_norm_forward: gamma/beta must have D entries");
    require(D > 0, "layer_norm_forward: empty normalised dimensions");
    py::array_t<float> y({M, D});
    py::array_t<float> mean(M), rstd(M);
    const float *px = x.data(), *pg = gamma.data(), *pb = beta.data();
    float *py_ = y.mutable_data(), *pm = mean.mutable_data(), *pr = rstd.mutable_data();
    {
        py::gil_scoped_release nogil;
        const double inv_d = 1.0 / double(D);
        parallel_for(M, 4 * M * D, [&](i64 r0, i64 r1) {
            for (i64 r = r0; r < r1; ++r) {
                const float* p = px + r * D;
                float s = 0.f;
#pragma omp simd reduction(+ : s)
                for (i64 j = 0; j < D; ++j) s += p[j];
                const float mu = float(double(s) * inv_d);
                float sq = 0.f;
#pragma omp simd reduction(+ : sq)
                for (i64 j = 0; j < D; ++j) {
                    const float d = p[j] - mu;
                    sq += d * d;
                }
                const float rs = float(1.0 / std::sqrt(double(sq) * inv_d + double(eps)));
                float* q = py_ + r * D;
#pragma omp simd
                for (i64 j = 0; j < D; ++j) q[j] = (p[j] - mu) * rs * pg[j] + pb[j];
                pm[r] = mu;
                pr[r] = rs;
            }
        });
    }
    return py::make_tuple(y, mean, rstd);
}

// Rows per partial sum of layer norm's dgamma/dbeta (float within a chunk, double across chunks).
constexpr i64 kLnRows = 64;

// Per row, with xhat = (x - mean) * rstd and gx = dy * gamma:
//   dx = rstd*(gx - mean(gx) - xhat*mean(gx*xhat)) + dmean/D - drstd*rstd^2*xhat/D
// dgamma = sum over rows of dy*xhat, dbeta = sum over rows of dy (per-chunk partial sums).
py::tuple layer_norm_backward(farr dy, farr x, farr gamma, farr mean, farr rstd, farr dmean, farr drstd) {
    require(x.ndim() == 2 && dy.ndim() == 2, "layer_norm_backward: dy and x must be viewed as (M, D)");
    const i64 M = x.shape(0), D = x.shape(1);
    require(dy.shape(0) == M && dy.shape(1) == D, "layer_norm_backward: dy and x differ in shape");
    require(gamma.size() == D, "layer_norm_backward: gamma must have D entries");
    require(mean.size() == M && rstd.size() == M && dmean.size() == M && drstd.size() == M,
            "layer_norm_backward: per-row vectors must have M entries");
    py::array_t<float> dx({M, D});
    py::array_t<float> dgamma(D), dbeta(D);
    const float *pdy = dy.data(), *px = x.data(), *pg = gamma.data(), *pm = mean.data(), *pr = rstd.data();
    const float *pdm = dmean.data(), *pdr = drstd.data();
    float *pdx = dx.mutable_data(), *pdg = dgamma.mutable_data(), *pdb = dbeta.mutable_data();
    {
        py::gil_scoped_release nogil;
        // dgamma/dbeta: a float partial per chunk of kLnRows rows, the chunks then summed in order in
        // double. The chunks are fixed by M alone, so the bits do not depend on the team size.
        const i64 nchunks = (M + kLnRows - 1) / kLnRows;
        std::vector<float> part_g(size_t(nchunks) * size_t(D), 0.f), part_b(size_t(nchunks) * size_t(D), 0.f);
        const float inv_d = float(1.0 / double(D));
        parallel_for(nchunks, 5 * M * D, [&](i64 k0, i64 k1) {
            for (i64 k = k0; k < k1; ++k) {
                float* acc_g = part_g.data() + size_t(k) * size_t(D);
                float* acc_b = part_b.data() + size_t(k) * size_t(D);
                for (i64 r = k * kLnRows; r < std::min(M, (k + 1) * kLnRows); ++r) {
                    const float* g = pdy + r * D;
                    const float* p = px + r * D;
                    const float mu = pm[r], rs = pr[r];
                    float s1 = 0.f, s2 = 0.f;
#pragma omp simd reduction(+ : s1, s2)
                    for (i64 j = 0; j < D; ++j) {
                        const float xh = (p[j] - mu) * rs;
                        const float gx = g[j] * pg[j];
                        s1 += gx;
                        s2 += gx * xh;
                        acc_g[j] += g[j] * xh;
                        acc_b[j] += g[j];
                    }
                    const float kx = -(rs * s2 * inv_d) - pdr[r] * rs * rs * inv_d;  // coefficient of xhat
                    const float k0c = -(rs * s1 * inv_d) + pdm[r] * inv_d;
                    float* q = pdx + r * D;
#pragma omp simd
                    for (i64 j = 0; j < D; ++j) q[j] = rs * g[j] * pg[j] + (p[j] - mu) * rs * kx + k0c;
                }
            }
        });
        for (i64 j = 0; j < D; ++j) {
            double sg = 0.0, sb = 0.0;
            for (i64 k = 0; k < nchunks; ++k) {
                sg += part_g[size_t(k) * size_t(D) + size_t(j)];
                sb += part_b[size_t(k) * size_t(D) + size_t(j)];
            }
            pdg[j] = float(sg);
            pdb[j] = float(sb);
        }
    }
    return py::make_tuple(dx, dgamma, dbeta);
}

}  // namespace

void register_norm(py::module_& m) {
    m.def("batch_norm_forward", &batch_norm_forward, py::arg("x"), py::arg("gamma"), py::arg("beta"),
          py::arg("mean"), py::arg("var"), py::arg("training"), py::arg("eps"),
          "Batch norm on x viewed as (N, C, S): returns (y, saved_mean, saved_rstd). Training uses batch "
          "statistics (biased variance); inference uses the given mean/var.");
    m.def("batch_norm_backward", &batch_norm_backward, py::arg("dy"), py::arg("x"), py::arg("gamma"),
          py::arg("mean"), py::arg("rstd"), py::arg("dmean"), py::arg("drstd"), py::arg("training"),
          "Batch norm gradient: returns (dx, dgamma, dbeta); dmean/drstd are cotangents of the saved statistics "
          "(used in training only).");
    m.def("layer_norm_forward", &layer_norm_forward, py::arg("x"), py::arg("gamma"), py::arg("beta"), py::arg("eps"),
          "Layer norm of the rows of x (M, D): returns (y, mean, rstd).");
    m.def("layer_norm_backward", &layer_norm_backward, py::arg("dy"), py::arg("x"), py::arg("gamma"),
          py::arg("mean"), py::arg("rstd"), py::arg("dmean"), py::arg("drstd"),
          "Layer norm gradient: returns (dx, dgamma, dbeta); dmean/drstd are cotangents of the row statistics.");
}

}  // namespace spore
