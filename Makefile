# Two commands for a newcomer: `make demo` and `make test`. Both create .venv and install everything.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.crseval-installed
# nothing compiles: llama.cpp comes as a prebuilt wheel (xllamacpp). The optional compiled binding
# (pip install -e ".[compiled]") builds faster without LLaVA: ~4.5 instead of ~12 minutes
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF
# Python's bytecode cache: every test worker and every process a test starts imports crseval and the tests from
# it instead of compiling them again (2-3 s per process here; an environment that disables it slows the suite)
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast lint docs install bench validate validate-llm clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip setuptools wheel
	# the exact pin takes the local CPU wheel; anything else pulls gigabytes of CUDA packages
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[all]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/crseval demo

# the whole suite, slow tests (embedded LLM, training, browser) included, on two worker processes, with the
# branch coverage of crseval/ printed at the end; pytest's exit 5 (no tests) is not a failure
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --cov --cov-report=term; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$rc

# the formatter, the linter and the import contract (also checked inside the test suite)
lint: $(STAMP)
	$(BIN)/ruff format --check crseval tests bench tools examples
	$(BIN)/ruff check crseval tests bench tools examples
	$(BIN)/lint-imports

# the fast subset for development, on two worker processes (timings in CONTRIBUTING.md); COV=1 adds coverage
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow" -n 2 --dist worksteal $(if $(COV),--cov --cov-report=term); rc=$$?; [ $$rc -eq 5 ] && exit 0; exit $$rc

# the documentation site (MyST pages; CLI, API, metric and dataset references generated); warnings are errors
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

# the validity gate: every validated figure that needs no LLM, re-measured on ../shared/data by its default
# command against its record (crseval/validated/); prints figure / recorded / now / verdict, exit 1 when one moved.
# ARGS="--only criterion,arena", ARGS="--update --only …" re-records (a change an issue asked for)
validate: $(STAMP)
	$(BIN)/python -m tools.validate $(ARGS)

# the same for the figures through the embedded LLM (the judge against people, the LLM card's known groups):
# ~11 min on 2 cores; a change that touches an LLM path runs it before it is resolved
validate-llm: $(STAMP)
	$(BIN)/python -m tools.validate --llm $(ARGS)

bench: $(STAMP)
	for b in bench/[!_]*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
