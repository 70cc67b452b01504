# Makefile: the entry points a developer and CI share. CI runs `make lint
# cross test`: the linters, a build for every platform, then the tests (Go
# unit tests under the race detector, then the end-to-end suite in e2e/:
# official Pusher clients from npm against a real roost process).

GO       ?= go
NPM      ?= npm
FUZZTIME ?= 10s
ROOST_E2E_BIN := $(CURDIR)/e2e/.tmp/roost
# The hidden lockfile npm ci writes; older than package-lock.json means stale.
E2E_DEPS := e2e/node_modules/.package-lock.json

.PHONY: run build test unit e2e e2e-deps fuzz-short

## run: start a development server (zero-config: in-memory broker, dev app).
run:
	$(GO) run ./cmd/roost serve $(ARGS)

## build: the roost binary at ./roost.
build:
	$(GO) build -o roost ./cmd/roost

## test: Go tests with -race, then the e2e suite.
test: e2e-deps unit e2e

unit:
	$(GO) test -race ./...

## e2e: the real-client suite against both transports (builds roost first).
e2e: e2e-deps
	$(GO) build -o $(ROOST_E2E_BIN) ./cmd/roost
	cd e2e && ROOST_BIN=$(ROOST_E2E_BIN) $(NPM) test

e2e-deps: $(E2E_DEPS)

$(E2E_DEPS): e2e/package.json e2e/package-lock.json
	cd e2e && $(NPM) ci --no-audit --no-fund
	@touch $@

## fuzz-short: every Fuzz target in the module for FUZZTIME each.
fuzz-short:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run=NONE -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg; \
	  done; \
	done

# Linters at pinned versions, so that every run applies the same rules;
# `make lint` installs them into .tools/ through the Go module proxy.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOIMPORTS   := golang.org/x/tools/cmd/goimports@v0.52.0
TOOLS       := $(CURDIR)/.tools
MODULE       = $(shell $(GO) list -m)
GOFILES      = $(shell find . -name '*.go' -not -path './.*' -not -path '*/node_modules/*')
# The platforms besides Linux that every change must build for.
CROSS := darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64 freebsd/arm64

.PHONY: lint cross tools

## lint: go.mod tidy, gofmt and goimports clean, go vet (for Linux and for
## darwin, test files included) and staticcheck: CI fails on any finding.
lint: tools
	$(GO) mod tidy -diff
	@bad=$$(gofmt -l $(GOFILES)); [ -z "$$bad" ] || { echo "gofmt -w needed:"; echo "$$bad"; exit 1; }
	@bad=$$($(TOOLS)/goimports -local $(MODULE) -l $(GOFILES)); \
	  [ -z "$$bad" ] || { echo "goimports -local $(MODULE) -w needed:"; echo "$$bad"; exit 1; }
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	$(TOOLS)/staticcheck ./...

## cross: go build ./... for every platform in CROSS.
cross:
	@set -e; for p in $(CROSS); do \
	  echo "== GOOS=$${p%/*} GOARCH=$${p#*/} go build ./..."; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build ./...; \
	done

## tools: install the pinned linters into .tools/.
tools:
	GOBIN=$(TOOLS) $(GO) install $(STATICCHECK)
	GOBIN=$(TOOLS) $(GO) install $(GOIMPORTS)
