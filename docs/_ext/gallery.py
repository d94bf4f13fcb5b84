"""The charts of the Plots page (the docs hook runs this file and saves each chart)."""
# The page shows the sections between the markers, so they read as a user's script.
import contextlib
import io
import re
from pathlib import Path

# --8<-- [start:data]
import polars as pl

import polars_rank as pr

df = pr.datasets.synthetic_experiment(
    1000, arms=("control", "treatment", "treatment-b"), seed=7)
# --8<-- [end:data]

# --8<-- [start:metric_at_k]
ks = (1, 3, 5, 10, 20)
per_query = pr.evaluate(df, metrics=[f"ndcg@{k}" for k in ks] + [f"recall@{k}" for k in ks],
                        group_by="arm", per_query=True)
curves = pr.plot.metric_at_k(per_query, query="qid")
curves.save("metric_at_k.svg")
# --8<-- [end:metric_at_k]

# --8<-- [start:forest]
by_device = pr.evaluate(df, metrics=["ndcg@10", "map", "mrr@10"],
                        group_by=["device", "arm"], per_query=True)
comparison = pr.compare(by_device, baseline="control", group_by="device")
forest = pr.plot.forest(comparison, title="treatments vs control, per device")
forest.save("forest.svg")
# --8<-- [end:forest]

# --8<-- [start:distribution]
two_arms = by_device.filter(pl.col("arm") != "treatment-b")
spread = pr.plot.distribution(two_arms, "ndcg@10", baseline="control")
spread.save("distribution.svg")
# --8<-- [end:distribution]

# --8<-- [start:report]
systems = pr.datasets.synthetic_experiment(
    100, arms={"bm25": 1.0, "bm25_rm3": 1.05, "dense": 1.2, "hybrid": 1.3}, seed=3)
per_system = pr.evaluate(systems, metrics=["ndcg@10", "map@100", "mrr@10"], group_by="arm",
                         per_query=True, doc="docid")
pairs = pr.report(pr.compare(per_system), format="chart")
pairs.save("report.svg")
# --8<-- [end:report]

# --8<-- [start:bounds]
# a third of the documents never judged (as a dense retriever's new finds)
sparse = df.with_columns(pl.when(pl.col("docid").hash(seed=1) % 3 == 0).then(None)
                         .otherwise(pl.col("rel")).alias("rel"))
cutoffs = (1, 3, 5, 10, 20)
bounded = pr.evaluate(sparse, metrics=[f"p@{k}" for k in cutoffs], group_by="arm",
                      bounds=True)
ends = pl.concat([
    bounded.select("arm", pl.lit(end).alias("unjudged"),
                   *(pl.col(f"p@{k}_{end}").alias(f"p@{k}") for k in cutoffs))
    for end in ("low", "high")
])
band = pr.plot.metric_at_k(
    ends, series=["arm", "unjudged"],
    title="P@k, unjudged documents non-relevant (low) or relevant (high)")
band.save("bounds.svg")
# --8<-- [end:bounds]

CHARTS = {"metric_at_k": curves, "forest": forest, "distribution": spread, "report": pairs,
          "bounds": band}

# The charts of the LLM-judges page are drawn by the page's own code, run here as
# tests/test_docs.py runs it (its python blocks in order, their output discarded).
_page = Path(__file__).resolve().parent.parent / "llm-judges.md"
_blocks = re.findall(r"^```python\n(.*?)^```$", _page.read_text(), flags=re.M | re.S)
_namespace: dict[str, object] = {"__name__": "__docs__"}
with contextlib.redirect_stdout(io.StringIO()):
    for _block in _blocks:
        exec(compile(_block, str(_page), "exec"), _namespace)
CHARTS |= {"llm_judges_leaderboards": _namespace["leaderboards"],
           "llm_judges_forest": _namespace["forest"]}
