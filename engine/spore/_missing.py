"""What Spore says when code asks for a MindSpore name it does not have.

`spore`, `spore.ops`, `spore.nn`, `spore.train`, `spore.amp`, `spore.dataset` (and its `vision`,
`text`, `transforms`) and `Tensor` end their attribute lookup in `missing_attribute`: a name
MindSpore 2.10 has (`_mindspore_names.NAMES`) raises `NotSupportedError` — "spore does not have
mindspore.ops.X yet", or the documented reason from `EXCLUDED` when Spore leaves it out by design —
and anything else (a typo) raises the usual AttributeError. Both are AttributeErrors, so `hasattr`
and `getattr(obj, name, default)` behave as always, and `dir()` lists only what exists (the
language server's "unknown name" check reads `dir`).

`EXCLUDED` is the one exclusion table: MindSpore names that need hardware, services or file
formats Spore does not have. Everything else missing is simply not written yet (issue 14).
Regenerate the name list after updating the JSON with ``python -m spore._missing <json>``; print
the documented coverage table (every missing name with its reason) with ``python -m spore._missing
--report``.
"""

from __future__ import annotations

from .errors import NotSupportedError

_DISTRIBUTED = "multi-device/distributed training; Spore runs one CPU process"
_DEVICE = "device streams and memory pools of Ascend/GPU; Spore runs on the CPU with NumPy memory"
_MINDRECORD = "converts to MindSpore's MindRecord format, which Spore does not write"
_MINDIR = "MindIR is MindSpore's own graph format; Spore exports and imports ONNX"
_ENCRYPT = "encrypted/obfuscated models are a MindSpore serving feature Spore does not implement"
_SERVICE = "needs a MindSpore service (parameter server, MindIO, fault-tolerance agent) Spore does not run"
_REWRITE = "MindSpore's source-rewrite API (mindspore.rewrite), not part of Spore"

EXCLUDED: dict[str, str] = {
    **{f"mindspore.{n}": _DISTRIBUTED for n in (
        "comm_exec_order_check", "communication_stream",
        "load_distributed_checkpoint", "restore_group_info_list", "shard", "reshard",
        "transform_checkpoint_by_rank", "transform_checkpoints", "rank_list_for_transform", "Layout",
        "merge_pipeline_strategys", "sync_pipeline_shared_parameters", "set_kernel_launch_group",
        "build_searched_strategy", "get_ckpt_path_with_strategy", "parameter_broadcast", "set_algo_parameters",
        "get_algo_parameters", "reset_algo_parameters")},
    **{f"mindspore.train.{n}": _DISTRIBUTED for n in (
        "load_distributed_checkpoint", "restore_group_info_list", "build_searched_strategy",
        "get_ckpt_path_with_strategy")},
    **{f"mindspore.ops.{n}": _DISTRIBUTED for n in (
        "init_process_group", "destroy_process_group", "new_group", "get_rank", "get_group_rank",
        "get_global_rank", "get_process_group_ranks", "set_comm_ops_inplace")},
    **{f"mindspore.{n}": _DEVICE for n in (
        "Stream", "StreamCtx", "StreamLimitCtx", "current_stream", "default_stream", "set_cur_stream",
        "synchronize", "Event", "MemPool", "PluggableAllocator", "use_mem_pool", "set_stream_limit",
        "reset_stream_limit", "get_stream_limit", "DeviceCtx", "set_kernel_launch_capture", "launch_blocking",
        "empty_cache", "ms_memory_recycle", "memory_replay", "set_device_limit", "get_device_limit",
        "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
        "memory_summary", "reset_max_memory_allocated", "reset_max_memory_reserved", "reset_peak_memory_stats",
        "set_memory", "UntypedStorage", "swap_tensors")},
    "mindspore.Tensor.offload": _DEVICE,
    "mindspore.Tensor.offload_file_path": _DEVICE,
    **{f"mindspore.{n}": _MINDRECORD for n in (
        "Cifar10ToMR", "Cifar100ToMR", "CsvToMR", "ImageNetToMR", "MnistToMR", "TFRecordToMR", "FileReader",
        "FileWriter")},
    **{f"mindspore.{n}": _MINDIR for n in ("load_mindir", "save_mindir", "export_split_mindir")},
    "mindspore.train.export_split_mindir": _MINDIR,
    **{f"mindspore.{n}": _ENCRYPT for n in (
        "obfuscate_ckpt", "load_obf_params_into_net", "set_enc_key", "set_enc_mode", "set_dec_mode")},
    **{f"mindspore.{n}": _SERVICE for n in (
        "set_ps_context", "get_ps_context", "reset_ps_context", "mindio_preload", "set_mindio_server_info",
        "TrainFaultTolerance", "sdc_detect_start", "sdc_detect_stop", "get_sdc_detect_result", "stress_detect",
        "RSCPluginHandle")},
    "mindspore.train.TrainFaultTolerance": _SERVICE,
    **{f"mindspore.{n}": _REWRITE for n in ("Node", "NodeType", "ScopedValue", "SymbolTree")},
    **{f"mindspore.dataset.text.{n}": "jieba segmentation needs the jieba library and its HMM/MP dictionary "
                                       "files, which Spore does not ship" for n in ("JiebaTokenizer", "JiebaMode")},
    "mindspore.dataset.transforms.Plugin": "loads a MindData C++ plugin library built against MindSpore's runtime; "
                                           "use a Python function in map() instead",
    **{f"mindspore.ops.{n}": _SERVICE for n in ("Pull", "Push")},
    **{f"mindspore.ops.{n}": _DISTRIBUTED + " (redistributes a tensor between semi-auto-parallel layouts; Spore's "
                             "data-parallel ranks hold whole tensors)" for n in ("Reshard", "reshard")},
    "mindspore.ops.GetNext": "reads the device data queue that dataset sink mode fills (MindSpore's data channel to "
                             "Ascend/GPU); Spore's Model feeds each batch from the host dataset iterator",
    "mindspore.unified_safetensors": "merges the safetensors slices of a model-parallel run by its strategy file; "
                                     "Spore's data-parallel ranks hold whole parameters and "
                                     "save_checkpoint(format='safetensors') writes them whole",
    "mindspore.ops.sparse_flash_attention": "an Ascend-only fused kernel (float16/bfloat16, head dim fixed at 512, "
                                            "paged KV layouts); MindSpore has no CPU implementation",
    **{f"mindspore.ops.{n}": "Ascend-only fused kernel (Supported Platforms: Ascend); MindSpore has no CPU "
                             "implementation to match" for n in (
        "lightning_indexer", "moe_distribute_combine", "moe_distribute_dispatch", "moe_init_routing_v2",
        "moe_token_permute", "moe_token_unpermute", "nsa_compress", "nsa_compress_attention",
        "nsa_select_attention", "PagedAttention", "PagedAttentionMask", "prompt_flash_attention",
        "ring_attention_update", "speed_fusion_attention", "matmul_reduce_scatter",
        "flash_attention_score", "fused_infer_attention_score", "incre_flash_attention", "GroupTopk",
        "all_gather_matmul", "ApplyRotaryPosEmb")},
    **{f"mindspore.ops.{n}": "registers or writes kernels for MindSpore's Ascend/GPU kernel compilers (TBE, AKG "
                             "hybrid DSL); Spore has no such compilers" for n in ("op_info_register", "ms_kernel",
                                                                                  "kernel")},
    **{f"mindspore.ops.{n}": "an internal op MindSpore's graph compiler inserts (side-effect ordering, Python "
                             "fallback); not user-facing, and Spore's compiler needs no such node" for n in (
        "UpdateState", "PyExecute")},
    **{f"mindspore.ops.{n}": "a dataflow control op of MindSpore's GE (Ascend graph engine) backend: the output on "
                             "the branch not taken is a 'dead' tensor that only GE's dataflow executor can carry; "
                             "an eager/traced CPU engine has no dead tensors (use if on a tensor, or ops.select)"
       for n in ("GeSwitch", "Merge")},
    "mindspore.Tensor.set_device_address": _DEVICE,
    # internals of MindSpore's runtime that its package happens to export (issue 14, rest slice)
    **{f"mindspore.dataset.{n}": "an argument-checking decorator of MindSpore's dataset methods (internal); "
                                 "Spore's methods validate their own arguments" for n in (
        "check_add_column", "check_batch", "check_bucket_batch_by_length", "check_concat", "check_device_send",
        "check_dict_iterator", "check_filter", "check_iterator_cleanup", "check_map", "check_output_shape",
        "check_padded_batch", "check_project", "check_recv", "check_rename", "check_repeat", "check_save",
        "check_schema", "check_send", "check_shuffle", "check_skip", "check_split", "check_sync_update",
        "check_sync_wait", "check_take", "check_to_device_send", "check_total_batch", "check_tuple_iterator",
        "check_zip", "check_zip_dataset")},
    **{f"mindspore.dataset.{n}": "a piece of MindData's multiprocessing worker machinery (shared-memory block "
                                 "pairs, worker processes and their liveness checks); Spore's pipeline has its "
                                 "own workers" for n in (
        "BlockReleasePair", "WorkerTarget", "close_worker", "worker_is_alive", "FuncWrapper", "DummyIterator")},
    "mindspore.dataset.TransferDataset": "the stage that sends a pipeline to an Ascend/GPU device queue "
                                         "(dataset sink); Spore feeds the CPU directly",
    # issue 14, data slice
    "mindspore.dataset.encrypt": "encrypts a MindRecord file with MindSpore's C++ crypto (AES-GCM/SM4-CBC in its own "
                                 "file layout); Spore does not write MindRecord",
    "mindspore.dataset.sync_wait_for_dataset": "waits for OBSMindDataset's downloads from Huawei Cloud OBS (a storage "
                                               "service); Spore has no OBS reader",
    **{f"mindspore.nn.{n}": "THOR (second-order optimizer) layers, built for Ascend/GPU kernels; Spore has no THOR"
       for n in ("Conv2dThor", "DenseThor", "EmbeddingLookupThor", "EmbeddingThor", "thor")},
    **{f"mindspore.{ns}{n}": "converts a network/model for the THOR optimizer, which Spore does not have"
       for ns in ("", "train.") for n in ("ConvertModelUtils", "ConvertNetUtils")},
    **{f"mindspore.nn.{n}": _DISTRIBUTED for n in (
        "AdaSumByDeltaWeightWrapCell", "AdaSumByGradWrapCell", "VirtualDatasetCellTriple", "MicroBatchInterleaved",
        "GradAccumulationCell")},
    "mindspore.runtime_execution_order_check": _DISTRIBUTED,
    "mindspore.nn.OptTFTWrapper": _SERVICE,
    "mindspore.ExitByRequest": _SERVICE,
    "mindspore.nn.GetNextSingleOp": "reads a device data queue (dataset sink on Ascend/GPU); Spore feeds the CPU "
                                    "directly",
    "mindspore.nn.GraphCell": _MINDIR,
    **{f"mindspore.{n}": "Ascend profiling/dump (FLOPs utilisation, environment profiler, kernel dumps); Spore's "
                         "profiler is spore.Profiler" for n in (
        "EnvProfiler", "FlopsUtilizationCollector", "train.FlopsUtilizationCollector", "flops_collection",
        "set_dump")},
    **{f"mindspore.amp.{n}": "an internal object of MindSpore's C++ runtime (JIT executor, context singleton) "
                             "exported by its amp module; not user-facing" for n in ("JitExecutor_", "MSContext")},
    "mindspore.dispatch_threads_num": "sets the thread count of MindSpore's Ascend kernel-dispatch queue; Spore "
                                      "has no dispatch queue (its thread count is SPORE_NUM_THREADS)",
    **{f"mindspore.{n}": "a helper of MindSpore's jit parser (which modules/methods its graph mode refuses); Spore's "
                         "compiler has its own rules" for n in (
        "get_obj_module_and_name_info", "is_invalid_or_jit_forbidden_method", "is_jit_forbidden_module")},
}


def missing_attribute(namespace: str, name: str, owner: str | None = None) -> AttributeError:
    """The error for `<namespace>.<name>` that does not exist (`namespace` as MindSpore spells it,
    e.g. ``"mindspore.ops"``): a `NotSupportedError` for a MindSpore name, else an AttributeError
    worded like Python's own (`owner`: what Python would call the object, default the module)."""
    from ._mindspore_names import NAMES

    qual = f"{namespace}.{name}"
    if name in NAMES.get(namespace, ()):
        return NotSupportedError(qual, EXCLUDED.get(qual))
    what = owner or f"module {namespace.replace('mindspore', 'spore', 1)!r}"
    return AttributeError(f"{what} has no attribute {name!r}")


def render_names(api: dict[str, object]) -> str:
    """The source of `_mindspore_names.py` for the names (keys) of a MindSpore API JSON's ``api``."""
    by: dict[str, list[str]] = {}
    for qual in api:
        module, name = qual.rsplit(".", 1)
        by.setdefault(module, []).append(name)
    lines = ['"""MindSpore 2.10\'s public CPU names, per namespace (generated from',
             "tests/engine/data/mindspore-api-2.10-names.json by `python -m spore._missing`; a test keeps them equal).",
             "",
             "Only the names: what lets a module's `__getattr__` tell \"a MindSpore name Spore lacks\" from a typo.",
             '"""', "", "NAMES: dict[str, frozenset[str]] = {"]
    for module in sorted(by):
        rows, row = [], ""
        for n in sorted(by[module]):
            piece = repr(n) + ", "
            if len(row) + len(piece) > 104:
                rows.append(row.rstrip())
                row = ""
            row += piece
        rows.append(row.rstrip())
        lines.append(f"    {module!r}: frozenset(")
        lines.append("        {" + rows[0])
        lines.extend("         " + r for r in rows[1:])
        lines[-1] = lines[-1].rstrip(",") + "}),"
    lines.append("}")
    return "\n".join(lines) + "\n"


def coverage_report() -> str:
    """The documented table, in Markdown: per namespace how many of MindSpore's names Spore has, then
    every missing name with its reason ("not written yet" unless `EXCLUDED` gives one).
    ``python -m spore._missing --report`` prints it; the names come from the running modules."""
    import importlib

    import spore

    from ._mindspore_names import NAMES

    def has(namespace: str, name: str) -> bool:
        obj: object = spore
        for part in namespace.split(".")[1:]:
            try:
                obj = getattr(obj, part)
            except AttributeError:
                try:
                    obj = importlib.import_module(f"spore.{part}" if obj is spore else f"{obj.__name__}.{part}")
                except (ImportError, AttributeError):
                    return False
        return hasattr(obj, name)

    lines = ["| namespace | Spore has | of | % |", "|---|---:|---:|---:|"]
    missing: list[tuple[str, str]] = []
    total_have = total = 0
    for ns in sorted(NAMES):
        names = sorted(NAMES[ns])
        have = [n for n in names if has(ns, n)]
        missing += [(f"{ns}.{n}", EXCLUDED.get(f"{ns}.{n}", "not written yet")) for n in names if n not in have]
        total_have, total = total_have + len(have), total + len(names)
        lines.append(f"| `{ns}` | {len(have)} | {len(names)} | {100 * len(have) / len(names):.1f} |")
    lines.append(f"| all | {total_have} | {total} | {100 * total_have / total:.1f} |")
    lines += ["", "| missing name | reason |", "|---|---|"]
    lines += [f"| `{q}` | {reason} |" for q, reason in sorted(missing, key=lambda m: (m[1] == "not written yet", m[0]))]
    return "\n".join(lines) + "\n"


def coverage_doc() -> str:
    """docs/mindspore-api-coverage.md: the report under a heading that says where it comes from."""
    return ("# MindSpore 2.10 API coverage\n\n"
            "Generated by `python -m spore._missing --doc` from the running modules (a test fails when this file\n"
            "is stale). A missing name raises `spore.errors.NotSupportedError` with the reason below. The names\n"
            "are MindSpore 2.10's public CPU names (`tests/engine/data/mindspore-api-2.10-names.json`).\n\n"
            + coverage_report())


if __name__ == "__main__":
    import json
    import pathlib
    import sys

    if sys.argv[1:] == ["--report"]:
        print(coverage_report(), end="")
    elif sys.argv[1:] == ["--doc"]:
        print(coverage_doc(), end="")
    else:
        data = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))["api"]
        pathlib.Path(__file__).with_name("_mindspore_names.py").write_text(render_names(data), encoding="utf-8")
