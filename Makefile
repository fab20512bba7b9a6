# Prestage — the two commands a user needs are `make run` and `make test`.
# Both install what is missing (Debian packages via apt-get, idempotent), then build.

SWIFT        ?= swift
CONFIG       ?= release
SCENARIO     ?= scenarios/default.json
# System packages the build and the tests need on a fresh Debian machine with only Swift.
APT_PACKAGES := libgsl-dev pkg-config python3 chromium fonts-liberation
BIN          := .build/$(CONFIG)

.PHONY: all deps build run test test-cluster bench clean

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

## test: the whole test suite (CI runs exactly this).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## test-cluster: end-to-end test of the Slurm path (installs slurm-wlm and munge if missing, starts a
## throwaway single-node Slurm, runs a sharded sweep as an array job, merges, compares with a local
## run, stops everything) and of the Kubernetes manifest. Needs root. See docs/cluster/README.md.
test-cluster:
	bash Tests/cluster/slurm-e2e.sh

## bench: benchmarks (speed targets live here, never in timed unit tests).
bench: build
	$(BIN)/prestage-kernel-bench

clean:
	rm -rf .build
