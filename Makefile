# Development tasks. `make help` lists them; `make install` makes the .venv they use.
PY ?= .venv/bin/python
NOTEBOOKS := notebooks/01_quickstart.ipynb notebooks/02_ab_experiment.ipynb \
             notebooks/03_recommender.ipynb notebooks/04_from_clicks_to_decisions.ipynb

.DEFAULT_GOAL := help
.PHONY: help install test test-ranx test-obp test-rbo doctest lint typing docs site-check docs-serve notebooks bench ci

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-11s %s\n", $$1, $$2}'

install:  ## a .venv with the package (editable) and every development extra
	python3 -m venv .venv && .venv/bin/pip install -e ".[test,docs,notebooks]"

test:  ## the test suite, doctests included (what CI runs)
	$(PY) -m pytest

test-ranx:  ## the fusion tests against ranx itself, not its recorded answers (after upgrading ranx or changing fusion)
	POLARS_RANK_LIVE_RANX=1 $(PY) -m pytest -p no:cacheprovider tests/test_fusion.py \
		tests/test_fusion_optimize.py tests/test_fusion_trained.py tests/test_cli_fuse.py \
		tests/test_ranx_fixtures.py

test-obp:  ## off_policy_value against OBP itself (installs OBP without its pins)
	$(PY) -m pip install -q -e ".[obp-reference]"
	$(PY) -m pip install -q --no-deps --ignore-requires-python obp==0.5.7
	POLARS_RANK_OBP=1 $(PY) -m pytest -p no:cacheprovider -n 0 tests/test_ope_obp_live.py

test-rbo:  ## rbo and ranking_similarity against the rbo package itself (installs it without its pins)
	$(PY) -m pip install -q -e ".[rbo-reference]"
	$(PY) -m pip install -q --no-deps rbo==0.1.3
	POLARS_RANK_RBO=1 $(PY) -m pytest -p no:cacheprovider -n 0 tests/test_rbo_live.py

doctest:  ## only the examples of the docstrings
	$(PY) -m pytest polars_rank

lint:  ## ruff
	$(PY) -m ruff check .

typing:  ## mypy --strict on the package
	$(PY) -m mypy

docs:  ## build the documentation site into site/, warnings are errors
	$(PY) -m mkdocs build --strict

site-check:  ## open every page of the built site in headless Chromium (after make docs)
	POLARS_RANK_SITE=site $(PY) -m pytest -q -p no:cacheprovider tests/test_site.py

docs-serve:  ## serve the documentation with live reload
	$(PY) -m mkdocs serve

notebooks:  ## execute the notebooks from a clean kernel (outputs are not saved)
	$(dir $(PY))jupyter execute --kernel_name=python3 $(NOTEBOOKS)

bench:  ## benchmark against pytrec_eval, ranx, ir_measures (needs the [bench] extra)
	$(PY) benches/generate.py 1m && $(PY) benches/run.py 1m

ci:  ## everything CI runs, on a clean clone
	bash .ci/run
