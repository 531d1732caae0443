# gardener: plan/apply for Gardener landscapes. `make help` lists the targets.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS    := -X main.version=$(VERSION)
BIN        := $(CURDIR)/bin
LOCAL_DIR  := $(CURDIR)/.local
SEEDS      ?= 0
# gardener-controller-manager and gardener-scheduler run on the local virtual garden, as in a real
# garden: the engine leaves their work to them. GARDENER_CONTROLLERS=0 leaves them out.
GARDENER_CONTROLLERS ?= 1
# CI never reuses cached test results: every run must really execute the tests.
TESTFLAGS  ?= $(if $(CI),-count=1,)
TEST_TIMEOUT ?= 30m

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

.PHONY: build
build: ## build bin/gardener
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/gardener ./cmd/gardener

.PHONY: tools
tools: ## build the local control plane binaries and controller-gen into bin/ (only when a pin changed)
	tests/tools/build.sh
	go build -o $(BIN)/localcluster ./tests/localcluster/cmd/localcluster
	go run ./tests/crdgen -tool-only -bin $(BIN)

# The CRDs of components/crds come from the pinned Gardener's source tree (shared/gardener-<version>
# beside the repository or a directory above it, or $GARDENER_SOURCE) and the modules its go.mod pins; a test of
# components/crds regenerates them and fails when they differ.
.PHONY: crds
crds: ## regenerate components/crds from the pinned Gardener's API types (controller-gen) and the modules it pins
	go run ./tests/crdgen -bin $(BIN) -out components/crds

# A count, not a duration: Go 1.26's fuzz coordinator can fail a duration-bounded run with
# "context deadline exceeded" when a worker is mid-input at the deadline (go.dev/issue/75804,
# fixed in Go 1.27). 30000 inputs take 15 to 40 seconds here.
FUZZTIME ?= 30000x

.PHONY: test
test: tools ## run unit and integration tests (integration tests use the local control plane), then fuzz the loader briefly
	go test $(TESTFLAGS) -timeout $(TEST_TIMEOUT) ./...
	go test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -timeout 5m ./engine/config/

.PHONY: docs
docs: ## regenerate docs/components from the schemas
	go test ./components/catalog/ -run TestComponentDocsAreCurrent -update

# gosec's findings were reviewed: the false ones are excluded per file and rule, each with its
# reason, in tests/tools/gosec/config.json, or at the line with "#nosec G... -- why".
.PHONY: lint
lint: ## check formatting, run go vet and the security linter gosec (built into bin/ when its pin changed)
	@unformatted=$$(gofmt -l .); \
	if [[ -n "$$unformatted" ]]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	tests/tools/checkers.sh gosec
	$(BIN)/gosec -quiet -conf tests/tools/gosec/config.json -nosec-require-justification ./...

# govulncheck needs the Go vulnerability database (https://vuln.go.dev unless VULNDB names
# another, such as a copy at file:///path); where it cannot be reached, vuln says so and fails
# without a verdict (docs/development.md).
VULNDB ?= https://vuln.go.dev
# The packages checked; tests/tools narrows them to run quickly.
VULNPKGS ?= ./...

.PHONY: vuln
vuln: ## report known vulnerabilities in the code gardener reaches (govulncheck; needs its database, VULNDB)
	tests/tools/checkers.sh govulncheck
	@status=0; out=$$($(BIN)/govulncheck -db '$(VULNDB)' $(VULNPKGS) 2>&1) || status=$$?; \
	if [[ $$status -ne 0 ]] && grep -Eq '^(govulncheck: )?(creating client|fetching vulnerabilities): ' <<<"$$out"; then \
	  echo "$$out" >&2; \
	  echo "vuln: govulncheck cannot reach or read its vulnerability database $(VULNDB), so nothing was checked." >&2; \
	  echo "vuln: run make vuln where it can be reached, or with VULNDB=file:///path/to/a/copy (docs/development.md)." >&2; \
	  exit 2; \
	fi; \
	echo "$$out"; exit $$status

.PHONY: local-up
local-up: tools ## start the local control plane in the background (SEEDS=N adds seed clusters, GARDENER_CONTROLLERS=0 leaves out the Gardener controllers)
	$(BIN)/localcluster up --dir $(LOCAL_DIR) --seeds $(SEEDS) --gardener-controllers=$(if $(filter-out 0 false,$(GARDENER_CONTROLLERS)),true,false)

.PHONY: local-down
local-down: ## stop the local control plane
	@if [[ -x $(BIN)/localcluster ]]; then $(BIN)/localcluster down --dir $(LOCAL_DIR); \
	else echo "local control plane is not running"; fi

.PHONY: demo
demo: tools build ## walk through the local control plane (landscape plan/apply joins as it lands)
	tests/demo/run.sh

# The parts of make bench (tests/bench/cmd/bench, docs/performance.md): offline plans of
# landscapes/scale at fleet size, the no-op plan of landscapes/local against kubectl diff, gardener
# against kubectl and the LIST floor on live planes, and the write floor of parallel server-side
# apply. BENCH_PARTS=offline measures only the offline series, in minutes.
BENCH_PARTS ?= offline,local,scale,writefloor
# Shoot counts of landscapes/scale on live planes: 10, 50 and 100 shoots are about 1,900, 6,500 and
# 12,800 objects.
BENCH_SIZES ?= 10,50,100
# Shoot counts of the offline series; a size whose plan would not fit the machine's memory is
# reported as such, not run.
BENCH_OFFLINE_SIZES ?= 10,100,1000,10000
# More flags of tests/bench/cmd/bench, such as --offline-memory-mib or --write-parallelism.
BENCH_FLAGS ?=

.PHONY: bench
bench: tools build ## measure plans and applies on fresh local planes and offline plans at fleet size (BENCH_PARTS, BENCH_SIZES, BENCH_OFFLINE_SIZES); results in bench-results/
	go run ./tests/bench/cmd/bench --gardener $(BIN)/gardener --parts $(BENCH_PARTS) --sizes $(BENCH_SIZES) --offline-sizes $(BENCH_OFFLINE_SIZES) $(BENCH_FLAGS) --out bench-results

.PHONY: clean
clean: local-down ## stop the local control plane and remove build outputs except the tool binaries
	rm -rf $(LOCAL_DIR) $(BIN)/gardener $(BIN)/localcluster
