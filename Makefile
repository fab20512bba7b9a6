# Prestage — the two commands a user needs are `make run` and `make test`.
# Both install what is missing (Debian packages via apt-get, idempotent), then build.

SWIFT        ?= swift
CONFIG       ?= release
SCENARIO     ?= scenarios/default.json
# System packages the build and the tests need on a fresh Debian machine with only Swift.
APT_PACKAGES := libgsl-dev pkg-config python3 python3-venv chromium fonts-liberation varnish varnish-modules valgrind man-db groff-base
BIN          := .build/$(CONFIG)

.PHONY: all deps build run test test-swift schema test-bench bench-plan test-cluster test-kills test-notebooks test-testbed test-fuzz fuzz fuzz-build testbed notebooks bench bench-baseline swarm clean

all: build

## deps: install missing Debian packages (idempotent; needs root or sudo).
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(APT_PACKAGES))"; exit 0; fi; \
	echo "deps: installing$$missing"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else \
	  echo "deps: cannot install$$missing: not root and no sudo. Install them with your package manager." >&2; exit 1; fi; \
	if ! command -v apt-get >/dev/null; then \
	  echo "deps: apt-get not found; install$$missing (GSL >= 2.6 with its pkg-config file) yourself." >&2; exit 1; fi; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null \
	  || { echo "deps: apt-get install$$missing failed (see above)." >&2; exit 1; }; \
	echo "deps: installed$$missing"

## build: release build of every target.
build: deps
	$(SWIFT) build -c $(CONFIG)

## run: build and run the default scenario; prints where the report is.
run: build
	$(BIN)/prestage run $(SCENARIO)

## test: the whole test suite (CI runs exactly this): Swift tests, the regression gate (`prestage bench`
## against results/baseline/, see docs/ci.md), the Slurm end-to-end test, the notebooks, the loopback testbed,
## a short run of every fuzz target. Every part runs even when an earlier one fails, and the last line
## is one summary over all of them: `make test: N passed, N failed (…)`; it fails if any part did.
TEST_PARTS := test-swift test-bench test-cluster test-notebooks test-testbed test-fuzz
test:
	@passed=0; failed=""; start=$$(date +%s); \
	for part in $(TEST_PARTS); do \
	  t0=$$(date +%s); \
	  if $(MAKE) --no-print-directory $$part; then passed=$$((passed + 1)); result="passed"; else failed="$$failed $$part"; result="FAILED"; fi; \
	  echo "make test: $$part $$result in $$(( $$(date +%s) - t0 )) s"; \
	done; \
	nfailed=$$(echo $$failed | wc -w); \
	echo "make test: $$passed passed, $$nfailed failed$${failed:+ ($${failed# })} of $(words $(TEST_PARTS)) parts in $$(( $$(date +%s) - start )) s"; \
	[ "$$nfailed" = 0 ]

# The test suite's Python tools, each a venv under .build with its pinned requirements (the stamp
# is the requirements file it was built from, so it is rebuilt only when they change):
# jsonschema for ScenarioSchemaTests (the bundled scenario and sweep files against docs/schema/),
# libcachesim for LibCacheSimOracleTests (Prestage's LRU against libCacheSim's on the same traces).
SCHEMA_VENV  := .build/schema-venv
SCHEMA_STAMP := $(SCHEMA_VENV)/installed-requirements.txt
ORACLE_VENV  := .build/oracle-venv
ORACLE_STAMP := $(ORACLE_VENV)/installed-requirements.txt

define venv_from_requirements
	rm -rf $(dir $@)
	python3 -m venv $(dir $@)
	$(dir $@)bin/pip install --quiet --disable-pip-version-check -r $<
	cp $< $@
endef

$(SCHEMA_STAMP): Tests/schema/requirements.txt
	$(venv_from_requirements)

$(ORACLE_STAMP): Tests/oracles/requirements.txt
	$(venv_from_requirements)

## test-swift: build and run the Swift test suite (ScenarioSchemaTests uses $(SCHEMA_VENV)'s jsonschema,
## LibCacheSimOracleTests $(ORACLE_VENV)'s libcachesim).
test-swift: deps $(SCHEMA_STAMP) $(ORACLE_STAMP)
	$(SWIFT) build --build-tests
	PRESTAGE_SCHEMA_PYTHON=$(CURDIR)/$(SCHEMA_VENV)/bin/python PRESTAGE_ORACLE_PYTHON=$(CURDIR)/$(ORACLE_VENV)/bin/python \
		$(SWIFT) test --skip-build

## test-bench: the regression gate: `prestage bench` (release) against results/baseline/; fails on a
## significant regression beyond its threshold, a changed fingerprint, or more than 3 % more
## instructions (callgrind; valgrind is in APT_PACKAGES, so the count is required here).
test-bench: deps
	$(SWIFT) build -c $(CONFIG) --product prestage
	$(BIN)/prestage bench --require-instructions

## test-cluster: end-to-end test of the Slurm path (installs slurm-wlm and munge if missing, starts a
## throwaway single-node Slurm, runs a sharded sweep as an array job, merges, compares with a local
## run, runs a `prestage plan` step by step through it and compares with a local plan, stops
## everything) and of the Kubernetes manifest. Needs root. See docs/cluster/README.md.
test-cluster: deps
	$(SWIFT) build --product prestage
	bash Tests/cluster/slurm-e2e.sh

## test-kills: kills `prestage run` with SIGKILL at 300 random points (about 10 minutes) and checks
## that no kill leaves a complete-looking directory that is not, and that every rerun succeeds.
## Not part of `make test` (which kills a run once, in ResultsOwnershipTests). KILLS=N to change.
KILLS ?= 300
test-kills: deps
	$(SWIFT) build --product prestage
	bash Tests/kills/kill-test.sh $(KILLS)

## testbed: the scenario scaled down (TESTBED_ARGS, default 200 devices over 60 s) on real software on
## 127.0.0.1 -- Varnish edges and shields, a Python origin, shaped links, PreloadKit devices -- and in
## the model, compared in results/NAME-testbed/testbed-report.md (docs/testbed.md).
TESTBED_ARGS ?=
testbed: build
	$(BIN)/prestage testbed $(SCENARIO) $(TESTBED_ARGS)

## test-testbed: the testbed's real-software tests (VCL in Varnish, the link shaper's timing, a
## 200-device run against the model, a killed origin); about 100 s. Needs the varnish packages.
test-testbed: deps
	$(SWIFT) build --build-tests
	PRESTAGE_TESTBED=1 $(SWIFT) test --skip-build --filter TestbedTests

## fuzz-build: the libFuzzer targets (Tests/fuzz/targets/) with swiftc -sanitize=fuzzer,address into
## .build/fuzz/bin/ (docs/fuzzing.md); only modules whose sources changed are rebuilt.
fuzz-build: deps
	bash Tests/fuzz/build.sh

## fuzz: every fuzz target for FUZZ_SECONDS each (default 300 s, judgement: 7 targets, about 35 minutes), in turn;
## prints executions and coverage per target; a crash fails it, its input in .build/fuzz/crashes/TARGET/.
## FUZZ_TARGETS to run some (payload manifest url headers session scenario logs). Not part of `make test`.
FUZZ_SECONDS  ?= 300
FUZZ_TARGETS  ?=
fuzz: fuzz-build
	bash Tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## test-fuzz: the fuzz smoke in `make test`: every target for FUZZ_SMOKE_SECONDS (default 7 s; about 8 s
## each with start-up, 56 s in all; judgement: enough to replay the committed seeds and mutate them
## 7 000 to 200 000 times), from the seeds alone (FUZZ_FRESH=1), so its time does not grow with the
## corpus `make fuzz` keeps.
FUZZ_SMOKE_SECONDS ?= 7
test-fuzz: fuzz-build
	FUZZ_FRESH=1 bash Tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS)

# Jupyter notebooks over results/examples/: a venv under .build with the pinned requirements
# (reinstalled only when requirements.txt changes), the debug prestage for the example sweeps.
NB_DIR      := notebooks-export
NB_VENV     := .build/notebooks-venv
NB_STAMP    := $(NB_VENV)/installed-requirements.txt
NB_EXAMPLES := results/examples
NOTEBOOKS   := $(NB_DIR)/warm-ahead-comparison.ipynb $(NB_DIR)/capacity-planning.ipynb

$(NB_STAMP): $(NB_DIR)/requirements.txt
	rm -rf $(NB_VENV)
	python3 -m venv $(NB_VENV)
	$(NB_VENV)/bin/pip install --quiet --disable-pip-version-check -r $(NB_DIR)/requirements.txt
	cp $(NB_DIR)/requirements.txt $@

## notebooks: regenerate results/examples/ with the real CLI, execute the notebooks in place and
## re-export their HTML (notebooks-export/*.html).
notebooks: deps $(NB_STAMP)
	$(SWIFT) build --product prestage
	rm -rf $(NB_EXAMPLES)/warm-ahead $(NB_EXAMPLES)/capacity
	.build/debug/prestage sweep $(NB_DIR)/sweeps/warm-ahead.json --out $(NB_EXAMPLES)/warm-ahead
	.build/debug/prestage sweep $(NB_DIR)/sweeps/capacity.json --out $(NB_EXAMPLES)/capacity
	$(NB_VENV)/bin/jupyter nbconvert --log-level WARN --to notebook --execute --ExecutePreprocessor.record_timing=False --inplace $(NOTEBOOKS)
	$(NB_VENV)/bin/jupyter nbconvert --log-level WARN --to html $(NOTEBOOKS)

## test-notebooks: execute the notebooks headless against the committed results/examples/ (into a
## temporary directory; the committed notebooks and HTML are not touched).
test-notebooks: deps $(NB_STAMP)
	@out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	$(NB_VENV)/bin/jupyter nbconvert --log-level WARN --to notebook --execute --output-dir "$$out" $(NOTEBOOKS) \
	  && echo "test-notebooks: $(words $(NOTEBOOKS)) notebooks executed against $(NB_EXAMPLES)/ without errors"

## bench: benchmarks (speed targets live here, never in timed unit tests): the kernel hold model,
## then the regression suite (reports in results/bench/).
bench: build
	$(BIN)/prestage-kernel-bench
	$(BIN)/prestage bench
	bash Tests/bench/fit-throughput.sh $(BIN)/prestage

## bench-plan: the time-to-answer benchmark (about 5 min on 2 cores, target 15 min): black-friday-plan
## at 5 M devices, the highest send rate to 10 % at 95 % for warm-ahead 0 (docs/performance.md).
bench-plan: build
	rm -rf results/bench/plan-black-friday
	/usr/bin/time -v $(BIN)/prestage plan black-friday-plan --set 'campaigns[0].warm.aheadSeconds=0' \
	  --vary 'campaigns[0].sendRatePerMinute=6000..6000000' --tolerance 10% --out results/bench/plan-black-friday

## swarm: a long model-level swarm campaign: SWARM_WORLDS random small worlds from SWARM_SEED, each
## run on 1 and 2 threads in the debug build (invariant checks on) and checked against the model's
## conservation laws; each failure prints the command that reproduces its world (docs: `prestage swarm --help`).
SWARM_WORLDS ?= 5000
SWARM_SEED   ?= 1
swarm: deps
	$(SWIFT) build --product prestage
	.build/debug/prestage swarm --seed $(SWARM_SEED) --worlds $(SWARM_WORLDS) --keep .build/swarm-failures

## bench-baseline: record results/baseline/ deliberately; review `git diff results/baseline` and commit.
bench-baseline: deps
	$(SWIFT) build -c $(CONFIG) --product prestage
	$(BIN)/prestage bench --update-baseline

## schema: regenerate docs/schema/*.schema.json (JSON Schema of scenario and sweep files) with the CLI.
schema: deps
	$(SWIFT) build --product prestage
	mkdir -p docs/schema
	.build/debug/prestage schema scenario > docs/schema/scenario.schema.json
	.build/debug/prestage schema sweep > docs/schema/sweep.schema.json

clean:
	rm -rf .build
