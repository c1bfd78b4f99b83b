// (being written) registers the loss kernels
#include "kernels.h"

namespace spore {

void register_loss(py::module_& m) { (void)m; }

}  // namespace spore
