# One way to check everything: `make test` here is exactly what CI runs.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-pyproject.sha256
# byte-compiled before anything runs: episodes start Python processes that would otherwise
# compile changed sources at every start where PYTHONDONTWRITEBYTECODE is set
COMPILE := bash installer/compile.sh

.PHONY: bootstrap run test replays lint bench clean

$(STAMP): pyproject.toml installer/bootstrap.sh
	bash installer/bootstrap.sh

bootstrap:
	bash installer/bootstrap.sh

run: $(STAMP)
	$(COMPILE)
	$(VENV)/bin/ehr-sandbox up

lint: $(STAMP)
	$(VENV)/bin/ruff check sandbox episodes verifier portal_web pixel_stream desktop_ehr tests fixtures examples
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

# tests run on up to four workers (one per core): episodes mostly wait on pages and settles;
# an idle worker takes tests queued for a busy one (the long episodes go first: conftest.py)
test: $(STAMP) lint
	$(COMPILE)
	$(PY) -m pytest -q --numprocesses=auto --maxprocesses=4 --dist worksteal --durations=25

# every recorded gold trace replayed in a fresh episode (make test replays a sample)
replays: $(STAMP)
	$(COMPILE)
	EHR_REPLAY_ALL=1 $(PY) -m pytest -q --numprocesses=auto --maxprocesses=4 \
		tests/tasks/test_gold_episodes.py -k test_recorded_gold_trace_replays_to_one

bench: $(STAMP)
	$(COMPILE)
	$(PY) -m episodes.benchmarks

clean:
	rm -rf runs .pytest_cache
