"""The Jupyter project's kernel conformance suite (`jupyter_kernel_test`) against the spore kernel.

Every standard check runs: kernel_info, stdout/stderr, completion, is_complete, the pager,
errors, execute_result, display_data, history (tail, range, search), inspect and clear_output.
The samples exercise Spore where the protocol allows it (a tensor's JSON bundle, `t.plt`'s PNG,
completion and inspection of Spore's API).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import jupyter_kernel_test as jkt
from jupyter_client.manager import KernelManager

from .harness import install_spec, spec_manager

TENSOR = "import spore as ms; ms.Tensor([[1.0, 2.0], [3.0, 4.0]])"


class SporeKernelTests(jkt.KernelTests):
    kernel_name = "spore"
    language_name = "python"
    file_extension = ".py"

    code_hello_world = "print('hello, world')"
    code_stderr = "import sys; print('to stderr', file=sys.stderr)"
    completion_samples = [
        {"text": "zi", "matches": {"zip"}},
        {"text": "from spore.ops import matm", "matches": {"matmul"}},
        {"text": "import spore as ms; ms.set_con", "matches": {"set_context"}},
    ]
    complete_code_samples = ["1", "print('hello, world')", "def f(x):\n  return x*2\n\n\n", "%spore_mode"]
    incomplete_code_samples = ["print('''hello", "def f(x):\n  x*2"]
    invalid_code_samples = ["import = 7q"]
    code_page_something = "import spore as ms\nms.ops.matmul?"
    code_generate_error = "raise ValueError('boom')"
    code_execute_result = [
        {"code": "1+2", "result": "3"},
        {"code": TENSOR, "mime": "application/vnd.spore.tensor+json"},
        {"code": "import spore as ms; ms.Tensor([1.0, 2.0])",
         "result": "Tensor[2] float32 n=2 8 B x∈[1, 2] μ=1.5 σ=0.5\n[1., 2.]"},
    ]
    code_display_data = [
        {"code": "from IPython.display import HTML, display; display(HTML('<b>spore</b>'))", "mime": "text/html"},
        {"code": "import spore as ms; display(ms.Tensor([[1.0, 2.0]]))", "mime": "application/vnd.spore.tensor+json"},
        {"code": "import spore as ms; display(ms.Tensor([[1.0, 2.0]]).plt)", "mime": "image/png"},
        {"code": "import spore as ms; display(ms.nn.Dense(2, 3))", "mime": "application/vnd.spore.cell+json"},
    ]
    code_history_pattern = "1?2*"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "ms.ops.matmul"
    code_clear_output = "from IPython.display import clear_output; clear_output()"

    @classmethod
    def setUpClass(cls) -> None:
        cls._tmp = tempfile.TemporaryDirectory()
        data_dir = install_spec(Path(cls._tmp.name))
        cls.km = KernelManager(kernel_name=cls.kernel_name, kernel_spec_manager=spec_manager(data_dir))
        cls.km.ip = "127.0.0.1"
        cls.km.start_kernel()
        cls.kc = cls.km.client()
        cls.kc.start_channels()
        cls.kc.wait_for_ready(timeout=60)

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        cls._tmp.cleanup()

    def test_kernel_info_names_spore(self) -> None:
        reply = self.kc.kernel_info(reply=True, timeout=jkt.TIMEOUT)["content"]
        self.assertEqual(reply["implementation"], "spore")
        self.assertIn("Spore", reply["banner"])
        self.assertIn("mode: pynative", reply["banner"])
        self.assertEqual(reply["language_info"]["name"], "python")
