# rplay: two commands set up a fresh Debian 12 machine and do everything.
#   make demo   the seed corpus on a local MariaDB pair, predicted, observed, compared, report written
#   make test   the whole test suite, real servers included (local MariaDB, MySQL 9.7 / MariaDB 11.8 containers)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
RPLAY := $(VENV)/bin/rplay
PYTEST_ARGS ?=

.PHONY: demo test venv system-deps dockerd images lint typecheck bench clean

demo: system-deps venv
	$(RPLAY) demo --out reports/demo

test: system-deps venv dockerd images
	@status=0; \
	RPLAY_REQUIRE_DOCKER=1 RPLAY_REQUIRE_SPARK=1 $(VENV)/bin/pytest -rs $(PYTEST_ARGS) || status=$$?; \
	if [ -n "$$RPLAY_STOP_DOCKERD" ]; then bash docker/stop-dockerd.sh || true; fi; \
	exit $$status

system-deps:
	@bash .ci/system-deps.sh

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[all]'
	touch $@

dockerd:
	@bash docker/start-dockerd.sh

images: venv dockerd
	$(RPLAY) images build

lint: venv
	$(VENV)/bin/ruff check predictor harness tests benchmarks
	$(VENV)/bin/mypy

bench: venv
	for b in benchmarks/*_bench.py; do $(VENV)/bin/python $$b || exit 1; done

clean:
	rm -rf $(VENV) reports build *.egg-info .pytest_cache .mypy_cache .ruff_cache
