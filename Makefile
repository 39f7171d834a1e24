# ctxd — make help lists the targets.
GO       ?= go
BIN      := bin/ctxd
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS  := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME ?= 10s
EXAMPLE  := testdata/example

.DEFAULT_GOAL := help
.PHONY: help build test go-test editors-test mcp-test generate run bench bench-index secrets-bench secrets-conformance bench-relevance bench-change bench-mcp fuzz lint dist dist-check

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

build: ## build bin/ctxd
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

test: go-test editors-test mcp-test ## everything CI checks: gofmt, vet, race tests, the generated contract, the editor clients and the MCP client against bin/ctxd

# go test runs with -vet=off: go vet ./... has just run every analyzer go test would, on the
# same test files. The second go test runs without -race, in full, what -race samples.
go-test: ## gofmt, go vet and the race tests of every Go package (unit, LSP in-process, e2e on the binary)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -count=1 -vet=off ./...
	$(GO) test -count=1 -vet=off -run '^(TestGoOracle|TestGoFastAgreesWithTreeSitter|TestGoUsersBoundGoSrc|TestCrashRecovery)$$' ./index/syntax/ ./index/relate/ ./workspace/ledger/

editors-test: build ## the VS Code extension (unit + integration on bin/ctxd, then a .vsix) and the Neovim plugin (headless nvim on bin/ctxd)
	cd editors/vscode && npm ci --no-audit --no-fund && CTXD_BIN=$(CURDIR)/$(BIN) npm test && npm run package
	CTXD_BIN=$(CURDIR)/$(BIN) editors/nvim/tests/run.sh

mcp-test: build ## ctxd mcp driven over stdio by the official MCP TypeScript SDK client (tools/mcpclient, node --test)
	cd tools/mcpclient && npm ci --no-audit --no-fund && CTXD_BIN=$(CURDIR)/$(BIN) npm test

generate: ## regenerate the editor clients' contract from the Go types (go generate)
	$(GO) generate ./...

run: build ## build, then run ctxd's main job on the example workspace: ctxd build, summarized, then ctxd verify of what it recorded
	./$(BIN) version
	./$(BIN) build --root $(EXAMPLE) --purpose diff \
	  --target internal/store/store.go --target .env --symbol List \
	  --intent "List returns the items sorted by name, then SKU" \
	  --constraint "MUST_NOT add dependencies" \
	  --format summary --cache-dir off
	./$(BIN) verify --root $(EXAMPLE)

bench: build ## benchmarks on the Go source tree that ships with the toolchain (GOROOT/src), then bench-index, secrets, relevance, check-change and MCP
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...
	$(MAKE) bench-index
	$(MAKE) secrets-bench
	$(MAKE) secrets-conformance
	$(MAKE) bench-relevance
	$(MAKE) bench-change
	$(MAKE) bench-mcp

SYNTH_FILES ?= 100000
SYNTH_SEED  ?= 1

# The user-facing figures of docs/performance.md, each next to ctags -R on the same corpus:
# GOROOT/src (copied to a temp dir), then a synthetic repository written by tools/synthrepo into
# a temp dir that is deleted afterwards. INDEXBENCH_MD=FILE also writes both tables to FILE as
# markdown; INDEXBENCH_FLAGS go to both runs (e.g. -runs 1), SYNTHBENCH_FLAGS to the second.
bench-index: build ## index, first bundle, warm builds, didChange and peak RSS vs ctags -R: GOROOT/src, then a synthetic SYNTH_FILES-file repo
	@if [ -n "$(INDEXBENCH_MD)" ]; then : > "$(INDEXBENCH_MD)"; fi
	$(GO) run ./tools/indexbench -ctxd $(BIN) $(if $(INDEXBENCH_MD),-md $(INDEXBENCH_MD)) $(INDEXBENCH_FLAGS)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT INT TERM && \
	  $(GO) run ./tools/synthrepo -out "$$tmp/synth" -files $(SYNTH_FILES) -seed $(SYNTH_SEED) && \
	  $(GO) run ./tools/indexbench -ctxd $(BIN) -root "$$tmp/synth" -copy=false \
	    -label "synthrepo -files $(SYNTH_FILES) -seed $(SYNTH_SEED)" -runs 1 \
	    -goal-rss-mb 800 -goal-build-p95 100ms -goal-first 1s $(if $(INDEXBENCH_MD),-md $(INDEXBENCH_MD)) $(INDEXBENCH_FLAGS) $(SYNTHBENCH_FLAGS)

GITLEAKS_VERSION ?= v8.30.1

secrets-bench: ## secret scanner recall, false positives, MB/s and CPU time vs gitleaks (installed from the module proxy into a temp GOBIN when not on PATH)
	@gl=$$(command -v gitleaks || true); tmp=""; \
	  if [ -z "$$gl" ]; then tmp=$$(mktemp -d); \
	    echo "installing gitleaks $(GITLEAKS_VERSION) into $$tmp for the comparison"; \
	    GOBIN=$$tmp $(GO) install github.com/zricethezav/gitleaks/v8@$(GITLEAKS_VERSION) && gl=$$tmp/gitleaks || gl=off; fi; \
	  $(GO) run ./tools/secretsbench -gitleaks $$gl; rc=$$?; [ -z "$$tmp" ] || rm -rf $$tmp; exit $$rc

secrets-conformance: ## every gitleaks $(GITLEAKS_VERSION) generator sample through the real builder: fails on any leak or > 1% refused false positives
	cd tools/secretsconf && $(GO) run . -gitleaks-version $(GITLEAKS_VERSION)

# Each corpus's downloads (Go module proxy, npm, Debian packages and source packages through
# apt-get) are cached in $XDG_CACHE_HOME/ctxd-relbench (a temp dir without XDG_CACHE_HOME);
# needs go, node/npm, python3, java (JDK 17) and apt-get with bookworm lists (apt-get update).
bench-relevance: build ## relevance of ctxd bundles vs the compilers on 8 corpora: go/types (GOROOT/src, x/tools), the TS checker (rxjs, effect), the interpreter (SQLAlchemy, docutils), javac (commons-collections4), a static C# resolver (KeePass); RELBENCH_FLAGS=-lang go2 -v ...
	$(GO) run ./tools/relbench -ctxd $(BIN) $(RELBENCH_FLAGS)

# Answers made from the changes between consecutive releases of Go modules (module proxy) and
# npm packages (registry), in every format plus invalid ones of each rejection kind, through
# ctxd check-change --json --write in a scratch copy of the old release. Downloads are cached in
# $XDG_CACHE_HOME/ctxd-changebench (a temp dir without XDG_CACHE_HOME). CHANGEBENCH_FLAGS go to
# the tool: -strict fails on a missed goal, -md FILE also writes the tables, -dump DIR the answers.
bench-change: build ## check-change on answers from real release-to-release changes (Go, TS/JS): valid ones applied byte-exactly, invalid ones rejected with their code, 0 bytes changed
	$(GO) run ./tools/changebench -ctxd $(BIN) $(CHANGEBENCH_FLAGS)

# ctxd mcp as an agent host drives it: over stdio, with a raw JSON-RPC client, on a copy of
# GOROOT/src/net with freshly random credentials planted in it (.env, a Go config struct, a
# deployment YAML, a PEM key). Goals: frame sizes (tools/list, build_context with and without
# max_result_tokens, resource links that answer), the agent tools, read_file's refusals, no
# planted secret in any frame, refusal advice without CLI flags or editor fields, malformed lines
# survived; server CPU and wall time as information. A goal the binary has no feature for yet is
# "not available", not a failure. MCPBENCH_FLAGS go to the tool: -strict fails on a goal missed
# or not available, -md FILE also writes the table, -keep keeps the copy, -timeout per request.
bench-mcp: build ## ctxd mcp over stdio on GOROOT/src/net with planted secrets: frame sizes, agent tools, refusals and their advice, leaks, malformed lines
	$(GO) run ./tools/mcpbench -ctxd $(BIN) $(MCPBENCH_FLAGS)

fuzz: ## each fuzz target for FUZZTIME (default 10s)
	@set -e; for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s $$pkg; \
	  done; \
	done

lint: ## gofmt and go vet (and staticcheck when installed)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	@if command -v staticcheck >/dev/null; then staticcheck ./...; else echo "staticcheck not installed: skipped"; fi

# Release packaging (docs/install.md). DIST_VERSION is the one version of a release:
# `ctxd version`, the .vsix manifests and the file names carry it.
DIST_VERSION ?= $(shell tools/dist/version.sh 2>/dev/null || echo 0.0.0-devel)
DIST_TARGETS ?= linux-x64 linux-arm64 win32-x64

dist: ## release artifacts in dist/: cgo binaries, .tar.gz/.zip archives, per-target and universal .vsix, SHA256SUMS (DIST_TARGETS)
	GO=$(GO) DIST_VERSION=$(DIST_VERSION) DIST_TARGETS="$(DIST_TARGETS)" tools/dist/dist.sh

# dist-check builds twice and compares: the first build into dist.first/, the second into
# dist/. DIST_CHECK_GOCACHE=fresh (the default) gives each build its own empty Go build
# cache, so that the C grammars and every package are compiled twice, not reused; =shared
# keeps the user's cache (faster: only linking and packaging run twice).
DIST_CHECK_GOCACHE ?= fresh
dist-check: ## make dist twice (each with an empty Go build cache) and require byte-identical artifacts
	@set -e; tmp=$$(mktemp -d); trap 'chmod -R u+w "$$tmp"; rm -rf "$$tmp"' EXIT; \
	  cache() { if [ "$(DIST_CHECK_GOCACHE)" = fresh ]; then echo "GOCACHE=$$tmp/cache$$1"; else echo "GOCACHE=$$($(GO) env GOCACHE)"; fi; }; \
	  rm -rf dist.first; \
	  env $$(cache 1) $(MAKE) --no-print-directory dist DIST_VERSION=$(DIST_VERSION); mv dist dist.first; \
	  env $$(cache 2) $(MAKE) --no-print-directory dist DIST_VERSION=$(DIST_VERSION); \
	  if diff -r dist.first dist; then echo "dist-check: the two builds are byte-identical:"; cat dist/SHA256SUMS; \
	  else echo "dist-check: the two builds differ (above)"; exit 1; fi
