// (being written) registers the optim kernels
#include "kernels.h"

namespace spore {

void register_optim(py::module_& m) { (void)m; }

}  // namespace spore
