# icml26 companion. The two commands: `make reproduce` and `make test`.
# Every target creates .venv from the exact lock file on first use and reuses it afterwards.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.icml26-installed

PAPERS ?=
SCALE  ?= quick
SEED   ?= 0
DEVICE ?= auto
JOBS   ?= 2
PAPER  ?= data_mixing

# Tests run like CI: one torch thread per worker, no CUDA, no display, headless widget checks.
TESTENV := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 ICML26_THREADS=1 CUDA_VISIBLE_DEVICES= MPLBACKEND=Agg \
           PLOTLY_RENDERER=plotly_mimetype ICML26_HEADLESS=1 PYTHONHASHSEED=0

.PHONY: setup release-check gpu reproduce site seeds standard test lint unit notebooks ui lab explore report bench list clean

$(STAMP): requirements/ci.lock pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/ci.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

# The one set-up command: .venv from the exact lock file, the package installed in it (every target runs it first).
setup: $(STAMP)
	@echo "ready: .venv ($$(du -sh $(VENV) | cut -f1)); next: make reproduce, make lab or make test"

reproduce: $(STAMP)
	$(PY) -m icml26 reproduce --papers "$(PAPERS)" --scale "$(SCALE)" --seed "$(SEED)" --device "$(DEVICE)" --jobs "$(JOBS)"

# A browsable site of the executed notebooks and the scoreboard (build/site/index.html), from the quick run.
site: reproduce
	$(PY) -m icml26 site --out build

# The five-seed quick evidence every claim checked at quick needs (not part of CI; a test checks it is recorded).
seeds: $(STAMP)
	$(PY) -m icml26 sweep --papers "$(PAPERS)" --scale quick --seeds 0,1,2,3,4 --jobs "$(JOBS)" \
	    --device cpu --record results/quick.jsonl

# The standard-scale verdicts over the evaluation seeds 0, 1, 2 (minutes per paper and seed on 2 cores).
standard: $(STAMP)
	$(PY) -m icml26 sweep --papers "$(PAPERS)" --scale standard --seeds 0,1,2 --jobs "$(JOBS)" \
	    --device cpu --record results/standard.jsonl

test: lint unit notebooks ui

lint: $(STAMP)
	$(PY) -m ruff check lib tests benchmarks notebooks

unit: $(STAMP)
	$(TESTENV) $(PY) -m pytest -n 2 --timeout 600 tests --ignore=tests/test_notebooks.py --ignore=tests/ui

notebooks: $(STAMP)
	$(TESTENV) $(PY) -m pytest -n 2 --timeout 900 tests/test_notebooks.py

ui: $(STAMP)
	$(TESTENV) $(PY) -m pytest -p no:xdist --timeout 600 tests/ui

explore: $(STAMP)
	$(PY) -m icml26 explore "$(PAPER)"

# Saved notebooks keep no outputs (what is on screen stays), so `make test` stays green after a session.
lab: $(STAMP)
	$(PY) -m jupyter lab notebooks/ --ContentsManager.pre_save_hook=icml26.notebook_tidy.strip_on_save \
	    --LabApp.news_url=None $(if $(filter 0,$(shell id -u)),--allow-root,)

report: $(STAMP)
	$(PY) -m icml26 report

bench: $(STAMP)
	$(PY) -m icml26 bench --papers "$(PAPERS)" --device "$(if $(filter auto,$(DEVICE)),cpu,$(DEVICE))"

# The GPU path in one command, within 480 s (python -m icml26 gpu-check): the device's ceilings, every paper's quick
# run on CUDA against its CPU record, the benchmarks on CUDA; results into benchmarks/RESULTS.md and
# notebooks/NN_<slug>/RESULTS.md. `make gpu ARGS=--dry-run` takes the same steps on the CPU at tiny sizes and writes
# into a temporary folder. It uses .venv where one exists (CPU torch: the dry run), else the machine's python3, whose
# CUDA torch a GPU machine provides (README, "GPU use").
GPU_PY ?= $(if $(wildcard $(PY)),$(PY),$(PYTHON))
release-check:
	$(PY) -m icml26 release-check

gpu:
	PYTHONPATH=lib$${PYTHONPATH:+:$$PYTHONPATH} $(GPU_PY) -m icml26 gpu-check $(ARGS)

list: $(STAMP)
	$(PY) -m icml26 list

clean:
	rm -rf build
