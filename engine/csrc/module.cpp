// spore._kernels: Spore's C++ kernels. Each family registers itself here.
#include "kernels.h"

#include <malloc.h>
#include <omp.h>

#include <unistd.h>

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

// A block of the creating thread's malloc arena whose pages are faulted in later, from any thread,
// before it goes back to that arena (spore/_runtime/tuning_cache.py's prefault_heap). Why: glibc
// gives each thread its own arena, so only the thread that trains can allocate the block its first
// step will reuse, but touching the pages (the slow part in a VM: ~1 us a page) can happen on
// another core while the user builds the network. malloc alone touches no page of the block; after
// `fault_in_and_free` (idempotent) the block is free memory of the creator's arena, kept by
// keep_freed_memory's trim threshold. The destructor frees a block that was never faulted in.
class HeapBlock {
  public:
    explicit HeapBlock(size_t bytes) : p_(static_cast<char*>(std::malloc(bytes))), n_(p_ ? bytes : 0) {}
    HeapBlock(const HeapBlock&) = delete;
    HeapBlock& operator=(const HeapBlock&) = delete;
    ~HeapBlock() { std::free(p_); }
    size_t size() const { return n_; }
    void fault_in_and_free() {
        py::gil_scoped_release nogil;
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        volatile char* c = p_;
        for (size_t i = 0; i < n_; i += page) c[i] = 0;
        std::free(p_);
        p_ = nullptr;
        n_ = 0;
    }

  private:
    char* p_;
    size_t n_;
};

}  // namespace

PYBIND11_MODULE(_kernels, m) {
    m.doc() = "Spore's C++ kernels (oneDNN, OpenMP); every function releases the GIL while it computes";
    m.attr("malloc_tuned") = keep_freed_memory();
    m.def("num_threads", []() { return omp_get_max_threads(); },
          "OpenMP threads the kernels use (OMP_NUM_THREADS)");
    m.def("set_num_threads", [](int n) { omp_set_num_threads(n); }, py::arg("n"));
    py::class_<HeapBlock>(m, "HeapBlock", "heap reserved in the creating thread's arena, faulted in from any thread")
        .def(py::init<size_t>(), py::arg("nbytes"))
        .def_property_readonly("nbytes", &HeapBlock::size, "bytes still reserved (0 once faulted in and freed)")
        .def("fault_in_and_free", &HeapBlock::fault_in_and_free,
             "touch every page of the block (without the GIL), then free it to the creator's arena");
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
