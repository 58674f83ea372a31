# Portico: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
NPM ?= npm
DATA_DIR ?= ./data
ARGS ?=

.PHONY: install build run test typecheck lint unit integration clean \
        bench-pushgateway bench-search bench-management bench-operator

# npm ci only when package.json or the lock changed since the last install.
node_modules/.portico-installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	@touch $@

install: node_modules/.portico-installed

build: install
	$(NPM) run build

## Start every listener on embedded defaults, data under ./data (extra flags: make run ARGS="...")
run: build
	node dist/cli.js serve --data.dir $(DATA_DIR) $(ARGS)

## Type-check, lint and run every test (unit, integration, end-to-end)
test: build
	$(NPM) run typecheck
	$(NPM) run lint
	$(NPM) test

typecheck: install
	$(NPM) run typecheck

lint: install
	$(NPM) run lint

unit: install
	$(NPM) run test:unit

integration: build
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
