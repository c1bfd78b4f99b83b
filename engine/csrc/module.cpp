// spore._kernels: Spore's C++ kernels. Each family registers itself here.
#include "kernels.h"

#include <omp.h>

PYBIND11_MODULE(_kernels, m) {
    m.doc() = "Spore's C++ kernels (oneDNN, OpenMP); every function releases the GIL while it computes";
    m.def("num_threads", []() { return omp_get_max_threads(); },
          "OpenMP threads the kernels use (OMP_NUM_THREADS)");
    m.def("set_num_threads", [](int n) { omp_set_num_threads(n); }, py::arg("n"));
    spore::register_gemm(m);
    spore::register_conv(m);
    spore::register_pool(m);
    spore::register_norm(m);
    spore::register_loss(m);
    spore::register_optim(m);
    spore::register_fused(m);
}
