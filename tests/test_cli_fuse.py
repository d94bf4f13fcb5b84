"""``polars-rank fuse``: the written run equals pr.fuse's and ranx.fuse's (0.3.21)."""

from __future__ import annotations

import itertools
import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import pytest

import polars_rank as pr
from polars_rank.__main__ import main

if TYPE_CHECKING:
    from pathlib import Path

ranx = pytest.importorskip("ranx")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three runs: 8 queries, lists of up to 15 documents (ranx keeps ties in input
    order up to 15), some documents in one run only, equal scores in the third."""
    rng = np.random.default_rng(3)
    out = tmp_path_factory.mktemp("fuse")
    paths = []
    for system in range(3):
        rows = []
        for q in range(8):
            docs = rng.choice(30, size=int(rng.integers(1, 16)), replace=False)
            scores = (rng.integers(0, 3, len(docs)).astype(float) if system == 2
                      else rng.normal(size=len(docs)) * 10)
            rows += [{"qid": f"q{q}", "docid": f"d{d:02}", "score": float(s)}
                     for d, s in zip(docs, scores, strict=True)]
        path = out / f"sys{system}.run"
        pr.write_run(pl.DataFrame(rows), path, tag=f"sys{system}")
        paths.append(path)
    return paths


CASES: list[tuple[str, str, list[str], dict[str, Any]]] = [
    ("rrf", "min-max", [], {}),
    ("rrf", "none", ["k=10"], {"k": 10}),
    ("sum", "min-max", [], {}),
    ("mnz", "zmuv", [], {}),
    ("wsum", "min-max", ["weights=0.2,0.5,0.3"], {"weights": [0.2, 0.5, 0.3]}),
    ("rbc", "max", ["phi=0.8"], {"phi": 0.8}),
    ("isr", "rank", [], {}),
]


@pytest.mark.ranx
@pytest.mark.parametrize(("method", "norm", "argv", "params"), CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_fused_file_equals_fuse_and_ranx(tmp_path: Path, files: list[Path], method: str,
                                         norm: str, argv: list[str],
                                         params: dict[str, Any]) -> None:
    out = tmp_path / "fused.run"
    args = [str(p) for p in files]
    assert main(["fuse", *args, "-m", method, "--norm", norm, "-o", str(out),
                 *[a for p in argv for a in ("--param", p)]]) == 0
    got = pr.read_run(out)
    assert set(got["tag"].to_list()) == {f"polars-rank-{method}"}
    runs = [pr.read_run(p).select("qid", "docid", "score") for p in files]
    expected = pr.fuse(runs, method, norm=None if norm == "none" else norm, params=params)
    assert isinstance(expected, pl.DataFrame)
    # the same documents, and the same score at each rank of each query, to the last
    # bits: exact equality failed about once in ten runs under xdist (mnz-zmuv, where
    # equal scores of the third run make near-ties), not reproduced in one process
    key = ["qid", "docid"]
    assert got.select(key).sort(key).equals(expected.select(key).sort(key))

    def by_rank(frame: pl.DataFrame) -> list[float]:
        return frame.sort("qid", "rank")["score"].to_list()

    assert by_rank(got) == pytest.approx(by_rank(expected), rel=1e-12, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.fuse([ranx.Run.from_file(str(p), kind="trec") for p in files],
                           norm=None if norm == "none" else norm, method=method,
                           params=params).to_dict()
    assert got.height == sum(len(docs) for docs in theirs.values())
    for q, d, s, _ in got.select("qid", "docid", "score", "rank").iter_rows():
        assert math.isclose(s, theirs[q][d], rel_tol=1e-9, abs_tol=1e-9), (q, d)
    for (_,), rows in got.group_by("qid"):  # the same ranking
        values = [theirs[q][d] for q, d in rows.sort("rank").select("qid", "docid")
                  .iter_rows()]
        assert all(a >= b - 1e-9 for a, b in itertools.pairwise(values))


@pytest.mark.parametrize(("argv", "message"), [
    (["-m", "wsum"], "'wsum' needs weights"),
    (["--param", "k"], "--param must be NAME=VALUE"),
    (["--param", "k=x"], "--param k: not a number"),
    (["--param", "phi=0.5"], "'rrf' takes k; got phi"),
    (["-m", "wsum", "--param", "weights=1,2"], "one weight per run"),
])
def test_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path, files: list[Path],
                argv: list[str], message: str) -> None:
    assert main(["fuse", *map(str, files), "-o", str(tmp_path / "x.run"), *argv]) == 2
    assert message in capsys.readouterr().err
    assert main(["fuse", str(files[0]), "-o", str(tmp_path / "x.run")]) == 2
    assert "at least two runs" in capsys.readouterr().err
