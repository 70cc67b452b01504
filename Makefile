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

.PHONY: run build test unit chaos chaos-regressions e2e e2e-deps fuzz-short bench-once static release release-check

# Release stamps, read by `roost version` (see docs/release.md). VERSION is
# x.y.z without a "v"; empty keeps the source's development version.
PKG        := github.com/roostproject/roost
VERSION    ?=
COMMIT     ?= $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD || c=$$c-dirty; echo $$c; })
# SOURCE_DATE_EPOCH (reproducible-builds.org) pins the date; else now, UTC.
BUILD_DATE ?= $(shell if [ -n "$$SOURCE_DATE_EPOCH" ]; then \
                date -u -d "@$$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ; \
              else date -u +%Y-%m-%dT%H:%M:%SZ; fi)
LDFLAGS     = -s -w $(if $(VERSION),-X $(PKG)/internal/server.Version=$(VERSION)) \
              -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)
PLATFORMS  ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 freebsd/amd64
DIST       ?= dist
GOOS       ?= $(shell $(GO) env GOOS)
GOARCH     ?= $(shell $(GO) env GOARCH)
OUT        ?= roost

## run: start a development server (zero-config: in-memory broker, dev app).
run:
	$(GO) run ./cmd/roost serve $(ARGS)

## build: the roost binary at ./roost.
build:
	$(GO) build -o roost ./cmd/roost

## static: one static binary (no cgo, -trimpath, stamped) for GOOS/GOARCH at
## OUT. The release target and the Dockerfile both build with it.
static:
	CGO_ENABLED=0 GOOS=$(GOOS) GOARCH=$(GOARCH) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(OUT) ./cmd/roost

## release: static binaries for every platform into dist/, with SHA256SUMS:
## make release VERSION=1.2.3 (PLATFORMS="linux/amd64" narrows it).
release:
	@echo "$(VERSION)" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$$' || \
	  { echo "usage: make release VERSION=x.y.z (got '$(VERSION)')" >&2; exit 2; }
	rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; [ "$$os" = windows ] && ext=.exe; \
	  out=$(DIST)/roost-$(VERSION)-$$os-$$arch$$ext; echo "build $$out"; \
	  $(MAKE) --no-print-directory static GOOS=$$os GOARCH=$$arch OUT=$$out \
	    VERSION=$(VERSION) COMMIT=$(COMMIT) BUILD_DATE=$(BUILD_DATE) >/dev/null; \
	done
	cd $(DIST) && { sha256sum roost-* 2>/dev/null || shasum -a 256 roost-*; } > SHA256SUMS
	@cat $(DIST)/SHA256SUMS

## release-check: check dist/ after make release (same VERSION and
## PLATFORMS): checksums, stamps, static linking, each binary's format and
## architecture, and the host's binary runs `roost version`.
release-check:
	$(GO) test -count=1 -tags release -run '^TestRelease' ./cmd/roost -args \
	  -dist '$(abspath $(DIST))' -version '$(VERSION)' -platforms '$(PLATFORMS)'

## test: Go tests with -race, the randomized cluster checker, then the e2e
## suite.
test: e2e-deps unit chaos-regressions e2e

## unit: Go tests with -race, all but the randomized checker (make chaos).
unit: pebble
	$(GO) test -race $$($(GO) list ./... | grep -v /test/chaos$$)

## chaos: the randomized cluster checker (test/chaos, docs/cluster.md) on a
## private Redis, Redis Cluster and NATS, for DURATION each with every
## fault; SEED= replays a schedule it printed, BACKEND= runs one backend.
SEED     ?=
DURATION ?= 1m
BACKEND  ?=
chaos:
	CHAOS_SEED=$(SEED) CHAOS_DURATION=$(DURATION) CHAOS_BACKEND=$(BACKEND) \
	  $(GO) test -race -count=1 -timeout 0 -v -run '^TestChaos$$' ./test/chaos

## chaos-regressions: what make test runs of the checker: every seed that
## once found a bug, on its backend, each through every kind of fault once.
## New seeds are make chaos's job: one that finds a new bug would otherwise
## fail an unrelated change.
chaos-regressions:
	$(GO) test -race -count=1 -timeout 30m -run '^TestChaosRegressions$$' ./test/chaos

## e2e: the real-client suite against both transports, over ws:// and then
## over wss:// (builds roost first), the suites in E2E_AUTO on the default
## transport (auto: epoll+uring where io_uring works), then the cluster suites again over NATS
## and over a private Redis Cluster of three primaries
## (e2e/with-redis-cluster.sh starts and removes it).
e2e: e2e-deps
	$(GO) build -o $(ROOST_E2E_BIN) ./cmd/roost
	cd e2e && ROOST_BIN=$(ROOST_E2E_BIN) $(NPM) test
	cd e2e && ROOST_TRANSPORTS=auto ROOST_BIN=$(ROOST_E2E_BIN) node --test --test-concurrency=1 --test-timeout=120000 $(E2E_AUTO)
	cd e2e && ROOST_BIN=$(ROOST_E2E_BIN) $(NPM) run test:tls
	cd e2e && E2E_NATS_URL=nats://127.0.0.1:4222 ROOST_BIN=$(ROOST_E2E_BIN) $(NPM) run test-cluster
	cd e2e && ROOST_BIN=$(ROOST_E2E_BIN) ./with-redis-cluster.sh $(NPM) run test-cluster

# E2E_AUTO: the suites that drive the transport (handshakes, reads,
# fan-out writes, close codes, compression, shutdown), run once more on auto.
E2E_AUTO := $(addprefix test/,$(addsuffix .test.js,connect ping publish client-events \
              private presence encrypted compression refusal shutdown subscription-count))

e2e-deps: $(E2E_DEPS)

$(E2E_DEPS): e2e/package.json e2e/package-lock.json
	cd e2e && $(NPM) ci --no-audit --no-fund
	@touch $@

## fuzz-short: every Fuzz target in the module for FUZZTIME each (CI runs
## it with FUZZTIME=20000x, a count of inputs: a duration can end in the
## fuzz coordinator's spurious "context deadline exceeded" on Go 1.26);
## only packages with a Fuzz function are listed.
fuzz-short:
	@set -e; for pkg in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run=NONE -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg; \
	  done; \
	done

## bench-once: every benchmark in the module once (-benchtime=1x), without
## the race detector, so that none rots; the figures of one run mean nothing.
bench-once:
	$(GO) test -run '^$$' -bench . -benchtime=1x ./...

# Linters at pinned versions, so that every run applies the same rules;
# `make lint` installs them into .tools/ through the Go module proxy.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOIMPORTS   := golang.org/x/tools/cmd/goimports@v0.52.0
# Pebble, a private ACME server, and its DNS server, for the ACME tests
# (testutil.Pebble finds them in .tools).
PEBBLE      := github.com/letsencrypt/pebble/v2/cmd/pebble@v2.10.3
CHALLTESTSRV := github.com/letsencrypt/pebble/v2/cmd/pebble-challtestsrv@v2.10.3
TOOLS       := $(CURDIR)/.tools
GOFILES      = $(shell find . -name '*.go' -not -path './.*' -not -path '*/node_modules/*')
# The platforms besides Linux that every change must build for.
CROSS := darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64 freebsd/arm64

.PHONY: lint cross tools pebble

## lint: go.mod tidy, gofmt and goimports clean, go vet (for Linux and for
## darwin, test files included) and staticcheck: CI fails on any finding.
lint: tools
	$(GO) mod tidy -diff
	@bad=$$(gofmt -l $(GOFILES)); [ -z "$$bad" ] || { echo "gofmt -w needed:"; echo "$$bad"; exit 1; }
	@bad=$$($(TOOLS)/goimports -local $(PKG) -l $(GOFILES)); \
	  [ -z "$$bad" ] || { echo "goimports -local $(PKG) -w needed:"; echo "$$bad"; exit 1; }
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

## pebble: install the pinned Pebble and pebble-challtestsrv into .tools/.
pebble:
	GOBIN=$(TOOLS) $(GO) install $(PEBBLE)
	GOBIN=$(TOOLS) $(GO) install $(CHALLTESTSRV)
