"""off_policy_value after issue 39's second pass: shared sums and the skipped second read.

Estimators that share a term (SNIPS and DR: the same weights) sum it once and copy
it; each estimator's row must be, to the bit, what it is alone. The support check
reads the log a second time only when the log has candidate rows (null positions);
a log with them must still raise, or count them under ``support="ignore"``.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from polars_rank.errors import InvalidDataError
from polars_rank.online import off_policy_value

ALL = ["ips", "snips", "dm", "dr", "switch-dr", "iips", "sips", "rips", "cascade-dr"]


def make_log(seed: int, impressions: int = 60, positions: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = impressions * positions
    pscore = rng.uniform(0.05, 1.0, n)
    return pl.DataFrame({
        "impression": np.repeat(np.arange(impressions), positions),
        "position": np.tile(np.arange(1, positions + 1), impressions),
        "reward": rng.binomial(1, 0.4, n).astype(float), "pscore": pscore,
        "target": rng.uniform(0.0, 1.0, n), "q_hat": rng.uniform(0, 1, n),
        "q_hat_target": rng.uniform(0, 1, n),
        "pscore_cascade": pscore ** 0.5, "target_cascade": rng.uniform(0.0, 1.0, n),
    }).with_columns(
        pl.col("pscore").first().over("impression").alias("pscore_slate"),
        pl.col("target").first().over("impression").alias("target_slate"),
        (pl.col("impression") % 3).alias("slice"))


@pytest.mark.parametrize("kwargs", [{}, {"clip": 2.0, "switch_threshold": 1.5},
                                    {"group_by": "slice", "n_resamples": 30}])
def test_each_estimator_as_alone(kwargs: dict[str, object]) -> None:
    log = make_log(3)
    options: dict[str, object] = {"n_resamples": 0, **kwargs}
    together = off_policy_value(log, ALL, **options)  # type: ignore[arg-type]
    for name in ALL:
        alone = off_policy_value(log, name, **options)  # type: ignore[arg-type]
        assert together.filter(pl.col("estimator") == name).equals(alone), name

def test_shared_sums_against_numpy() -> None:
    # the weights are shared, the numerators are not; each diagnostic its own sum
    log = make_log(4).with_columns(pl.col("pscore").clip(upper_bound=0.5))
    pair = off_policy_value(log, ["snips", "dr"], n_resamples=0, near_zero=0.1)
    w = (log["target"] / log["pscore"]).to_numpy()
    r, q, qt = (log[c].to_numpy() for c in ("reward", "q_hat", "q_hat_target"))
    expected = [(r * w).sum() / w.sum(), (qt + w * (r - q)).mean()]
    assert pair["estimate"].to_list() == pytest.approx(expected, rel=1e-12)
    assert pair["ess"].to_list() == pytest.approx([w.sum() ** 2 / (w * w).sum()] * 2,
                                                  rel=1e-12)
    assert pair["max_weight"].to_list() == [w.max()] * 2
    share = float((log["pscore"] < 0.1).mean())  # type: ignore[arg-type]
    assert pair["near_zero"].to_list() == pytest.approx([share] * 2, rel=1e-12)


def test_candidates_are_still_read() -> None:
    log = make_log(5, impressions=5, positions=3).select(
        "impression", "position", "reward", "pscore", "target")
    candidate = pl.DataFrame({"impression": [4], "position": [None], "pscore": [0.0],
                              "target": [0.5]}, schema_overrides={"position": pl.Int64})
    frame = pl.concat([log, candidate], how="diagonal")
    with pytest.raises(InvalidDataError, match=r"support.*impression 4"):
        off_policy_value(frame, "ips", n_resamples=0)
    ignored = off_policy_value(frame, "ips", n_resamples=0, support="ignore")
    assert ignored["unsupported"].to_list() == [1]
    assert ignored.drop("unsupported").equals(
        off_policy_value(log, "ips", n_resamples=0).drop("unsupported"))
    lazy = off_policy_value(frame.lazy(), "ips", n_resamples=0, support="ignore")
    assert lazy.equals(ignored)
