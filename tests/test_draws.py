"""polars_rank._engine.draws: the one way a plan draws a random number per row."""

from __future__ import annotations

import polars as pl

from polars_rank._engine.draws import uniform


def test_a_uniform_per_row_from_its_keys_only() -> None:
    frame = pl.DataFrame({"q": [f"q{i % 97}" for i in range(20_000)], "i": range(20_000)})
    key = pl.struct("q", "i")
    u = frame.select(uniform(key, 7).alias("u"))["u"]
    low, high, mean, var = (float(x) for x in (u.min(), u.max(), u.mean(), u.var()))
    assert low >= 0.0
    assert high < 1.0
    assert abs(mean - 0.5) < 0.01
    assert abs(var - 1 / 12) < 0.003
    # the same draw for the same keys whatever the row order; another seed, other draws
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=1).with_columns(
        u=uniform(key, 7)).sort("i")["u"]
    assert shuffled.equals(u)
    assert not frame.select(uniform(key, 8))["q"].equals(u)


def test_the_draw_is_53_bits_of_the_hash() -> None:
    frame = pl.DataFrame({"x": [1, 2, 3]})
    h = frame.select(pl.col("x").hash(seed=5))["x"].to_list()
    got = frame.select(uniform(pl.col("x"), 5))["x"].to_list()
    assert got == [(v >> 11) / 2**53 for v in h]
    # seeds are taken modulo 2**63 (the hash's range): any integer is a seed
    assert frame.select(uniform(pl.col("x"), 5 + 2**63))["x"].to_list() == got
