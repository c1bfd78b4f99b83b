"""Class forms of the random samplers of random_distribution_ops (`ops.StandardNormal(seed, seed2)`,
`ops.UniformInt`, `ops.RandomGamma`, `ops.Randperm`, ...), defined there next to their functions."""

from __future__ import annotations

from .random_distribution_ops import (
                                      Multinomial,
                                      Poisson,
                                      RandomCategorical,
                                      RandomGamma,
                                      RandomPoisson,
                                      RandomShuffle,
                                      Randperm,
                                      StandardLaplace,
                                      StandardNormal,
                                      UniformInt,
                                      UniformReal,
)

__all__ = ["Multinomial", "Poisson", "RandomCategorical", "RandomGamma", "RandomPoisson", "RandomShuffle",
           "Randperm", "StandardLaplace", "StandardNormal", "UniformInt", "UniformReal"]
