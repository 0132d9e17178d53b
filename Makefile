# git konteks — build, install, test, benchmark.
#   make run      build, install, and extract memory for this repository
#   make test     every test (gofmt, go vet, go test -race), the MCP server's against the official
#                 inspector too (make inspector installs it with npm; Node 20 or later)
#   make bench    Go benchmarks + extraction, recall and the MCP server on a large real tree
#   make eval     recall quality on real git histories, development set (eval-test: the frozen test set,
#                 eval-swebench: SWE-bench Lite); repositories in $KONTEKS_REPOS (make fetch-repos)
#   make fuzz     run every fuzz target for FUZZTIME (60s) each
#   make soak     the randomised soak and kill tests for SOAKTIME (10m) each
#   make model    train the built-in static model (docs/model.md); repositories in $KONTEKS_TRAIN_REPOS

GO        ?= go
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
# The binary is linked statically when the C toolchain can (Debian's and
# Ubuntu's libc6-dev ship libc.a; macOS and Fedora without glibc-static
# cannot, and get the usual dynamic binary): every command then starts
# without the dynamic loader's work, 10-40 ms of CPU a call here
# (docs/performance.md, "Process start"). netgo and osusergo keep glibc's
# resolver and user lookups, which a static glibc cannot load, out of it.
comma     := ,
ifeq ($(origin STATIC),undefined)
STATIC    := $(shell printf 'int main(void){return 0;}\n' | $${CC:-cc} -static -x c - -o /dev/null 2>/dev/null && echo yes)
endif
# urfave_cli_no_docs leaves out the CLI library's Markdown and man-page
# renderer, which the binary does not use (help --man writes its own
# roff): its Markdown parser's package init ran at every start (--version
# 22.5 to 22.0 ms, 860 to 765 page faults).
TAGS      := urfave_cli_no_docs$(if $(STATIC),$(comma)netgo$(comma)osusergo)
BUILDFLAGS := -trimpath -tags $(TAGS)
LINKFLAGS  := $(LDFLAGS) $(if $(STATIC),-linkmode external -extldflags -static)
# Install where `git konteks` will find it: /usr/local/bin when writable,
# else ~/.local/bin. Override with `make install PREFIX=...`.
PREFIX    ?= $(shell test -w /usr/local/bin && echo /usr/local || echo $(HOME)/.local)
BINDIR    := $(PREFIX)/bin
MANDIR    := $(PREFIX)/share/man
BENCH_SRC ?= $(shell $(GO) env GOROOT)/src
FUZZTIME  ?= 60s
SOAKTIME  ?= 10m
# The official MCP inspector (npm @modelcontextprotocol/inspector) at the
# version scripts/inspector pins, installed by `make inspector` outside the
# repository; `make test` runs it against `git konteks mcp`.
INSPECTOR_VERSION := $(shell sed -n 's|.*"@modelcontextprotocol/inspector": *"\([^"]*\)".*|\1|p' scripts/inspector/package.json)
INSPECTOR_DIR     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/konteks/inspector-$(INSPECTOR_VERSION)
INSPECTOR         := $(INSPECTOR_DIR)/node_modules/.bin/mcp-inspector

.PHONY: all build man install run test inspector vet fmt-check bench bench-go bench-extract bench-recall bench-mcp bench-hooks bench-history bench-growth bench-report bench-peers eval eval-test eval-swebench fetch-repos model ranker fuzz soak clean

# The evaluation and benchmark repositories (scripts/eval/repos.tsv) live in
# $KONTEKS_REPOS; `make fetch-repos` clones them at their pinned commits.
need-repos = $(if $(KONTEKS_REPOS),,$(error set KONTEKS_REPOS to a directory for the evaluation repositories, then run make fetch-repos))

all: build

build:
	$(GO) build $(BUILDFLAGS) -ldflags '$(LINKFLAGS)' -o bin/git-konteks ./cmd/git-konteks

# The manual page, from the same command definitions as -h; installed where
# `man git-konteks`, `git help konteks` and `git konteks --help` find it.
man: build
	bin/git-konteks help --man > bin/git-konteks.1

install: build man
	mkdir -p $(BINDIR) $(MANDIR)/man1
	install -m 0755 bin/git-konteks $(BINDIR)/git-konteks
	install -m 0644 bin/git-konteks.1 $(MANDIR)/man1/git-konteks.1
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "note: add $(BINDIR) to PATH so that 'git konteks' finds git-konteks";; esac

# The main job on this repository: install, then extract its memory.
run: install
	$(BINDIR)/git-konteks extract
	$(BINDIR)/git-konteks status

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

test: fmt-check vet inspector
	KONTEKS_INSPECTOR=$(INSPECTOR) $(GO) test -race -count=1 -timeout 20m ./...

# `npm ci` of scripts/inspector's lock into INSPECTOR_DIR, skipped when
# that lock is installed there already. It installs into a new directory
# and renames it into place, so an interrupted install is never taken for
# a finished one (and one that another make finished first is kept).
inspector:
	@command -v npm >/dev/null 2>&1 || { echo "make inspector: npm not found; make test runs the official MCP inspector, which needs Node.js 20 or later with npm (https://nodejs.org)" >&2; exit 1; }
	@if [ -x "$(INSPECTOR)" ] && cmp -s scripts/inspector/package-lock.json "$(INSPECTOR_DIR)/package-lock.json"; then exit 0; fi; \
	echo "installing the MCP inspector $(INSPECTOR_VERSION) into $(INSPECTOR_DIR)"; \
	mkdir -p "$(dir $(INSPECTOR_DIR))" && tmp=$$(mktemp -d "$(INSPECTOR_DIR).XXXXXX") && \
	chmod 755 "$$tmp" && cp scripts/inspector/package.json scripts/inspector/package-lock.json "$$tmp"/ && \
	(cd "$$tmp" && npm ci --no-audit --no-fund) || { rm -rf "$$tmp"; exit 1; }; \
	if [ -x "$(INSPECTOR)" ] && cmp -s scripts/inspector/package-lock.json "$(INSPECTOR_DIR)/package-lock.json"; then \
		rm -rf "$$tmp"; \
	else \
		rm -rf "$(INSPECTOR_DIR)" && mv "$$tmp" "$(INSPECTOR_DIR)"; \
	fi

bench: bench-go bench-extract bench-recall bench-mcp bench-history bench-growth bench-hooks

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

bench-extract: build
	scripts/bench-extract.sh $(BENCH_SRC) $(CURDIR)/bin/git-konteks

bench-recall: build
	scripts/bench-recall.sh $(BENCH_SRC) $(CURDIR)/bin/git-konteks

bench-mcp: build inspector
	KONTEKS_INSPECTOR_DIR=$(INSPECTOR_DIR) scripts/bench-mcp.sh $(BENCH_SRC) $(CURDIR)/bin/git-konteks

# `git fetch` of 10,000 updated refs with the hooks installed against without.
bench-hooks: build
	scripts/bench-hooks.sh $(CURDIR)/bin/git-konteks

# History memory on a long real history: prometheus in $KONTEKS_REPOS (BENCH_HISTORY=repo to choose).
bench-history: build
	$(if $(BENCH_HISTORY),,$(need-repos))
	scripts/bench-history.sh $(or $(BENCH_HISTORY),$(KONTEKS_REPOS)/prometheus+prometheus) $(CURDIR)/bin/git-konteks

# Memory growth over N hook-driven extractions (BENCH_GROWTH="repo..." to choose).
bench-growth: build
	BINARY=$(CURDIR)/bin/git-konteks scripts/bench-growth.sh $(BENCH_GROWTH)

# docs/performance.md from one run of the benchmarks (BENCH_REPORT="targets" to choose).
bench-report:
	scripts/bench-report.sh $(BENCH_REPORT)

# Side by side with zoekt-index (CPU until the first recall, peak RSS) on
# prometheus, rails and $GOROOT/src from $KONTEKS_REPOS (scripts/fetch-repos.sh
# scripts/bench-repos.tsv); not part of `make bench`: it builds zoekt.
bench-peers: build
	$(need-repos)
	scripts/bench-peers.sh $(CURDIR)/bin/git-konteks

fetch-repos:
	$(need-repos)
	scripts/fetch-repos.sh

eval:
	$(need-repos)
	EVAL_SPLIT=dev scripts/eval.sh

eval-test:
	$(need-repos)
	EVAL_SPLIT=test scripts/eval.sh

# SWEBENCH_LITE: the SWE-bench Lite test split as JSON or JSON Lines (docs/evaluation.md).
eval-swebench:
	$(need-repos)
	EVAL_SPLIT=swebench scripts/eval.sh

# The built-in static model, from the training repositories of
# scripts/model/repos.tsv cloned into $KONTEKS_TRAIN_REPOS at their pinned
# commits (docs/model.md); writes embed/static/model.bin.
model:
	$(if $(KONTEKS_TRAIN_REPOS),,$(error set KONTEKS_TRAIN_REPOS to a directory for the training repositories))
	KONTEKS_REPOS=$(KONTEKS_TRAIN_REPOS) scripts/fetch-repos.sh scripts/model/repos.tsv
	$(GO) run ./scripts/model -dir $(KONTEKS_TRAIN_REPOS) -n 10000 -docs 3000 -epochs 2

# recall's learned ranker, from the commit histories and the issues
# (scripts/ranker/issues, each weighing three commits) of the training
# repositories of scripts/ranker/repos.tsv cloned into $KONTEKS_TRAIN_REPOS
# at their pinned commits: scripts/eval writes each query's candidate files
# and their features, scripts/ranker cross-validates by repository and
# writes recall/learned_weights.go. RANKER_CACHE keeps the clones and their
# memory between runs.
RANKER_CACHE ?= $(KONTEKS_TRAIN_REPOS)/.ranker-cache
ranker:
	$(if $(KONTEKS_TRAIN_REPOS),,$(error set KONTEKS_TRAIN_REPOS to a directory for the training repositories))
	KONTEKS_REPOS=$(KONTEKS_TRAIN_REPOS) scripts/fetch-repos.sh scripts/ranker/repos.tsv
	mkdir -p $(RANKER_CACHE)
	rm -f $(RANKER_CACHE)/features.jsonl
	$(GO) run ./scripts/eval -repos scripts/ranker/repos.tsv -split train -dir $(KONTEKS_TRAIN_REPOS) -set commits,issues -issues scripts/ranker/issues -n 40 -cache $(RANKER_CACHE) -features $(RANKER_CACHE)/features.jsonl
	$(GO) run ./scripts/ranker -l2 0.001 -set-weights issues=3 -out recall/learned_weights.go $(RANKER_CACHE)/features.jsonl

fuzz:
	scripts/fuzz.sh $(FUZZTIME)

# The tests that run random sequences (three clones syncing, extractions
# killed at random moments) make a short run in `make test`; here each
# runs for SOAKTIME. The seed each logs replays it (KONTEKS_TEST_SEED).
soak:
	KONTEKS_SOAK=$(SOAKTIME) $(GO) test -race -count=1 -timeout 0 -v -run 'TestThreeClonesNeverLoseMemories|TestKillAtRandomPoints' ./share ./cmd/git-konteks

clean:
	rm -rf bin
