# ralph-loop. "make demo" plays a scripted session through the real Claude Code CLI;
# "make test" runs the fast hermetic tests, "make test-all" every test. See README.md.

GO        ?= go
# One version story (cmd/ralph-loop/version.go): the version is the one Go gives the commit
# (the tag vX.Y.Z at a tag, else a pseudo-version; "+dirty" with uncommitted changes), printed
# without the "v". The build gets the commit, its date and git describe from git (SOURCE),
# and works the version out from them as go build would; VERSION=1.2.3 overrides it.
VERSION   ?=
SOURCE    := $(shell git log -1 --format='%H %cI' 2>/dev/null) $(shell git describe --tags --match 'v[0-9]*' 2>/dev/null) $(shell [ -n "$$(git status --porcelain 2>/dev/null | head -1)" ] && echo dirty)
LDFLAGS   := -X 'main.source=$(strip $(SOURCE))' $(if $(VERSION),-X main.version=$(VERSION))
GORELEASER := github.com/goreleaser/goreleaser/v2@v2.15.1
# GoReleaser is built once (go install) into a cache directory of its own, and run from there:
# go run pkg@version asks the module proxy each time, so it would not run offline.
GORELEASER_BIN := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ralph-loop-tools/goreleaser-v2.15.1/goreleaser
BIN       := bin/ralph-loop
FUZZTIME  ?= 30s
STATICCHECK_VERSION := v0.8.2

CLAUDE_CODE := @anthropic-ai/claude-code@2.1.332

.PHONY: all build install dist test e2e release-test test-all tiers unit js hosts release demo bench stress lint fuzz generate clean

all: build

# ralph-loop and, beside it, its dashboard (ralph-loop watch runs bin/ralph-loop-watch).
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(dir $(BIN)) ./cmd/ralph-loop ./cmd/ralph-loop-watch

# Says where the binary went and whether that directory is on PATH.
install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/ralph-loop ./cmd/ralph-loop-watch
	@bin=$$($(GO) env GOBIN); [ -n "$$bin" ] || bin=$$($(GO) env GOPATH | cut -d: -f1)/bin; \
	echo "make install: installed $$bin/ralph-loop and its dashboard $$bin/ralph-loop-watch"; \
	case ":$$PATH:" in *":$$bin:"*) ;; *) \
	  echo "make install: $$bin is not on PATH, so \"ralph-loop\" is not found: add it (export PATH=\"$$bin:\$$PATH\" in your shell's profile), or run $$bin/ralph-loop install";; \
	esac

# Release artefacts in dist/, offline (docs/release.md): first the check that a release
# version is the plugin manifests' (seconds, before minutes of building); then GoReleaser
# (pinned, built once into GORELEASER_BIN) builds the static, stripped, reproducible binaries
# of every target, their archives and checksums.txt; then the npm packages (dist/npm/) at the
# same version. GORELEASER_FLAGS="-f FILE" runs another configuration (the tests' one-target
# quick path).
dist: build
	@set -e; v="$(VERSION)"; [ -n "$$v" ] || v=$$($(BIN) version --short); \
	echo "make dist: version $$v"; \
	$(GO) run ./cmd/internal/dist -check -version "$$v"; \
	$(MAKE) --no-print-directory $(GORELEASER_BIN); \
	RALPH_VERSION="$$v" RALPH_SOURCE="$(strip $(SOURCE))" RALPH_TIME=$$(git log -1 --format=%ct) RALPH_DATE=$$(git log -1 --format=%cI) \
	  "$(GORELEASER_BIN)" release --snapshot --clean --skip=publish $(GORELEASER_FLAGS); \
	$(GO) run ./cmd/internal/dist -dir dist -version "$$v"

# The tiers (docs/testing.md). "make test" is the hermetic tier a maintainer runs on every
# edit: go vet, the unit tests and fuzz seed corpora with -race, the testscript scripts
# (testdata/script); no network, no npm, no host CLI, no GoReleaser. "make e2e" runs each
# host's real CLI, offline against a scripted fake of its model API; "make release-test"
# builds the release with GoReleaser and installs it as a user would; "make test-all" runs
# the three (CI runs them all: .ci/run). Each runs its tests with a temporary directory of
# its own, which must be empty, with nothing running from it, when they end (named without
# "ralph-loop": tests check that no text of ralph-loop's reaches a model, and the model sees
# the session's directory); the last lines are one per suite and "N passed, N failed, N
# skipped".
test:
	@echo "make test: go vet, the unit tests (-race) and the script tests: no network, no host CLI. Each host's real CLI: make e2e; the release: make release-test; everything: make test-all."
	@$(MAKE) --no-print-directory tiers TIERS=unit

e2e:
	@echo "make e2e: each host's real CLI, offline against a scripted fake of its model API, and the plugins' JavaScript under node. The first run installs the nine CLIs with npm into $${RALPH_LOOP_E2E_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/ralph-loop-e2e} (about 2.5 GB, through npm's cache in ~/.npm, about 0.8 GB more); the sandbox tests install bubblewrap and socat with apt-get when they are missing (as root; with sudo only when it needs no password; else those tests are skipped, saying how to run them)."
	@$(MAKE) --no-print-directory tiers TIERS="js hosts"

release-test:
	@echo "make release-test: GoReleaser $(GORELEASER) (built once into $(GORELEASER_BIN)), make dist for all six targets, then the release installed as a user would (npm, the archive, go install) and run with the real Claude Code."
	@$(MAKE) --no-print-directory tiers TIERS=release

test-all:
	@echo "make test-all: make test, make e2e and make release-test, one after the other."
	@$(MAKE) --no-print-directory tiers TIERS="unit js hosts release"

# tiers runs the suites named in TIERS with their temporary directory and tally, then says
# what was left behind and the counts.
TIERS ?= unit
tiers:
	@tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/make-test.XXXXXX") || exit 1; \
	tally=$$tmp.tally; rc=0; \
	for t in $(TIERS); do TMPDIR=$$tmp TALLY=$$tally $(MAKE) --no-print-directory $$t || rc=1; done; \
	$(GO) run ./cmd/internal/testsum -leftovers $$tmp || rc=1; \
	$(GO) run ./cmd/internal/testsum -report $$tally || rc=1; \
	rm -rf $$tmp $$tally; exit $$rc

# TALLY (set by tiers) collects the counts for the summary.
TALLY ?= /dev/null

# The testscript scripts (cmd/ralph-loop's TestScripts) run without -race: they run the
# command as a host does, about a thousand processes whose code runs on one goroutine but
# for state.acquire's wait for a lock, which state's own tests run with -race. Race-built,
# the scripts took three times the CPU (305 s against 106 s), for no race they could see.
# The real-CLI and release packages (cmd/internal/e2e/...) are left out: they only skip here.
unit:
	$(GO) vet ./...
	@pkgs=$$($(GO) list ./... | grep -v '/cmd/internal/e2e'); \
	{ GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -json -skip '^TestScripts$$' $$pkgs; \
	  $(GO) test -count=1 -json -run '^TestScripts$$' ./cmd/ralph-loop; } \
	  | $(GO) run ./cmd/internal/testsum -as "unit and script tests" -tally $(TALLY)

# The JavaScript that install writes (opencode's and Kilo Code's plugin, pi's extension, the
# npm launcher) run under node: with the real CLIs' tier, so that make test starts no node.
JS_TESTS := TestPluginNode|TestPluginSyntax|TestExtensionSyntax|TestLauncherRace
js:
	RALPH_JS=1 $(GO) test -count=1 -json -run '^($(JS_TESTS))$$' ./hook/opencode ./hook/pi ./cmd/internal/dist \
	  | $(GO) run ./cmd/internal/testsum -skips -as "plugins under node" -tally $(TALLY)

$(GORELEASER_BIN):
	GOBIN="$(dir $@)" $(GO) install $(GORELEASER)

# The release suite with make dist for all six targets, as a release builds them.
release: $(GORELEASER_BIN)
	RALPH_E2E=1 RALPH_DIST_FULL=1 $(GO) test -count=1 -timeout 30m -json ./cmd/internal/e2e/release/ \
	  | $(GO) run ./cmd/internal/testsum -skips -tally $(TALLY)

# The real host CLIs (Claude Code, Gemini CLI, ...), offline, each against a scripted fake of
# its model API (installed once into the user cache with npm; a host whose CLI cannot be
# installed is skipped with one line saying so; without npm, or an npm that cannot reach its
# registry, the whole suite is skipped with one line saying so, unless CLAUDE_BIN names a
# claude $(CLAUDE_CODE) binary): one package per host in cmd/internal/e2e/<host> (Claude
# Code's in cmd/internal/e2e/claude), one host alone with
# RALPH_E2E=1 go test ./cmd/internal/e2e/claude/. Two hosts' suites run at once (E2E_P), the
# longest first (E2E_HOSTS): at four on two cores the whole run took longer in CPU (35
# against 29 minutes) and TUI tests failed on load. Within a host's suite the tests run beside
# each other (e2e.Suite.Need), as go test's -parallel allows.
E2E_P     ?= 2
E2E_HOSTS := claude kilo opencode qwen gemini droid copilot codex pi
hosts:
	@if [ -z "$$CLAUDE_BIN" ] && ! { command -v npm >/dev/null 2>&1 && npm view --fetch-retries=0 $(CLAUDE_CODE) version >/dev/null 2>&1; }; then \
	  echo "make e2e: SKIPPED the real-CLI suite: npm is missing or cannot reach the registry to install $(CLAUDE_CODE)"; exit 0; fi; \
	pkgs=$$(for h in $(E2E_HOSTS); do echo ./cmd/internal/e2e/$$h; done; \
	  $(GO) list ./cmd/internal/e2e/... | grep -v -e '/release$$' $(foreach h,$(E2E_HOSTS),-e '/e2e/$(h)$$')); \
	RALPH_E2E=1 $(GO) test -p $(E2E_P) -count=1 -timeout 30m -json $$pkgs \
	  | $(GO) run ./cmd/internal/testsum -skips -tally $(TALLY)

# One scripted session through the real Claude Code CLI, with a readable timeline.
demo:
	@$(GO) run ./cmd/internal/demo

# The files made from the code: the Claude Code plugin and its marketplace
# (plugins/ralph-loop, .claude-plugin) and the flag table of docs/usage.md. They are
# committed, marked generated (.gitattributes, or a header where the format has comments),
# and "make unit" fails when one is stale (cmd/internal/generate's tests).
generate:
	$(GO) run ./cmd/internal/generate

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	$(GO) mod tidy -diff
	@# The hook script (hook/install/hook.sh, and the plugin's copy): POSIX sh, as the hosts run it.
	@command -v shellcheck >/dev/null 2>&1 || { echo "make lint: shellcheck is not installed: apt-get install shellcheck (.ci/run installs it)"; exit 1; }
	shellcheck -s sh hook/install/hook.sh plugins/ralph-loop/hooks/ralph-loop.sh
	@# The binary builds where the process table is read another way (macOS) or not at all.
	@for os in darwin freebsd windows; do GOOS=$$os GOARCH=amd64 $(GO) build -o /dev/null ./cmd/ralph-loop || exit 1; done

# The reliability tests at full size: 200+ hook processes at once across 10 sessions, 500
# hooks killed with SIGKILL mid-flight, 400 writers of the loop file killed mid-write, and
# every hook and command run against FIFOs, links, directories and hard links planted at
# every state path ("make test" runs them small).
stress:
	RALPH_STRESS=1 $(GO) test -count=1 -v -run 'TestConcurrentHooks|TestCrashConsistency|TestPlantedFiles' ./cmd/ralph-loop/
	RALPH_STRESS=1 $(GO) test -count=1 -v -run 'TestConcurrentWriterStress' ./hook/install/
	RALPH_STRESS=1 $(GO) test -count=1 -v -run 'TestKillDuringWrite' ./state/

# Whole-process runs of the built hook (cases of issue #5, transcripts up to 1 GB in a
# temporary directory), then the matcher's and the scanner's Go benchmarks; then the real
# hosts: the same 10-iteration loop on each host's real CLI (offline, as make e2e runs them),
# every hook process timed, and on Claude Code against a minimal sh Stop hook (and the
# official plugin's stop-hook.sh, if RALPH_BENCH_OFFICIAL names a copy of it), BENCH_ROUNDS
# rounds, the hook sets taking turns in both orders (an even number).
BENCH_ROUNDS ?= 6
bench: build
	$(GO) run ./cmd/internal/bench -bin $(BIN)
	$(GO) test -run '^$$' -bench . -benchtime 20x -count 3 ./promise/ ./hook/internal/claudeshape/ ./hook/proc/
	$(GO) run ./cmd/internal/bench hosts $(BENCH_ROUNDS)

# Every fuzz target for FUZZTIME each; crashers land in <pkg>/testdata/fuzz/<Target>/.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

clean:
	rm -rf bin dist
