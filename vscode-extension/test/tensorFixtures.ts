/** spore.tensor/1 bundles as the kernel writes them (shapes of spore_kernel.tensor_view.json_bundle). */
export function bundle2d(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema: "spore.tensor/1", type: "Tensor", name: null, grad: null,
    summary: "Tensor[2, 3] float32 n=6 24 B x∈[0, 5] μ=2.5 σ=1.708",
    stats: {
      shape: [2, 3], dtype: "float32", size: 6, nbytes: 24, kind: "float", sampled: false, n_read: 6,
      min: 0, max: 5, mean: 2.5, std: 1.708, n_nan: 0, n_posinf: 0, n_neginf: 0, n_true: 0, all_zero: false,
      flags: [], histogram: { counts: [2, 2, 2], edges: [0, 1.6667, 3.3333, 5] },
    },
    values: { kind: "full", data: [[0, 1, 2], [3, 4, 5]] },
    heatmap: { slice: [], axes: [0, 1], shape: [2, 3], rows: [0, 1], cols: [0, 1, 2], downsampled: false, min: 0, max: 5,
      data: [[0, 1, 2], [3, 4, 5]] },
    ...overrides,
  };
}

export function bundle1d(): Record<string, unknown> {
  const b = bundle2d({ summary: "Tensor[3] float32 n=3 12 B", heatmap: null });
  (b.stats as Record<string, unknown>).shape = [3];
  return b;
}
