"""Record what PyClick itself (run from its source) fits on seven small click logs.

    git clone https://github.com/markovi/PyClick /tmp/PyClick   # commit 98e7e46
    python tests/record_pyclick.py /tmp/PyClick

writes tests/fixtures/pyclick_fit.json: for each of PBM, UBM, cascade (``CM``), DCM,
SDBN, DBN and CCM, the log (150 sessions of 10 results, simulated from known
parameters by ``simulate_clicks``; stored, so the test does not depend on how a Polars
version draws) and every parameter PyClick fitted on it. PyClick is not on PyPI (the
``pyclick`` there is another project) and runs on Python 3 as it is, so CI reads these
recorded answers: tests/test_pyclick_fixtures.py compares our fits (and the
transcription in tests/click_models_reference.py) with them. Re-record after changing
the logs below; the answers do not depend on the machine.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "pyclick_fit.json"
MODELS = ("pbm", "ubm", "cascade", "dcm", "sdbn", "dbn", "ccm")
ITERATIONS = 4  # EM iterations for PBM, UBM, DBN and CCM (the others are closed forms)
COMMIT = "98e7e460231b2b607bf58b2f16a4fd1124cee042"


def logs() -> dict[str, list[list[Any]]]:
    """Each model's log as [query, [items], [clicks]] per session, in session order."""
    sys.path.insert(0, str(ROOT))
    from polars_rank.online import simulate_clicks
    from tests.test_click_models import ranking, truth

    shown = ranking(150, seed=3)
    out = {}
    for model in MODELS:
        log = simulate_clicks(truth(model), shown, seed=5).sort("impression", "position")
        grouped = log.group_by("impression", maintain_order=True).agg(
            "query", "item", "click")
        out[model] = [[q[0], items, [int(c) for c in clicks]]
                      for q, items, clicks in grouped.select("query", "item", "click").iter_rows()]
    return out


def values(container: Any) -> Any:
    """A PyClick parameter container as nested lists / dicts of floats."""
    inner = container._container
    if isinstance(inner, dict):  # query -> document -> parameter
        return {q: {d: p.value() for d, p in docs.items()} for q, docs in inner.items()}
    if isinstance(inner, list):  # rank (-> previous click rank) -> parameter
        return [[p.value() for p in row] if isinstance(row, list) else row.value()
                for row in inner]
    return inner.value()  # a single parameter


def main(source: str) -> None:
    sys.path.insert(0, source)
    from pyclick.click_models.CCM import CCM
    from pyclick.click_models.CM import CM
    from pyclick.click_models.DBN import DBN
    from pyclick.click_models.DCM import DCM
    from pyclick.click_models.Inference import EMInference
    from pyclick.click_models.PBM import PBM
    from pyclick.click_models.SDBN import SDBN
    from pyclick.click_models.UBM import UBM
    from pyclick.search_session.SearchResult import SearchResult
    from pyclick.search_session.SearchSession import SearchSession

    classes = {"pbm": PBM, "ubm": UBM, "cascade": CM, "dcm": DCM, "sdbn": SDBN, "dbn": DBN,
               "ccm": CCM}
    record: dict[str, Any] = {"pyclick_commit": COMMIT, "iterations": ITERATIONS, "models": {}}
    for model, sessions in logs().items():
        data = []
        for query, items, clicks in sessions:
            session = SearchSession(query)
            session.web_results = [SearchResult(d, c) for d, c in zip(items, clicks, strict=True)]
            data.append(session)
        fitted = classes[model]()
        if isinstance(fitted._inference, EMInference):
            fitted._inference = EMInference(ITERATIONS)
        fitted.train(data)
        record["models"][model] = {
            "sessions": sessions,
            "parameters": {name.name: values(container)
                           for name, container in fitted.params.items()},
        }
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(record, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
