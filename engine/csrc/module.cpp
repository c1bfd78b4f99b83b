// spore._kernels: Spore's C++ kernels. Each family registers itself here.
#include "kernels.h"

#include <malloc.h>
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// Process-wide allocator policy, set once at import. Every op returns fresh NumPy arrays the size of
// an activation (MBs); glibc serves those by mmap and returns them to the OS on free (and trims the
// heap top), so each training step page-faults its whole working set back in. In a VM a fault is
// expensive: SimpleCNN (batch 32, one thread) ran 12-21 ms per step with glibc's defaults and 5.3-6.4
// with freed memory kept for reuse. The mmap threshold is 128 MiB, not glibc's 32 MiB ceiling, so that
// a 4096x4096 float32 gradient (64 MiB) is reused too: the GEMM net's O2 steps widen one per step, and
// a fresh 64 MiB array cost ~7 ms of faults (O2-fp16 344-358 -> 330-339 ms, O2-bf16 185-188 -> 175-184;
// O0 unchanged). Opt out with SPORE_MALLOC_DEFAULTS=1; a user who tuned malloc through the environment
// keeps their settings.
bool keep_freed_memory() {
#ifdef __GLIBC__
    if (std::getenv("SPORE_MALLOC_DEFAULTS") || std::getenv("MALLOC_MMAP_THRESHOLD_") ||
        std::getenv("MALLOC_TRIM_THRESHOLD_"))
        return false;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables && std::strstr(tunables, "glibc.malloc")) return false;
    return mallopt(M_MMAP_THRESHOLD, 128 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 512 << 20) == 1;
#else
    return false;
#endif
}

}  // namespace

PYBIND11_MODULE(_kernels, m) {
    m.doc() = "Spore's C++ kernels (oneDNN, OpenMP); every function releases the GIL while it computes";
    m.attr("malloc_tuned") = keep_freed_memory();
    m.def("num_threads", []() { return omp_get_max_threads(); },
          "OpenMP threads the kernels use (OMP_NUM_THREADS)");
    m.def("set_num_threads", [](int n) { omp_set_num_threads(n); }, py::arg("n"));
    spore::register_gemm(m);
    spore::register_dense(m);
    spore::register_conv(m);
    spore::register_pool(m);
    spore::register_norm(m);
    spore::register_loss(m);
    spore::register_optim(m);
    spore::register_fused(m);
    spore::register_int8(m);
    spore::register_lowp(m);
    // The persistent conv tuning cache (spore/_runtime/tuning_cache.py) loads its decisions before the
    // first conv is built. A failure there must not stop the kernels from loading: autotuning then
    // simply runs as without a cache.
    try {
        py::module_::import("spore._runtime.tuning_cache").attr("attach")(m);
    } catch (py::error_already_set& e) {
        PyErr_WarnEx(PyExc_RuntimeWarning, (std::string("spore tuning cache not attached: ") + e.what()).c_str(), 1);
    }
}
