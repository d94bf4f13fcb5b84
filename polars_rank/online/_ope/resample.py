"""The bootstrap over impressions of a ratio estimate ``sum num / sum den``.

NumPy (the ``stats`` extra) is imported here, lazily, as ``compare()`` does. The
resamples of a slice come from the seed and the slice's key, so they do not depend on
row order or on the other slices; every estimator of a slice sees the same resamples.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from polars_rank._stats.common import batch_sizes

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt
    import polars as pl

    from polars_rank.online._ope.options import Options

    Array = npt.NDArray[np.float64]

__all__ = ["ratio_intervals", "slice_intervals"]

CHUNK_CELLS = 4_000_000  # resample indices drawn at once (32 MB of int64)


def ratio_intervals(parts: Sequence[tuple[Array, Array]], *, seed: int | None,
                    key: tuple[Any, ...], alpha: float,
                    n_resamples: int) -> list[tuple[float, float]]:
    """Percentile intervals of ``sum num[idx] / sum den[idx]`` over resampled impressions.

    ``parts`` holds one (num, den) pair of per-impression arrays per estimator, all in
    the same impression order; each resample draws the impressions once for all of them.
    """
    import numpy as np

    n = parts[0][0].size
    rng = np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(zlib.crc32(repr(key).encode()),)))
    draws: list[list[Array]] = [[] for _ in parts]
    for size in batch_sizes(n_resamples, n, budget=CHUNK_CELLS):
        idx = rng.integers(0, n, size=(size, n))
        for j, (num, den) in enumerate(parts):
            with np.errstate(divide="ignore", invalid="ignore"):
                draws[j].append(num[idx].sum(axis=1) / den[idx].sum(axis=1))
    out = []
    for values in draws:
        v = np.concatenate(values)
        v = v[np.isfinite(v)]
        if v.size == 0:
            out.append((float("nan"), float("nan")))
            continue
        low, high = np.quantile(v, [alpha / 2, 1 - alpha / 2])
        out.append((float(low), float(high)))
    return out


def slice_intervals(per_impression: pl.DataFrame, count: int,
                    opts: Options) -> list[list[tuple[float | None, float | None]]]:
    """Per slice (in the order of first appearance), each estimator's bootstrap interval.

    ``per_impression`` holds each estimator's per-impression sums ``num<n>``, ``den<n>``
    (``off_policy_value``'s frame); no resamples: no interval (and no NumPy).
    """
    keys = list(opts.group_by)
    parts = (per_impression.partition_by(keys, maintain_order=True, as_dict=True) if keys
             else {(): per_impression})
    if not opts.n_resamples:
        return [[(None, None)] * count for _ in parts]
    out: list[list[tuple[float | None, float | None]]] = []
    for key, frame in parts.items():
        arrays = [(frame[f"num{n}"].to_numpy(), frame[f"den{n}"].to_numpy()) for n in range(count)]
        out.append(list(ratio_intervals(arrays, seed=opts.seed, key=tuple(key),
                                        alpha=opts.alpha, n_resamples=opts.n_resamples)))
    return out
