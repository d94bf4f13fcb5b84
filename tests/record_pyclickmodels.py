"""Record pyClickModels' DBN on tests/pyclickmodels_cases.py's logs.

pyClickModels (WillianFuks/pyClickModels, commit e0515d8) is Cython over json-c: CI
cannot build it, so its answers are recorded in ``tests/fixtures/pyclickmodels_dbn.json``
and ``tests/test_pyclickmodels_fixtures.py`` checks them. To record again (Debian or
Ubuntu, as root; a minute):

    apt-get install -y libjson-c-dev
    python3 -m venv /tmp/pycm-venv
    /tmp/pycm-venv/bin/pip install "cython<3" numpy ujson setuptools  # 0.29: its code
    git clone https://github.com/WillianFuks/pyClickModels /tmp/pycm-float
    cd /tmp/pycm-float && git checkout e0515d8e07310d4b6369f2768647a3808b4904dc
    git apply /path/to/polars-rank/tests/fixtures/pyclickmodels_init.patch
    cp -r /tmp/pycm-float /tmp/pycm-double && cd /tmp/pycm-double && sed -i -E \\
        's/\\bfloat\\b/double/g' pyClickModels/DBN.pyx pyClickModels/DBN.pxd tests/test_cy_DBN.pyx
    (cd /tmp/pycm-float && /tmp/pycm-venv/bin/python setup.py build_ext --inplace)
    (cd /tmp/pycm-double && /tmp/pycm-venv/bin/python setup.py build_ext --inplace)
    /tmp/pycm-venv/bin/python tests/record_pyclickmodels.py /tmp/pycm-float /tmp/pycm-double

The patch starts every parameter at 0.5 (pyClickModels draws them from ``rand()``
seeded with the clock) and adds a method that reads the fitted parameters; see the
patch's header. ``float`` is the patched source as shipped (C float arithmetic);
``double`` the same with every ``float`` made ``double``, which the transcription
``PyClickModelsDBN`` (tests/click_models_reference.py) must match to 1e-9. For each
case and build the file holds, after ``ITERATIONS`` EM iterations, alpha and sigma
per (query, doc) and gamma, written with ``repr`` (every bit), and the hash of the
case's log. The script needs only the standard library and the built pyClickModels.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pyclickmodels_cases as pc  # noqa: E402

COMMIT = "e0515d8e07310d4b6369f2768647a3808b4904dc"


def _query(key: bytes) -> str:
    """pyClickModels' query key is ``search_term:<q>`` (DBN.pyx:190-239)."""
    text = key.decode()
    assert text.startswith("search_term:"), text
    return text.removeprefix("search_term:")


def child(build: str) -> None:
    """Run in a fresh interpreter per build (both are the module ``pyClickModels``)."""
    sys.path.insert(0, build)
    from pyClickModels.DBN import DBNModel  # type: ignore[import-not-found]

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, sessions in pc.cases().items():
            path = Path(folder) / name
            path.mkdir()
            with gzip.open(path / "judgments0.gz", "wt") as f:
                f.write(pc.judgments(sessions))
            out[name] = {}
            for iters in pc.ITERATIONS:
                model = DBNModel()
                with contextlib.redirect_stdout(io.StringIO()):  # it prints each iteration
                    model.fit(str(path), iters)
                got = model.get_params()
                out[name][str(iters)] = {
                    "gamma": got["gamma"],
                    **{p: {_query(q): {d.decode(): v for d, v in sorted(docs.items())}
                           for q, docs in sorted(got[p].items())}
                       for p in ("alpha", "sigma")}}
    json.dump(out, sys.stdout)


def main(float_build: str, double_build: str) -> None:
    builds = {}
    for kind, build in (("float", float_build), ("double", double_build)):
        done = subprocess.run([sys.executable, __file__, "--child", build],
                              capture_output=True, text=True, check=True)
        builds[kind] = json.loads(done.stdout)
    document = {
        "pyClickModels": f"WillianFuks/pyClickModels@{COMMIT} + "
                         "tests/fixtures/pyclickmodels_init.patch",
        "iterations": list(pc.ITERATIONS),
        "inputs": {name: pc.case_hash(s) for name, s in pc.cases().items()},
        "builds": builds,
    }
    pc.FIXTURE.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"wrote {pc.FIXTURE}")


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2])
