"""Evaluation metrics with MindSpore's names (``mindspore.train.Accuracy``, ``get_metric_fn``, ...).

`Model(metrics={"accuracy"})` looks names up in the registry below; MindSpore's spellings are kept
(``"acc"``, ``"F1"``, ``"top_1_accuracy"``, ...), so `names()` lists what a MindSpore script may use.
"""

from __future__ import annotations

from typing import Any

from .accuracy import Accuracy
from .confusion_metric import ConfusionMatrixMetric
from .error import MAE, MSE
from .extra import ConfusionMatrix, CosineSimilarity, Dice, Perplexity, auc
from .fbeta import F1, Fbeta
from .loss import Loss
from .metric import EvaluationBase, Metric, rearrange_inputs
from .occlusion import OcclusionSensitivity
from .precision_recall import Precision, Recall
from .roc_bleu import ROC, BleuScore
from .surface_distance import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from .topk import Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy

__factory__: dict[str, type] = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "precision": Precision,
    "recall": Recall,
    "F1": F1,
    "topk": TopKCategoricalAccuracy,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE,
    "mse": MSE,
    "loss": Loss,
    "perplexity": Perplexity,
    "dice": Dice,
    "roc": ROC,
    "bleu_score": BleuScore,
    "hausdorff_distance": HausdorffDistance,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
}


def names() -> list[str]:
    """The registered metric names, sorted."""
    return sorted(__factory__)


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Metric:
    """A new metric instance by registered name (``get_metric_fn("precision", eval_type="multilabel")``)."""
    if name not in __factory__:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name!r}; supported names: {', '.join(names())}")
    return __factory__[name](*args, **kwargs)


def _name_of(metric: Metric) -> str:
    for key, cls in __factory__.items():
        if type(metric) is cls and key not in ("acc",):
            return key
    return type(metric).__name__


def get_metrics(metrics: Any) -> dict[str, Metric] | None:
    """`Model`'s ``metrics`` argument as a dict name -> Metric.

    A dict maps names to Metric instances (MindSpore); a set (or list/tuple) holds registered names
    and, as a Spore convenience, Metric instances too (keyed by their registry name, e.g. "accuracy").
    """
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, metric in metrics.items():
            if not isinstance(key, str) or not isinstance(metric, Metric):
                raise TypeError("For 'get_metrics', if 'metrics' is dict, the key in 'metrics' must be string and "
                                f"value in 'metrics' must be Metric, but got key:{type(key).__name__}, "
                                f"value:{type(metric).__name__}.")
        return dict(metrics)
    if isinstance(metrics, (set, frozenset, list, tuple)):
        out: dict[str, Metric] = {}
        for item in sorted(metrics, key=lambda m: m if isinstance(m, str) else _name_of(m)):
            if isinstance(item, str):
                out[item] = get_metric_fn(item)
            elif isinstance(item, Metric):
                out[_name_of(item)] = item
            else:
                raise TypeError(f"For 'get_metrics', a metric must be a name or a Metric, got {type(item).__name__}")
        return out
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but got {metrics!r}")


__all__ = ["Metric", "EvaluationBase", "rearrange_inputs", "Accuracy", "Precision", "Recall", "Fbeta", "F1",
           "MAE", "MSE", "Loss", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "names", "get_metric_fn", "get_metrics", "Perplexity", "ConfusionMatrix", "CosineSimilarity", "Dice",
           "auc", "ROC", "BleuScore",
           "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]
__all__ += ["ConfusionMatrixMetric"]
__all__ += ["OcclusionSensitivity"]
