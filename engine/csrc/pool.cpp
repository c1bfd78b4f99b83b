// (being written) registers the pool kernels
#include "kernels.h"

namespace spore {

void register_pool(py::module_& m) { (void)m; }

}  // namespace spore
