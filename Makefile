# Portico: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
NPM ?= npm
DATA_DIR ?= ./data
# The embedded defaults of `make run`: the sample Traefik dynamic configuration feeds the
# management API, so the API and dashboard have something to show without a cluster.
RUN_FLAGS ?= --providers.file.filename examples/file-provider/dynamic.yaml
ARGS ?=

.PHONY: install build run test test-kube peers typecheck lint depcheck unit integration clean \
        bench-pushgateway bench-search bench-management bench-operator

# Each long step says what it is doing and how long it may take before it starts, and takes its
# time afterwards; make skips a step whose inputs have not changed since it last ran.
STEP = @printf 'make: %s\n'
TIMED = bash scripts/timed-step.sh

# npm ci only when package.json or the lock changed since the last install.
node_modules/.portico-installed: package.json package-lock.json
	$(STEP) "installing the dependencies (npm ci). The SQLite binding (better-sqlite3) is compiled from source when no prebuilt binary can be downloaded: 3-8 minutes on a first install on 2 cores, with only npm's spinner meanwhile"
	@$(TIMED) "dependencies installed" $(NPM) ci --no-audit --no-fund
	@touch $@

install: node_modules/.portico-installed

# dist/ is rebuilt only when a source, a tsconfig or the dependencies changed; tsc itself is
# incremental (tsconfig.build.json), so a rebuild after a small change recompiles little.
BUILD_INPUTS := $(shell find src -name '*.ts') tsconfig.json tsconfig.build.json scripts/bundle-kube-config.ts package.json
dist/.portico-built: node_modules/.portico-installed $(BUILD_INPUTS)
	$(STEP) "compiling the TypeScript into dist/ (tsc, then the operator's kubeconfig bundle): about 1 minute from scratch, less after a small change"
	@$(TIMED) "dist/ built" $(NPM) run --silent build
	@touch $@

build: dist/.portico-built

# The image's malloc settings (the Dockerfile's `ENV MALLOC_...` lines: why, there), so that
# `make run` keeps the memory the image keeps.
MALLOC_ENV := $(shell sed -n 's/^ENV \(MALLOC_[A-Z_]*=[0-9]*\)$$/\1/p' Dockerfile)

## Start every listener on embedded defaults, data under ./data (extra flags: make run ARGS="...")
run: build
	$(STEP) "dist/ is up to date; starting portico serve (Ctrl-C stops it)"
	$(MALLOC_ENV) node dist/cli.js serve --data.dir $(DATA_DIR) $(RUN_FLAGS) $(ARGS)

## Type-check, lint, check the import layers and run every test (unit, integration, end-to-end)
test: build peers
	$(STEP) "running every test (vitest: the kube project beside the unit and integration projects) with the type-check, lint and import-layer check beside them (scripts/run-tests.sh; about 7 minutes on 2 cores)"
	@$(TIMED) "checks and tests passed" bash scripts/run-tests.sh --with-checks

typecheck: install
	$(NPM) run typecheck

## Build (once; cached outside the repository) the Go peers the tests start: etcd and kube-apiserver
## for the kube suites, Pushgateway, Prometheus and the client_golang push client, and the OpenSearch
## node of the differential search suite (Maven), and Traefik for the management API's differential suite
peers:
	$(STEP) "finding (or on the first run, building from the Go module proxy and Maven Central: 25-60 minutes) kube-apiserver, etcd, Pushgateway, Prometheus, the Go push client, the OpenSearch node and Traefik for the tests"
	@$(TIMED) "peers ready" bash -c 'bash scripts/build-peers.sh >/dev/null'

## Run only the suites against a real kube-apiserver (prints how many real-server tests ran)
test-kube: build peers
	$(NPM) run test:kube

## Fail on an import cycle or an import that points up a layer (.dependency-cruiser.cjs)
depcheck: install
	$(NPM) run depcheck

lint: install
	$(NPM) run lint

unit: install
	$(NPM) run test:unit

integration: build peers
	$(NPM) run test:integration

bench-pushgateway: build
	$(NPM) run bench:pushgateway
bench-search: build
	$(NPM) run bench:search
bench-management: build
	$(NPM) run bench:management
bench-operator: build
	$(NPM) run bench:operator

clean:
	rm -rf dist node_modules/.portico-installed

# --- Container image, Helm chart and the kind end-to-end check (charts/portico, scripts/) ---------
.PHONY: image helm-lint helm-template e2e-kind crds-sync

PORTICO_IMAGE ?= portico:dev
HELM_TOOL = npx --no-install tsx scripts/helm-tool.ts
# helm template with the ServiceMonitor API advertised, as in a cluster with the Prometheus Operator.
HELM_TEMPLATE_FLAGS ?= --namespace portico --include-crds --api-versions monitoring.coreos.com/v1/ServiceMonitor

## Build the container image (docker build; PORTICO_IMAGE=repo:tag to name it)
image:
	docker build --tag $(PORTICO_IMAGE) .

## Lint the chart with default values and with every optional feature on
helm-lint: install
	$(HELM_TOOL) lint --strict charts/portico
	$(HELM_TOOL) lint --strict charts/portico --values test/fixtures/chart/values-all-features.yaml

## Render the chart with default values to stdout (extra flags: make helm-template ARGS="--set ...")
helm-template: install
	$(HELM_TOOL) template portico charts/portico $(HELM_TEMPLATE_FLAGS) $(ARGS)

## Build the image, then install and check the chart in a throwaway kind cluster (needs docker, kind, kubectl)
e2e-kind: install
	PORTICO_IMAGE=$(PORTICO_IMAGE) scripts/e2e-kind.sh

## Copy the CRDs of crds/ into the chart, replacing its copies (the chart must carry identical files)
crds-sync:
	@mkdir -p charts/portico/crds
	rm -f charts/portico/crds/*.yaml
	@set -e; for f in crds/*.yaml; do [ -e "$$f" ] || continue; cp "$$f" charts/portico/crds/; echo "synced $$f"; done
